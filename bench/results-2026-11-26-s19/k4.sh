#!/usr/bin/env bash
# K4 (session 19, H100): promoted per-row FP8 (--accum promoted --scale row) of the Llama grid at
# M = 512…8192 over every config of the space (37 of its 40 keys borrowed the H200's rows);
# the DeepSeek-V3 block-scaled keys at M = 128 over every config of the named sm90_gemm space
# (split-K at M = 128, as K1 on the H200). A (shipped) / B (new rows over them): A1 B1, the
# peers, A2 B2.
set -u
o=$(mktemp -d)/k4; mkdir -p $o
pk() { tar czf $OUT/k4.tgz -C $(dirname $o) k4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kk4
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
s=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do s="$s --shape $m,$nk"; done; done
d=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do d="$d --shape 128,$nk"; done
W8A8_CACHE_DB=$o/new.db timeout 250 $b tune --budget 225 --max-candidates 512 --accum promoted --scale row --json $s \
  > $o/tune-row.jsonl 2> $o/tune-row.log
echo "tune row $? $SECONDS s" >> $o/summary.txt; pk
W8A8_CACHE_DB=$o/new.db timeout 140 $b tune --budget 110 --max-candidates 3000 --space scripts/sm90_gemm.lua --scale block --json $d \
  > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
ab() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 40 $b bench --json --no-cublaslt --graph --accum promoted --scale row $s > $o/$v$1-row.jsonl 2>>$o/err.log
  W8A8_CACHE_DB=$db timeout 30 $b bench --json --no-cublaslt --graph --scale block $d > $o/$v$1-block.jsonl 2>>$o/err.log
  done; }
ab 1; echo "ab 1 $SECONDS s" >> $o/summary.txt
timeout 60 python3 carry/peers.py $s $d --providers torch.row,torch.block --budget 50 --out $o/peers.jsonl > $o/peers.out 2>&1
echo "peers $SECONDS s" >> $o/summary.txt
ab 2; echo "ab 2 $SECONDS s" >> $o/summary.txt
$b cache --db $o/new.db export $o/new.sql --winners >> $o/err.log 2>&1
gzip $o/tune-*.jsonl; rm -f $o/new.db*; pk
