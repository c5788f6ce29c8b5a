#!/usr/bin/env bash
# D3 (H200): the final build (last tile moved back inside M / N) and the shipped cache: the
# decode grid and the Llama grid at M <= 512 in every granularity and the DeepSeek-V3 grid
# (block), graph replays beside peers.py (every torch provider) in the same call; M inside
# buckets (session 27's D11 shapes); then the sm90 suite's tcases, dispatch, tune and
# sm90-plan with the time left. One tarball ($OUT/d3.tgz).
o=$OUT/d3; mkdir -p $o
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
  s=""
  for nk in 4096,4096 8192,8192; do
    for m in 129 144 160 176 192 200 208 224 240 256 900 960 1000 1024; do s="$s --shape $m,$nk"; done
  done
  for g in row,row tensor,tensor; do
    W8A8_KERNEL_DIR=/tmp/kd3 carry/static/w8a8 bench --json --graph --no-cublaslt --scale $g $s \
      >> $o/m-sweep.jsonl 2>> $o/err.log
  done
)
echo "grids $SECONDS" >> $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm90 dispatch tune" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=$((575 - SECONDS)) W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
