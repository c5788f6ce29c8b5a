#!/usr/bin/env bash
# D7 (H200), a feasibility probe: 64-row tiles of the unswapped sm90_gemm kernel loading only 16
# rows of A a stage (carry/hack: the rows past 16 are read from whatever follows and discarded;
# valid for M <= 16 only), so that 6 KB a stage go to a deeper ring. M = 16 shapes: the shipped
# rows (carry/static, the shipped cache) against hack configs (each as a one-row database), two
# rounds, then the hack configs once with --verify.
set -u
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export W8A8_TUNE=off
mkdir -p /tmp/d7-empty
row=$(grep "10240, 8192, 16," bench/results-2026-11-27-s27/d3/tensor/new.sql)
cfg0="block_m=128,block_n=16,stages=8,consumers=2,pingpong=1,split=1,specialize=1,swap=1,evict=0"
base="consumers=2,pingpong=1,raster=0,group=1,cluster=1,epilogue=0,split=1,specialize=1,overlap=0,stagger=0"
# name shape config
cases="a 16,10240,8192 block_m=64,block_n=80,stages=12,$base
b 16,10240,8192 block_m=64,block_n=80,stages=14,$base
c 16,10240,8192 block_m=64,block_n=80,stages=16,$base
d 16,28672,4096 block_m=64,block_n=224,stages=4,$base
e 16,28672,4096 block_m=64,block_n=224,stages=6,$base
f 16,57344,8192 block_m=64,block_n=224,stages=6,$base
g 16,8192,28672 block_m=64,block_n=64,stages=16,$base
h 16,8192,8192 block_m=64,block_n=64,stages=16,$base"
echo "$cases" | while read -r name shape config; do
  n=$(echo $shape | cut -d, -f2) k=$(echo $shape | cut -d, -f3)
  echo "$row" | sed "s/'$cfg0'/'$config'/; s/ 10240, 8192, 16, / $n, $k, 16, /" > /tmp/$name.sql
  carry/hack/w8a8 cache --db /tmp/$name.db import /tmp/$name.sql >> $o/log 2>&1
done
shapes="--shape 16,10240,8192 --shape 16,28672,4096 --shape 16,57344,8192 --shape 16,8192,28672 --shape 16,8192,8192"
for r in 1 2; do
  W8A8_KERNEL_DIR=/tmp/kd7s W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/d7-none.db \
    carry/static/w8a8 bench --json --graph --no-cublaslt $shapes \
    | sed "s/^{/{\"v\": \"shipped\", \"r\": $r, /" >> $o/runs.jsonl 2>> $o/log
  echo "$cases" | while read -r name shape config; do
    W8A8_KERNEL_DIR=/tmp/kd7h W8A8_CACHE_PATH=/tmp/d7-empty W8A8_CACHE_DB=/tmp/$name.db \
      carry/hack/w8a8 bench --json --graph --no-cublaslt --shape $shape \
      | sed "s/^{/{\"v\": \"$name\", \"r\": $r, /" >> $o/runs.jsonl 2>> $o/log
  done
done
echo "$cases" | while read -r name shape config; do
  W8A8_KERNEL_DIR=/tmp/kd7h W8A8_CACHE_PATH=/tmp/d7-empty W8A8_CACHE_DB=/tmp/$name.db \
    carry/hack/w8a8 bench --json --verify --no-cublaslt --shape $shape > /dev/null 2>> $o/log
  echo "verify $name exit $?" >> $o/log
done
tar czf $OUT/d7.tgz -C $OUT d7 && rm -rf $o
