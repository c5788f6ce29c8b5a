#!/usr/bin/env bash
# H10 (session 17, H200): promoted per-row FP8 (--accum promoted) of the Llama grid at
# M = 512…8192 (cache/h200-llama3-promoted.sql: 0.98x torch.row after a 106 s tune) tuned over
# every config of the space; A/B interleaved twice beside torch.row (cuBLASLt's accurate path).
set -u
o=$(mktemp -d)/h10; mkdir -p $o
pk() { tar czf $OUT/h10.tgz -C $(dirname $o) h10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k10
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
s=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do s="$s --shape $m,$nk"; done; done
W8A8_CACHE_DB=$o/new.db timeout 330 $b tune --budget 300 --max-candidates 512 --accum promoted --scale row --json $s \
  > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for r in 1 2; do for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 90 $b bench --json --no-cublaslt --graph --accum promoted --scale row $s > $o/$v$r.jsonl 2>>$o/err.log
done; done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 100 python3 carry/peers.py $s --providers torch.row,torch.row.fast --budget 90 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/tune.jsonl; pk
