#!/usr/bin/env bash
# D6 (H200): issue 10's standing in one run on this session's cache (D3's row in): the decode
# grid and the Llama grid at M <= 512, every granularity (per-tensor, per-row, INT8, block) as
# graph replays beside peers.py (every torch provider) on the same shapes.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_BIN=carry/static \
  W8A8_PACK=1 W8A8_PEERS=carry/peers.py
W8A8_PROVIDERS=torch.tensor,torch.row,torch.tensor.fast,torch.row.fast,torch.block,torch.int8,torch.bf16 \
  W8A8_SCALES="tensor,tensor row,row int8 block,block" W8A8_PACK_NAME=grid-decode OUT=$o \
  scripts/gpu-session.sh bench-grid:decode
echo "decode $SECONDS" >> $o/gpu.txt
W8A8_PROVIDERS=torch.tensor,torch.row,torch.tensor.fast,torch.row.fast,torch.block,torch.int8,torch.bf16 \
  W8A8_SCALES="tensor,tensor row,row int8 block,block" W8A8_PACK_NAME=grid-small OUT=$o \
  scripts/gpu-session.sh bench-grid:llama3-small
echo "small $SECONDS" >> $o/gpu.txt
ls -la $o
