#!/usr/bin/env bash
# F4 (session 23, H200): where F3's 10 % of cycles go: Nsight Compute source pages (warp-stall
# samples per instruction) of the block 128x128 kernel at 4096x4096x7168 with (base) and
# without the scale copies after the first lap (noscale), side by side.
set -u
o=$(mktemp -d)/f4; mkdir -p $o
pk() { tar czf $OUT/f4.tgz -C $(dirname $o) f4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
W8A8_CACHE_DB=/tmp/f4-one.db W8A8_KERNEL_DIR=/tmp/kf4 timeout 60 $b tune --space carry/a3-one.lua --scale block \
  --shape 4096,4096,7168 --json > $o/tune.jsonl 2>> $o/err.log
export W8A8_TUNE=off W8A8_CACHE_DB=/tmp/f4-one.db
for v in base noscale; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kf4-$v timeout 100 ncu --clock-control none --kernel-name w8a8_sm90_gemm \
    --launch-skip 5 --launch-count 1 --section SourceCounters --section WarpStateStats --import-source no --page source \
    --print-source sass --csv $b bench --shape 4096,4096,7168 --scale block --no-cublaslt --samples 5 > $o/$v.csv 2> $o/$v.err
  python3 bench/ncu_stalls.py $o/$v.csv --top 30 --context 2 > $o/$v.txt 2>&1; gzip $o/$v.csv
  echo "$v $SECONDS" >> $o/summary.txt
done; pk
