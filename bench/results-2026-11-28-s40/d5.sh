#!/usr/bin/env bash
# D5 (H200): sm90_gemm's early=1 as an L2 prefetch: before its wait for the previous kernel the
# TMA thread prefetches the weights' boxes of its first 2 · STAGES K blocks into L2 (D4's
# version, which loaded them into the ring before the wait and the activations after it, ran
# 0.96x: each stage's A then queued behind every early B). Always safe, so no context flag.
# 1. the shipped H200 sm90_gemm rows of every M bucket with ",early=1" in a user database
#    (carry/early.db, as in d4.sh) against the shipped cache, graph replays, rounds base,
#    early (--verify), early, base: D4's sets;
# 2. the GPU suites of the changed code: check_gpu_sm90 (early=1 configs: cooperative, cluster,
#    split, tail, block), check_gpu_swap (split, cluster), dispatch, tune, jit.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
(
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k-d5
W=carry/static/w8a8
ll="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
ds=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 64 128 512 1024 2048 4096; do ds="$ds --shape $m,$nk"; done; done
lt=""; for nk in $ll; do for m in 16 64 128 256 512; do lt="$lt --shape $m,$nk"; done; done
lg=""; for nk in $ll; do for m in 1024 2048; do lg="$lg --shape $m,$nk"; done; done
dc=""; for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 2 4 8 16 32; do dc="$dc --shape $m,$nk"; done; done
cp carry/early.db /tmp/early5.db; rm -f /tmp/empty-d5.db
one() { # label db round [--verify]
  local b="W8A8_CACHE_DB=$2 $W bench --graph --no-cublaslt --json $4"
  env $b $ds --scale block,block > $o/$1-dsv3-r$3.jsonl 2>> $o/err.txt
  env $b $lt --scale tensor,tensor > $o/$1-lt-r$3.jsonl 2>> $o/err.txt
  env $b $lt --scale block,block > $o/$1-lb-r$3.jsonl 2>> $o/err.txt
  env $b $dc --scale tensor,tensor > $o/$1-dc-r$3.jsonl 2>> $o/err.txt
  env $b $dc --scale block,block > $o/$1-db-r$3.jsonl 2>> $o/err.txt
  env $b $lg --scale tensor,tensor > $o/$1-lg-r$3.jsonl 2>> $o/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
one base /tmp/empty-d5.db 1; one early /tmp/early5.db 1 --verify
tar czf $OUT/d5.tgz -C $OUT d5
one early /tmp/early5.db 2; one base /tmp/empty-d5.db 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $o base early dsv3 lt lb dc db lg > $o/table.txt 2>&1
)
tar czf $OUT/d5.tgz -C $OUT d5
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm90 swap dispatch tune jit" \
  W8A8_TEST_TIMEOUT=270 timeout 285 scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
