#!/usr/bin/env bash
# A3 (session 23, H200): where the block-scaled main loop's warps wait. One config (128x128,
# 4 stages, 2 consumers, epilogue 1; carry/a3-one.lua) tuned alone into a database for block
# and per-tensor 4096x4096x7168 and block 512x4096x7168, then Nsight Compute's source page
# (warp-stall samples per SASS instruction) of each; bench/ncu_stalls.py sums them.
set -u
o=$(mktemp -d)/a3; mkdir -p $o
pk() { tar czf $OUT/a3.tgz -C $(dirname $o) a3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_CACHE_DB=/tmp/a3.db W8A8_KERNEL_DIR=/tmp/ka3
for sc in block tensor; do
  timeout 60 $b tune --space carry/a3-one.lua --scale $sc --shape 4096,4096,7168 --shape 512,4096,7168 --json > $o/tune-$sc.jsonl 2>> $o/err.log
done
echo "tune $SECONDS" >> $o/summary.txt
export W8A8_TUNE=off
prof() { # name scale shape
  timeout 150 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 5 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --import-source no --page source --print-source sass --csv \
    $b bench --shape $3 --scale $2 --no-cublaslt --samples 5 > $o/$1.csv 2> $o/$1.err
  echo "$1 $? $SECONDS" >> $o/summary.txt
  python3 bench/ncu_stalls.py $o/$1.csv --top 25 --context 2 > $o/$1.txt 2>&1; gzip $o/$1.csv; pk
}
prof block4096 block 4096,4096,7168
prof tensor4096 tensor 4096,4096,7168
prof block512 block 512,4096,7168
timeout 100 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 5 --launch-count 1 \
  --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis $b bench --shape 4096,4096,7168 --scale block --no-cublaslt --samples 5 > $o/block4096-details.txt 2>&1
timeout 100 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 5 --launch-count 1 \
  --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis $b bench --shape 4096,4096,7168 --scale tensor --no-cublaslt --samples 5 > $o/tensor4096-details.txt 2>&1
echo "details $SECONDS" >> $o/summary.txt; pk
