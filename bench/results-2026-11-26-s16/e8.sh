#!/usr/bin/env bash
# E8 (session 16, final build): every GPU suite; then the shipped caches (an empty user
# database, tuning off): decode grid, Llama M <= 512 and M >= 1024, every granularity, graph
# replays, beside every peers.py provider.
set -u
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=tests W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=290 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk scripts/gpu-session.sh tests
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=grids \
 W8A8_SKIP_CHECK=1 W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/k8 W8A8_PEERS=carry/peers.py \
 W8A8_SCALES="tensor,tensor row,row int8 block,block" \
  scripts/gpu-session.sh bench-grid:decode+bench-grid:llama3-small+bench-grid:llama3-large
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
