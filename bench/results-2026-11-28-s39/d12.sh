#!/usr/bin/env bash
# D12 (H200), run on the tree with trigger2.patch applied (taken back out after: no gain): trigger=2 (the producer lets the next kernel launch before its first load) on
# the shipped sm90_gemm rows of M buckets 1…128, swap-AB included: those rows with
# ",trigger=2" in a user database (carry/trig2.db from `trig_rows.py 1,2,4,8,16,32,64,128
# ,trigger=2 --swap`; user rows win) against the shipped cache: the decode grid, the Llama
# grid at M = 1, 16, 64, 128 in every granularity and the DeepSeek-V3 shapes at M = 16, 64,
# 128 (block); graph replays, rounds base, trig1, trig1, base (the label trig1 is
# trig1_ship.py's; its first round with --verify); then check_gpu_sm90's gpu_sm90 tcase (its
# configs include trigger=2) and plan tcase (trigger=3 refused).
o=$OUT/d12; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k12
W=carry/static/w8a8
sh=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 16 64 128; do sh="$sh --shape $m,$nk"; done; done
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 32; do sh="$sh --shape $m,$nk"; done; done
ds=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 64 128; do ds="$ds --shape $m,$nk"; done; done
cp carry/trig2.db /tmp/trig2.db
one() { # label db round [--verify]
  for s in "--scale tensor,tensor" "--scale row,row" "--scale block,block" "--dtype int8"; do
    W8A8_CACHE_DB=$2 $W bench $sh $s --graph --no-cublaslt --json $4 > "$o/$1-$(echo $s | tr -d ' -' | tr , _)-r$3.jsonl" 2>> $o/err.txt
  done
  W8A8_CACHE_DB=$2 $W bench $ds --scale block,block --graph --no-cublaslt --json $4 > "$o/$1-dsv3block-r$3.jsonl" 2>> $o/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
one base /tmp/empty.db 1; one trig1 /tmp/trig2.db 1 --verify
tar czf $OUT/d12.tgz -C $OUT d12
one trig1 /tmp/trig2.db 2; one base /tmp/empty.db 2
tar czf $OUT/d12.tgz -C $OUT d12
for c in gpu_sm90 plan; do
  (cd $(mktemp -d) && CK_RUN_CASE=$c CK_FORK=no W8A8_KERNEL_DIR=$PWD/k W8A8_CACHE_DB=$PWD/t.db \
    W8A8_TEST_KERNEL_DIR=$PWD/k W8A8_TEST_CACHE_DB=$PWD/t.db timeout 200 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/sm90-$c.log 2>&1; echo "$c exit $?" >> $o/gpu.txt)
done
tar czf $OUT/d12.tgz -C $OUT d12 && rm -rf $o
