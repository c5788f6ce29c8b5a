#!/usr/bin/env bash
# E9 (session 16): is the spread per process or per allocation? Three processes, each timing
# the same shapes six times over (fresh buffers every time): 16x10240x8192 with the 128-row
# swap config (a one-config tune's row), 1024x4096x14336 and 1024x4096x4096 on the shipped rows.
set -u
o=$(mktemp -d)/e9; mkdir -p $o
pk() { tar czf $OUT/e9.tgz -C $(dirname $o) e9; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k9
b=carry/static/w8a8
# carry/one_swap.lua, the one-config space (not kept: this command makes it):
#   bench/narrow_space.py scripts/sm90_swap.lua \
#     block_m=128,block_n=16,stages=6,consumers=2,pingpong=0,split=1,specialize=0,swap=1
W8A8_CACHE_DB=$o/one.db $b tune --space carry/one_swap.lua --scale tensor --shape 16,10240,8192 > $o/one-tune.log 2>&1
s1=""; s2=""; for i in 1 2 3 4 5 6; do s1="$s1 --shape 16,10240,8192"; s2="$s2 --shape 1024,4096,14336 --shape 1024,4096,4096"; done
for p in 1 2 3; do
  W8A8_CACHE_DB=$o/one.db W8A8_TUNE=off $b bench --graph --no-cublaslt --json $s1 > $o/swap-p$p.jsonl 2>>$o/err.log
  W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/empty.db W8A8_TUNE=off $b bench --graph --no-cublaslt --json $s2 > $o/large-p$p.jsonl 2>>$o/err.log
done
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db*; pk
