#!/usr/bin/env bash
# D4 (H200): the final build (swap-AB kernels back to session 27's code) and the shipped
# cache: the decode grid and the Llama grid at M <= 512 in every granularity and the
# DeepSeek-V3 grid (block), graph replays beside peers.py (every torch provider) in the same
# call; the decode grid A B B A against session 28's build (carry/old); then the GPU suites
# that run sm90_gemm (swap, sm90's four tcases, dispatch, tune). One tarball.
o=$OUT/d4; mkdir -p $o
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
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do shapes="$shapes $m,$nk"; done
done
for s in int8 tensor,tensor row,row block,block; do
  CHUNK=30 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-${s%%,*}.jsonl $s $shapes \
    2>> $o/err.log
done
echo "ab $SECONDS" >> $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="swap sm90 dispatch tune" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=$((585 - SECONDS)) W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
