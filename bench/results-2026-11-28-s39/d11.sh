#!/usr/bin/env bash
# D11 (H200): D8 for the other M buckets. The shipped sm90_gemm rows (not swap, no trigger
# yet) of M buckets 64, 128, 1024, 2048 and 4096 with trigger=1 in a user database
# (carry/trig.db from trig_rows.py: user rows win) against the shipped cache: the Llama grid at
# M = 64, 128, 1024, 2048 in every granularity and the DeepSeek-V3 shapes at M = 64…4096
# (block), graph replays, rounds base, trig1, trig1, base (trig1's first with --verify).
# trig1_ship.py then sets trigger=1 where it won both rounds by more than 1 %.
o=$OUT/d11; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k11
W=carry/static/w8a8
sh=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 64 128 1024 2048; do sh="$sh --shape $m,$nk"; done; done
ds=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 64 128 512 1024 2048 4096; do ds="$ds --shape $m,$nk"; done; done
cp carry/trig.db /tmp/trig.db
one() { # label db round [--verify]
  for s in "--scale tensor,tensor" "--scale row,row" "--scale block,block" "--dtype int8"; do
    W8A8_CACHE_DB=$2 $W bench $sh $s --graph --no-cublaslt --json $4 > "$o/$1-$(echo $s | tr -d ' -' | tr , _)-r$3.jsonl" 2>> $o/err.txt
  done
  W8A8_CACHE_DB=$2 $W bench $ds --scale block,block --graph --no-cublaslt --json $4 > "$o/$1-dsv3block-r$3.jsonl" 2>> $o/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
one base /tmp/empty.db 1; one trig1 /tmp/trig.db 1 --verify
tar czf $OUT/d11.tgz -C $OUT d11
one trig1 /tmp/trig.db 2; one base /tmp/empty.db 2
tar czf $OUT/d11.tgz -C $OUT d11 && rm -rf $o
