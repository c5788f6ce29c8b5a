#!/usr/bin/env bash
# H9 (session 17, H200): the shipped caches alone (empty user database, tuning off): the decode
# grid and Llama M 1…512, 4 granularities each, ours as graph replays beside peers.py (every
# provider), same call — issue 10's acceptance grids.
set -u
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kh9
export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_PACK_NAME=h9
nvidia-smi -L > $OUT/gpu.txt
W8A8_SCALES="tensor,tensor row,row int8 block,block" timeout 560 \
  scripts/gpu-session.sh bench-grid:decode+bench-grid:llama3-small > /dev/null 2>&1
