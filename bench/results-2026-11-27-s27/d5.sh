#!/usr/bin/env bash
# D5 (H200): does rotating each tile's K order (sm90_ring_fill: tile u starts at K block
# u mod blocks, W8A8_KROT 1 in carry/exp) steady the swap-AB row D4 saw at 24.9-29.5 us
# depending on the allocation, and what does it do elsewhere? carry/static (KROT 0) and
# carry/exp (KROT 1) alternately, four rounds, each a new process, on M = 16..512 shapes
# through the shipped cache (per-tensor) and D4's swap row alone; then the exp build with
# --verify (per-tensor, block).
set -u
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export W8A8_TUNE=off
mkdir -p /tmp/d5-empty
row=$(grep "10240, 8192, 16," bench/results-2026-11-27-s27/d3/tensor/new.sql)
echo "$row" > /tmp/e0.sql
carry/static/w8a8 cache --db /tmp/e0.db import /tmp/e0.sql >> $o/log 2>&1
S="16,4096,14336 32,4096,14336 16,8192,8192 32,8192,8192 16,8192,28672 32,8192,28672 16,28672,4096
32,28672,4096 16,57344,8192 32,57344,8192 16,10240,8192 128,8192,8192 256,8192,8192 512,8192,8192"
args=""; for s in $S; do args="$args --shape $s"; done
for r in 1 2 3 4; do
  for b in static exp; do
    W8A8_KERNEL_DIR=/tmp/kd5-$b W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/d5-none.db \
      carry/$b/w8a8 bench --json --graph --no-cublaslt $args \
      | sed "s/^{/{\"bin\": \"$b\", \"r\": $r, /" >> $o/grid.jsonl 2>> $o/log
    W8A8_KERNEL_DIR=/tmp/kd5-$b W8A8_CACHE_PATH=/tmp/d5-empty W8A8_CACHE_DB=/tmp/e0.db \
      carry/$b/w8a8 bench --json --graph --no-cublaslt --shape 16,10240,8192 \
      | sed "s/^{/{\"bin\": \"$b\", \"r\": $r, /" >> $o/swap.jsonl 2>> $o/log
  done
done
W8A8_KERNEL_DIR=/tmp/kd5-exp W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/d5-none.db \
  carry/exp/w8a8 bench --json --verify --no-cublaslt $args > $o/verify.jsonl 2>> $o/log
echo "verify tensor exit $?" >> $o/log
W8A8_KERNEL_DIR=/tmp/kd5-exp W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/d5-none.db \
  carry/exp/w8a8 bench --json --verify --no-cublaslt --scale block,block --shape 16,8192,8192 \
  --shape 128,7168,2048 --shape 512,8192,8192 --shape 96,7168,16384 --shape 2048,24576,1536 \
  >> $o/verify.jsonl 2>> $o/log
echo "verify block exit $?" >> $o/log
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
