#!/usr/bin/env bash
# K1 (session 19): block-scaled M = 128 keys with split-K offered (the named sm90_gemm space:
# split at every M, overlap, stagger), every config; per-tensor M = 16/32 decode losers every
# config of the plain spaces; A (shipped) / B (new rows over them) with the peers between.
set -u
o=$(mktemp -d)/k1; mkdir -p $o
pk() { tar czf $OUT/k1.tgz -C $(dirname $o) k1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k1
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
B="128,2112,7168 128,24576,1536 128,32768,512 128,7168,16384 128,4096,7168 128,7168,2048 128,10240,8192 128,28672,4096"
T="16,10240,8192 16,8192,28672 32,8192,28672"
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 290 $b tune --budget 250 --max-candidates 3000 --space scripts/sm90_gemm.lua \
  --scale block --json $(args "$B") > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS s" >> $o/summary.txt; pk
W8A8_CACHE_DB=$o/new.db timeout 120 $b tune --budget 90 --max-candidates 3000 \
  --scale tensor --json $(args "$T") > $o/tune-tensor.jsonl 2> $o/tune-tensor.log
echo "tune tensor $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$B") --scale block > $o/$v$1-block.jsonl 2>>$o/err.log
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$T") --scale tensor > $o/$v$1-tensor.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 100 python3 carry/peers.py $(args "$B $T") --providers torch.tensor.fast,torch.block,torch.bf16 \
  --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
