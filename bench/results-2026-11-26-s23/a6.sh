#!/usr/bin/env bash
# A6 (session 23, H200): why a third consumer did not speed the block loop up in the kernel
# (A5) when it did in the microbenchmark (A4). Nsight Compute on block 4096x4096x7168 with
# 192x128 tiles of 3 consumers (carry/a6-three.lua) and with 256x112 wave tiles
# (carry/a6-wave.lua), beside A3's 128x128: speed of light, compute and memory workload,
# warp states, scheduler, and the source page's stall samples.
set -u
o=$(mktemp -d)/a6; mkdir -p $o
pk() { tar czf $OUT/a6.tgz -C $(dirname $o) a6; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/ka6
for v in three wave; do
  W8A8_CACHE_DB=/tmp/a6-$v.db timeout 60 $b tune --space carry/a6-$v.lua --scale block --shape 4096,4096,7168 --json > $o/tune-$v.jsonl 2>> $o/err.log
done
W8A8_CACHE_DB=/tmp/a6-one.db timeout 60 $b tune --space carry/a3-one.lua --scale block --shape 4096,4096,7168 --json > $o/tune-one.jsonl 2>> $o/err.log
echo "tune $SECONDS" >> $o/summary.txt
export W8A8_TUNE=off
for v in three wave one; do
  W8A8_CACHE_DB=/tmp/a6-$v.db timeout 120 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 5 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --import-source no --page source --print-source sass --csv \
    $b bench --shape 4096,4096,7168 --scale block --no-cublaslt --samples 5 > $o/$v.csv 2> $o/$v.err
  python3 bench/ncu_stalls.py $o/$v.csv --top 25 --context 2 > $o/$v.txt 2>&1; gzip $o/$v.csv
  W8A8_CACHE_DB=/tmp/a6-$v.db timeout 120 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 5 --launch-count 1 \
    --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    $b bench --shape 4096,4096,7168 --scale block --no-cublaslt --samples 5 > $o/$v-details.txt 2>&1
  echo "$v $SECONDS" >> $o/summary.txt; pk
done
