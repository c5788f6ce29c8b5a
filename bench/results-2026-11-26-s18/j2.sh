#!/usr/bin/env bash
# J2 (session 18, H100): rows the H100 lacked (it borrowed the H200's): promoted per-tensor and
# per-row FP8 (--accum promoted) of the 8 Llama (N, K) at M = 512…8192, and block-scaled
# 2112x7168 at M = 1…8192; then A (shipped caches) / B (new rows over them), graph replays,
# beside cuBLASLt's accurate paths and torch.block.
set -u
o=$(mktemp -d)/j2; mkdir -p $o
pk() { tar czf $OUT/j2.tgz -C $(dirname $o) j2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kj2
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
s=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do s="$s --shape $m,$nk"; done; done
d=""; for m in 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192; do d="$d --shape $m,2112,7168"; done
for g in tensor row; do
  W8A8_CACHE_DB=$o/new.db timeout 175 $b tune --budget 150 --accum promoted --scale $g --json $s \
    > $o/tune-$g.jsonl 2> $o/tune-$g.log
  echo "tune $g $? $SECONDS s" >> $o/summary.txt; pk
done
W8A8_CACHE_DB=$o/new.db timeout 60 $b tune --budget 45 --scale block --json $d > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  for g in tensor row; do
    W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph --accum promoted --scale $g $s > $o/$v-$g.jsonl 2>>$o/err.log
  done
  W8A8_CACHE_DB=$db timeout 40 $b bench --json --no-cublaslt --graph --scale block $d > $o/$v-block.jsonl 2>>$o/err.log
done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 100 python3 carry/peers.py $s --providers torch.tensor,torch.row --budget 90 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
timeout 40 python3 carry/peers.py $d --providers torch.block --budget 35 --out $o/peers-block.jsonl > /dev/null 2>>$o/err.log
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/tune-*.jsonl; gzip -f $o/new.db; pk
