#!/usr/bin/env bash
# E6 (session 16): fresh tunes with the graph-timed final pass: the 8 Llama (N, K) at
# M = 1…64 per-tensor, per-row, INT8, and at M = 1…512 block,block.
set -u
o=$(mktemp -d)/e6; mkdir -p $o
pk() { tar czf $OUT/e6.tgz -C $(dirname $o) e6; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k6 W8A8_CACHE_DB=$o/h200-small.db
b=carry/static/w8a8
sh=""; sb=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 2 4 8 16 32 64; do sh="$sh --shape $m,$nk"; done
  for m in 1 2 4 8 16 32 64 128 256 512; do sb="$sb --shape $m,$nk"; done; done
for g in tensor row int8 block; do
  a="--scale $g"; bud=110; [ $g = int8 ] && a="--dtype int8" bud=90; [ $g = block ] && a="--scale block,block" bud=130
  s="$sh"; [ $g = block ] && s="$sb"
  $b tune --budget $bud $a --json $s > $o/tune-$g.jsonl 2> $o/tune-$g.log
  echo "tune $g $? $SECONDS s" >> $o/summary.txt; pk
done
gzip $o/tune-*.jsonl; rm -f $o/*.db-*; pk
