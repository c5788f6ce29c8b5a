#!/usr/bin/env bash
# H2 (session 17, H100): a fresh tune of --model deepseek-v3 (block scales, every M bucket;
# cache/h100-dsv3.sql has 9 (N, K) at 7 buckets), then the dsv3 grid with the shipped caches (A)
# and with the new rows over them (B), graph replays, beside torch.block.
set -u
o=$(mktemp -d)/h2; mkdir -p $o
pk() { tar czf $OUT/h2.tgz -C $(dirname $o) h2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kh2
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
W8A8_CACHE_DB=$o/dsv3.db timeout 380 $b tune --budget 330 --model deepseek-v3 --json > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/dsv3.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph --grid dsv3 --dtype e4m3 --scale block,block > $o/$v.jsonl 2>>$o/err.log
done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 90 python3 carry/peers.py --grid dsv3 --providers torch.block --budget 80 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
gzip $o/tune.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
