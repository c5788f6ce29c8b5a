#!/usr/bin/env bash
# D11 (H200), a probe for the next session: does TMA's zero fill of A rows past M cost as much
# at larger M (the last M tile partly past M) as D10 found at M <= 96? The final build through
# the shipped cache, per-row and per-tensor, M around the 192/256 and 1024 buckets, 4096x4096
# and 8192x8192, two rounds; a time that falls as M grows inside a bucket is the zero fill.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/none.db W8A8_KERNEL_DIR=/tmp/kd11
s=""
for nk in 4096,4096 8192,8192; do
  for m in 129 144 160 176 192 200 208 224 240 256 900 960 1000 1024; do s="$s --shape $m,$nk"; done
done
for r in 1 2; do
  for g in row,row tensor,tensor; do
    carry/static/w8a8 bench --json --graph --no-cublaslt --scale $g $s \
      | sed "s/^{/{\"r\": $r, /" >> $o/m-sweep.jsonl 2>> $o/err.log
  done
done
