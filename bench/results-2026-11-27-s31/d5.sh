#!/usr/bin/env bash
# D5 (H200): the final build (tail=2; rank() with the wave factor) and the shipped cache (this
# session's 6 new DeepSeek-V3 rows): the decode grid and the Llama grid at M <= 512 in every
# granularity and the DeepSeek-V3 grid (block), graph replays beside peers.py (every torch
# provider) in the same call; then the GPU suites that run sm90_gemm (sm90's five tcases,
# swap, dispatch, tune). A tarball after each part.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
(
  export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_BIN=carry/static \
    W8A8_PEERS=carry/peers.py
  P=torch.tensor,torch.row,torch.tensor.fast,torch.row.fast,torch.block,torch.int8,torch.bf16
  for g in decode llama3-small; do
    W8A8_PROVIDERS=$P W8A8_SCALES="tensor,tensor row,row int8 block,block" OUT=$o \
      scripts/gpu-session.sh bench-grid:$g
  done
  W8A8_PROVIDERS=torch.block W8A8_SCALES="block,block" OUT=$o scripts/gpu-session.sh bench-grid:dsv3
)
echo "grids $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5-grids.tgz -C $OUT d5
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm90 swap dispatch tune" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=$((560 - SECONDS)) W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
