#!/usr/bin/env bash
# D9 (H200): issue 10's standing on the final build (A_ROWS) and cache: the decode grid and the
# Llama grid at M <= 512, every granularity, graph replays beside peers.py (every torch
# provider) in the same call. D6 did the same on the build before A_ROWS.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_BIN=carry/static \
  W8A8_PACK=1 W8A8_PEERS=carry/peers.py
P=torch.tensor,torch.row,torch.tensor.fast,torch.row.fast,torch.block,torch.int8,torch.bf16
W8A8_PROVIDERS=$P W8A8_SCALES="tensor,tensor row,row int8 block,block" W8A8_PACK_NAME=grid-decode \
  OUT=$o scripts/gpu-session.sh bench-grid:decode
W8A8_PROVIDERS=$P W8A8_SCALES="tensor,tensor row,row int8 block,block" W8A8_PACK_NAME=grid-small \
  OUT=$o scripts/gpu-session.sh bench-grid:llama3-small
ls -la $o
