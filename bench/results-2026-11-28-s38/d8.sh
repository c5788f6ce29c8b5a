#!/usr/bin/env bash
# PREPARED FOR THE NEXT SESSION, NOT RUN (session 38 had 258 s of device time left, too
# little to start a machine). Setup on the host, from the repository root:
#   git apply bench/results-2026-11-28-s38/trigger.patch   (sm90_gemm's trigger launch argument)
#   static-deps build into carry/static (its binary embeds the patched templates)
#   python3 bench/results-2026-11-28-s38/trig1_rows.py > /tmp/trig1.sql
#   build/static/w8a8 cache --db carry/trig1.db import /tmp/trig1.sql
# If trigger=1 wins a key in both rounds, append ",trigger=1" to its INSERT in cache/h200-*.sql,
# and run check_gpu_sm90 (its config list names trigger=1 twice) and the closing grids.
# D8 (H200): sm90_gemm's new launch argument trigger=1 (src/sm90_gemm.c; not in the Lua space) (the next kernel launches as our CTAs
# exit, not after our last load) on the shipped H200 rows of M buckets 256 and 512: the same
# configs with trigger=1 in a user database (carry/trig1.db, 84 rows: the shipped INSERTs with
# ",trigger=1"; user rows win) against the shipped cache, the Llama grid at M = 256 and 512 in
# every granularity, graph replays, two rounds in the order base, trig1, trig1, base (trig1's
# first round with --verify against the reference); then check_gpu_sm90's plan tcase (config
# validation, trigger=2 refused).
o=$OUT/d8; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k8
W=carry/static/w8a8
sh=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 256 512; do sh="$sh --shape $m,$nk"; done; done
cp carry/trig1.db /tmp/trig1.db
one() { # label db round [--verify]
  for s in "--scale tensor,tensor" "--scale row,row" "--scale block,block" "--dtype int8"; do
    W8A8_CACHE_DB=$2 $W bench $sh $s --graph --no-cublaslt --json $4 > "$o/$1-$(echo $s | tr -d ' -' | tr , _)-r$3.jsonl" 2>> $o/err.txt
  done
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
one base /tmp/empty.db 1; one trig1 /tmp/trig1.db 1 --verify
tar czf $OUT/d8.tgz -C $OUT d8
one trig1 /tmp/trig1.db 2; one base /tmp/empty.db 2
(cd $(mktemp -d) && CK_RUN_CASE=plan CK_FORK=no W8A8_KERNEL_DIR=$PWD/k W8A8_CACHE_DB=$PWD/t.db \
  W8A8_TEST_KERNEL_DIR=$PWD/k W8A8_TEST_CACHE_DB=$PWD/t.db timeout 60 \
  $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/sm90-plan.log 2>&1; echo "plan exit $?" >> $o/gpu.txt)
tar czf $OUT/d8.tgz -C $OUT d8 && rm -rf $o
