#!/usr/bin/env bash
# H1 (session 17, H100): fresh per-tensor and per-row tunes (graph-timed finals) of the 8 Llama
# (N, K) at M = 128, 256, 512 (cache/h100-small-m.sql's rows date from 2026-11-23); then Llama
# M <= 512 with the shipped caches (A) and with the new rows over them (B), interleaved twice,
# graph replays, beside the fast peers.
set -u
o=$(mktemp -d)/h1; mkdir -p $o
pk() { tar czf $OUT/h1.tgz -C $(dirname $o) h1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kh1
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
sh=""; sl=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 128 256 512; do sh="$sh --shape $m,$nk"; done
  for m in 1 16 64 128 256 512; do sl="$sl --shape $m,$nk"; done; done
for g in tensor row; do
  W8A8_CACHE_DB=$o/mid.db timeout 200 $b tune --budget 160 --scale $g --json $sh > $o/tune-$g.jsonl 2> $o/tune-$g.log
  echo "tune $g $? $SECONDS s" >> $o/summary.txt; pk
done
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for r in 1 2; do for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/mid.db
  for g in tensor row; do
    W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $sl --scale $g > $o/$v$r-$g.jsonl 2>>$o/err.log
  done; done; done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 100 python3 carry/peers.py $sl --providers torch.tensor.fast,torch.row.fast --out $o/peers.jsonl > /dev/null 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
