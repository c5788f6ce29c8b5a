#!/usr/bin/env bash
# F3 (session 23, H200): F2's 12 % of the block loop's cycles split between the tile loads
# and the scale copies: after the ring's first lap no tile loads (notma), no scale copies
# (noscale), neither (noload), or both as built (base). Block 128x128 (carry/a3-one.lua) at
# 4096x4096x7168 and 512x4096x7168: Nsight Compute at free clocks (time and SM clock), and
# graph-timed benches, 3 rounds.
set -u
o=$(mktemp -d)/f3; mkdir -p $o
pk() { tar czf $OUT/f3.tgz -C $(dirname $o) f3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
W8A8_CACHE_DB=/tmp/f3-one.db W8A8_KERNEL_DIR=/tmp/kf3 timeout 60 $b tune --space carry/a3-one.lua --scale block \
  --shape 4096,4096,7168 --shape 512,4096,7168 --json > $o/tune.jsonl 2>> $o/err.log
export W8A8_TUNE=off W8A8_CACHE_DB=/tmp/f3-one.db
for v in base notma noscale noload; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kf3-$v timeout 100 ncu --clock-control none --kernel-name w8a8_sm90_gemm \
    --launch-skip 5 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    $b bench --shape 4096,4096,7168 --scale block --no-cublaslt --samples 5 > $o/ncu-$v.txt 2>&1
  echo "ncu $v $? $SECONDS" >> $o/summary.txt
done; pk
for r in 1 2 3; do for v in base notma noscale noload; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kf3-$v timeout 60 $b bench --json --no-cublaslt --graph \
    --shape 4096,4096,7168 --shape 512,4096,7168 --scale block | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/bench.jsonl 2>>$o/err.log
done; done
echo "bench $SECONDS" >> $o/summary.txt; pk
