#!/usr/bin/env bash
# D4 (H200): sm90_gemm's early=1 (the weights' first STAGES K blocks loaded before the wait for
# the previous kernel; D3 measured the unsafe upper bound, all operands early).
# 1. every GPU suite (check_gpu_sm90 and check_gpu_swap run early=1 configs on a context with
#    W8A8_CONTEXT_CONST_WEIGHTS);
# 2. the shipped H200 sm90_gemm rows of every M bucket with ",early=1" in a user database
#    (carry/early.db from `trig_rows.py BUCKETS ,early=1 --swap` of session 39: user rows win) against the shipped cache, both with
#    W8A8_CONST_WEIGHTS=1, graph replays, rounds base, early (--verify), early, base:
#    DeepSeek-V3 block (every M of the grid), Llama M <= 512 per-tensor and block, decode
#    per-tensor and block, Llama M = 1024 / 2048 per-tensor.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 300 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CONST_WEIGHTS=1 W8A8_KERNEL_DIR=/tmp/k-d4
W=carry/static/w8a8
ll="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
ds=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 64 128 512 1024 2048 4096; do ds="$ds --shape $m,$nk"; done; done
lt=""; for nk in $ll; do for m in 16 64 128 256 512; do lt="$lt --shape $m,$nk"; done; done
lg=""; for nk in $ll; do for m in 1024 2048; do lg="$lg --shape $m,$nk"; done; done
dc=""; for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 2 4 8 16 32; do dc="$dc --shape $m,$nk"; done; done
cp carry/early.db /tmp/early.db; rm -f /tmp/empty-d4.db
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
one base /tmp/empty-d4.db 1; one early /tmp/early.db 1 --verify
tar czf $OUT/d4.tgz -C $OUT d4
one early /tmp/early.db 2; one base /tmp/empty-d4.db 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $o base early dsv3 lt lb dc db lg > $o/table.txt 2>&1
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
