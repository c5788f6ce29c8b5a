#!/usr/bin/env bash
# J7 (session 18, H100): promoted per-tensor FP8 (--accum promoted) of the Llama grid at
# M = 512…8192 tuned over every config of the space (as H10/H11 did on the H200); A (shipped
# caches as committed) / B (the new rows over them): A1 B1, the peers, A2 B2.
set -u
o=$(mktemp -d)/j7; mkdir -p $o
pk() { tar czf $OUT/j7.tgz -C $(dirname $o) j7; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kj7
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
s=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do s="$s --shape $m,$nk"; done; done
W8A8_CACHE_DB=$o/new.db timeout 290 $b tune --budget 270 --max-candidates 512 --accum promoted --scale tensor --json $s \
  > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
ab() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 40 $b bench --json --no-cublaslt --graph --accum promoted --scale tensor $s > $o/$v$1.jsonl 2>>$o/err.log
  done; }
ab 1; echo "ab 1 $SECONDS s" >> $o/summary.txt
timeout 60 python3 carry/peers.py $s --providers torch.tensor --budget 50 --out $o/peers.jsonl > $o/peers.out 2>&1
echo "peers $SECONDS s" >> $o/summary.txt
ab 2; echo "ab 2 $SECONDS s" >> $o/summary.txt
$b cache --db $o/new.db export $o/new.sql --winners >> $o/err.log 2>&1
rm -f $o/new.db* $o/tune.jsonl; pk
