#!/usr/bin/env bash
# D3 (H200), an upper bound: what would sm90_gemm gain if its producer warpgroup issued its
# first STAGES stages (A, B, block scales) before the programmatic-dependent-launch wait, under
# the previous call's tail? carry/tearly/ is templates/ with that change (early.patch; unsafe in
# general, since A may be the previous kernel's output, but not in a benchmark loop of one
# GEMM). The shipped H200 rows as they are (base) against the same rows compiled from
# carry/tearly (W8A8_TEMPLATE_DIR), graph replays, rounds base, early (--verify), early, base:
# DeepSeek-V3 block at M = 64, 128, 512; Llama per-tensor at M = 16…512 and block at
# M = 256, 512; decode per-tensor at M = 1, 8, 32.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d3.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=carry/static/w8a8
ll="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
ds=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 64 128 512; do ds="$ds --shape $m,$nk"; done; done
lt=""; for nk in $ll; do for m in 16 64 128 256 512; do lt="$lt --shape $m,$nk"; done; done
lb=""; for nk in $ll; do for m in 256 512; do lb="$lb --shape $m,$nk"; done; done
dc=""; for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 8 32; do dc="$dc --shape $m,$nk"; done; done
one() { # label round [--verify]
  local env="W8A8_KERNEL_DIR=/tmp/k-$1"
  [ "$1" = early ] && env="$env W8A8_TEMPLATE_DIR=$PWD/carry/tearly"
  env $env $W bench $ds --scale block,block --graph --no-cublaslt --json $3 > $o/$1-dsv3-r$2.jsonl 2>> $o/err.txt
  env $env $W bench $lt --scale tensor,tensor --graph --no-cublaslt --json $3 > $o/$1-lt-r$2.jsonl 2>> $o/err.txt
  env $env $W bench $lb --scale block,block --graph --no-cublaslt --json $3 > $o/$1-lb-r$2.jsonl 2>> $o/err.txt
  env $env $W bench $dc --scale tensor,tensor --graph --no-cublaslt --json $3 > $o/$1-dc-r$2.jsonl 2>> $o/err.txt
  echo "$1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one early 1 --verify
tar czf $OUT/d3.tgz -C $OUT d3
one early 2; one base 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $o base early dsv3 lt lb dc > $o/table.txt 2>&1
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
