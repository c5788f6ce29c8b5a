#!/usr/bin/env bash
# E5 (session 16): PDL on / off over the decode grid and Llama M <= 512 (shipped caches, graph
# replays, tensor/row/int8, twice interleaved); then a fresh block,block tune of the decode
# grid's keys and the Llama (N, K) at M = 1…512 (every family that takes block scales).
set -u
o=$(mktemp -d)/e5; mkdir -p $o
pk() { tar czf $OUT/e5.tgz -C $(dirname $o) e5; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k5
b=carry/static/w8a8
sd=""; for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do for m in 1 2 4 8 16 32; do sd="$sd --shape $m,$nk"; done; done
sl=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 16 64 128 256 512; do sl="$sl --shape $m,$nk"; done; done
for r in 1 2; do for pdl in 1 0; do for g in tensor row int8; do
  a="--scale $g"; [ $g = int8 ] && a="--dtype int8"
  W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_PDL=$pdl W8A8_CACHE_DB=/tmp/empty.db $b bench --json --no-cublaslt --graph $sd $sl $a > $o/pdl$pdl-$g-$r.jsonl 2>>$o/err.log
done; done; echo "round $r $SECONDS s" >> $o/summary.txt; pk; done
sb=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 2 4 8 16 32 64 128 256 512; do sb="$sb --shape $m,$nk"; done; done
W8A8_CACHE_DB=$o/block.db $b tune --budget 200 --scale block,block --json $sb > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS s" >> $o/summary.txt
gzip $o/tune-block.jsonl; rm -f $o/*.db-*; pk
