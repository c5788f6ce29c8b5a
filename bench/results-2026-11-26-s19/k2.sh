#!/usr/bin/env bash
# K2 (session 19): the Llama keys at M = 128…512 below their peer on the H200 (session 17's
# H9), tuned over every config of the named sm90_gemm space (split-K at every M); A (shipped) /
# B (new rows over them), the peers between the two rounds.
set -u
o=$(mktemp -d)/k2; mkdir -p $o
pk() { tar czf $OUT/k2.tgz -C $(dirname $o) k2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k2
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
T="128,6144,4096 128,8192,28672 256,4096,4096 256,4096,14336 256,6144,4096 256,8192,8192 512,4096,14336 512,10240,8192"
B="256,6144,4096 256,8192,8192 512,4096,4096 512,4096,14336 512,6144,4096 256,28672,4096"
R="256,8192,8192"
args() { for s in $1; do printf ' --shape %s' $s; done; }
tune() { # granularity shapes budget
  W8A8_CACHE_DB=$o/new.db timeout $(($3 + 40)) $b tune --budget $3 --max-candidates 3000 --space scripts/sm90_gemm.lua \
    --scale $1 --json $(args "$2") > $o/tune-$1.jsonl 2> $o/tune-$1.log
  echo "tune $1 $? $SECONDS s" >> $o/summary.txt; pk; }
tune tensor "$T" 150
tune block "$B" 120
tune row "$R" 25
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  for g in tensor block row; do s=$T; [ $g = row ] && s=$R; [ $g = block ] && s=$B
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$s") --scale $g > $o/$v$1-$g.jsonl 2>>$o/err.log
  done; done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 100 python3 carry/peers.py $(args "$T $B") --providers torch.tensor.fast,torch.row.fast,torch.block \
  --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/new.db; pk
