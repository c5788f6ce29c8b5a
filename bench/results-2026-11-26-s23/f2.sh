#!/usr/bin/env bash
# F2 (session 23, H200): is F1's 15 % data-path cost power (the clock) or stalls? Nsight
# Compute at locked base clocks (--clock-control base) and at free clocks, block and
# per-tensor 128x128 at 4096x4096x7168, with and without the loads after the first lap.
set -u
o=$(mktemp -d)/f2; mkdir -p $o
pk() { tar czf $OUT/f2.tgz -C $(dirname $o) f2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
for sc in block tensor; do
  W8A8_CACHE_DB=/tmp/f2-one.db W8A8_KERNEL_DIR=/tmp/kf2 timeout 60 $b tune --space carry/a3-one.lua --scale $sc \
    --shape 4096,4096,7168 --json > $o/tune-$sc.jsonl 2>> $o/err.log
done
export W8A8_TUNE=off W8A8_CACHE_DB=/tmp/f2-one.db
for cc in base none; do for v in base noload; do for sc in block tensor; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kf2-$v timeout 100 ncu --clock-control $cc --kernel-name w8a8_sm90_gemm \
    --launch-skip 5 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis \
    $b bench --shape 4096,4096,7168 --scale $sc --no-cublaslt --samples 5 > $o/$cc-$v-$sc.txt 2>&1
  echo "$cc $v $sc $? $SECONDS" >> $o/summary.txt
done; done; pk; done
