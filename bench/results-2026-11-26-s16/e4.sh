#!/usr/bin/env bash
# E4 (session 16): why the swap rows at N = 10240 (80 CTAs) time 25 % slower in bench than in
# the tune: bench as graph / host launches × PDL on / off, and a swap-only tune with PDL off.
set -u
o=$(mktemp -d)/e4; mkdir -p $o
pk() { tar czf $OUT/e4.tgz -C $(dirname $o) e4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k4 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
b=carry/static/w8a8
st="--shape 1,10240,8192 --shape 16,10240,8192 --shape 16,8192,8192 --shape 16,4096,4096 --shape 8,28672,4096"
for r in 1 2; do for pdl in 1 0; do for g in graph launch; do
  ga=""; [ $g = graph ] && ga=--graph
  W8A8_PDL=$pdl W8A8_CACHE_DB=/tmp/empty.db $b bench --json --no-cublaslt $ga $st --scale tensor > $o/$g-pdl$pdl-$r.jsonl 2>>$o/err.log
done; done; done
echo "bench $SECONDS s" >> $o/summary.txt; pk
for pdl in 1 0; do
  W8A8_PDL=$pdl W8A8_TUNE=on W8A8_CACHE_DB=$o/t$pdl.db $b tune --space sm90_swap --budget 40 --scale tensor --shape 1,10240,8192 --shape 16,10240,8192 --shape 16,8192,8192 > $o/tune-pdl$pdl.log 2>&1
  W8A8_PDL=$pdl W8A8_CACHE_DB=$o/t$pdl.db $b bench --json --no-cublaslt --graph $st --scale tensor > $o/after-tune-pdl$pdl.jsonl 2>>$o/err.log
done
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db*; pk
