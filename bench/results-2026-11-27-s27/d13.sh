#!/usr/bin/env bash
# D13 (H200): the final build (A_ROWS up to M = 96) and cache, the decode grid and the Llama grid
# at M <= 512, every granularity, graph replays beside peers.py (every torch provider) in the
# same call, packed into one tarball ($OUT/d13.tgz).
o=$OUT/d13; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_BIN=carry/static \
  W8A8_PEERS=carry/peers.py
P=torch.tensor,torch.row,torch.tensor.fast,torch.row.fast,torch.block,torch.int8,torch.bf16
for g in decode llama3-small; do
  W8A8_PROVIDERS=$P W8A8_SCALES="tensor,tensor row,row int8 block,block" OUT=$o \
    scripts/gpu-session.sh bench-grid:$g
done
tar czf $OUT/d13.tgz -C $OUT d13 && rm -rf $o
