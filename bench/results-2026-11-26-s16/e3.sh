#!/usr/bin/env bash
# E3 (session 16): the shipped caches (cache/h200-decode.sql with E2's rows), an empty user
# database, tuning off: the decode grid, Llama M <= 512 and the whole Llama grid, each
# granularity, graph replays, beside every peers.py provider.
set -u
o=$(mktemp -d)/e3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=grids W8A8_SKIP_CHECK=1 W8A8_CACHE_DB=/tmp/empty.db \
 W8A8_KERNEL_DIR=/tmp/k3 W8A8_PEERS=carry/peers.py W8A8_SCALES="tensor,tensor row,row int8 block,block" \
  scripts/gpu-session.sh bench-grid:decode+bench-grid:llama3-small+bench-grid:llama3-large
