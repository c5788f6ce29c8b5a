#!/usr/bin/env bash
# X7 (session 20): the block-scaled keys below torch.block in X6 (dsv3, M >= 512) and in
# session 19's K5 (Llama, M = 128..512) through the whole named sm90_gemm space (overlap 0..3,
# stagger and split at every M), the 300 best-ranked configs a key; A (shipped) / B (new rows
# over them) with torch.block between.
set -u
o=$(mktemp -d)/x7; mkdir -p $o
pk() { tar czf $OUT/x7.tgz -C $(dirname $o) x7; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/x7k
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
B="512,4096,7168 512,7168,16384 1024,4096,7168 1024,7168,16384 1024,24576,1536 2048,24576,1536 4096,24576,1536 4096,7168,16384"
B="$B 128,10240,8192 256,8192,8192 512,4096,4096 512,6144,4096 256,6144,4096"
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 330 $b tune --budget 300 --max-candidates 300 --space scripts/sm90_gemm.lua \
  --scale block --json $(args "$B") > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$B") --scale block > $o/$v$1-block.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 100 python3 carry/peers.py $(args "$B") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db $o/*.db-*; pk
