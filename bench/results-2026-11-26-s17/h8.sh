#!/usr/bin/env bash
# H8 (session 17, H100): the shipped caches alone (empty user database, tuning off): Llama
# M 1…512 (4 granularities), Llama M 1024…8192 (tensor, row, INT8) and dsv3 (block), ours as
# graph replays beside peers.py (every provider), same call.
set -u
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kh8
export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py
nvidia-smi -L > /tmp/gpu.txt
W8A8_PACK_NAME=h8a W8A8_SCALES="tensor,tensor row,row int8 block,block" timeout 330 \
  scripts/gpu-session.sh bench-grid:llama3-small+bench-grid:dsv3 > /dev/null 2>&1
W8A8_PACK_NAME=h8b W8A8_SCALES="tensor,tensor row,row int8" timeout 230 \
  scripts/gpu-session.sh bench-grid:llama3-large > /dev/null 2>&1
cp /tmp/gpu.txt $OUT/
