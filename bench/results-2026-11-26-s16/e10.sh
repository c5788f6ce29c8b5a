#!/usr/bin/env bash
# E10 (session 16, H100): fresh tunes (every family, graph-timed finals) of the 8 Llama (N, K) at
# M = 1…64, per-tensor, per-row, INT8; then with those rows over the shipped caches, the
# decode grid and Llama M <= 512 beside the peers (graph replays).
set -u
o=$(mktemp -d)/e10; mkdir -p $o
pk() { tar czf $OUT/e10.tgz -C $(dirname $o) e10; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k10 W8A8_CACHE_DB=$o/h100-small.db
b=carry/static/w8a8
sh=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 2 4 8 16 32 64; do sh="$sh --shape $m,$nk"; done; done
for g in tensor row int8; do
  a="--scale $g"; bud=100; [ $g = int8 ] && a="--dtype int8" bud=80
  $b tune --budget $bud $a --json $sh > $o/tune-$g.jsonl 2> $o/tune-$g.log
  echo "tune $g $? $SECONDS s" >> $o/summary.txt; pk
done
gzip $o/tune-*.jsonl; pk
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=grids \
 W8A8_SKIP_CHECK=1 W8A8_CACHE_DB=$o/h100-small.db W8A8_PEERS=carry/peers.py \
 W8A8_SCALES="tensor,tensor row,row int8" W8A8_PROVIDERS=torch.tensor.fast,torch.row.fast,torch.int8,torch.bf16 \
  scripts/gpu-session.sh bench-grid:decode+bench-grid:llama3-small
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
