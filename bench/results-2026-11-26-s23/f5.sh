#!/usr/bin/env bash
# F5 (session 23, H200): are F3's 10 % of cycles the scale copies' latency (the consumers
# waiting for them to land) or their execution? Variant `eager` (f5-eager.patch): the loader
# lanes arrive on the full barrier right after issuing their copies (a plain arrive, not
# cp.async.mbarrier.arrive), so nobody waits for the copies (the results race; only the time
# counts). Block 128x128 at 4096x4096x7168 and 512x4096x7168: Nsight Compute time and clock,
# and graph-timed benches, 3 rounds.
set -u
o=$(mktemp -d)/f5; mkdir -p $o
pk() { tar czf $OUT/f5.tgz -C $(dirname $o) f5; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
W8A8_CACHE_DB=/tmp/f5-one.db W8A8_KERNEL_DIR=/tmp/kf5 timeout 60 $b tune --space carry/a3-one.lua --scale block \
  --shape 4096,4096,7168 --shape 512,4096,7168 --json > $o/tune.jsonl 2>> $o/err.log
export W8A8_TUNE=off W8A8_CACHE_DB=/tmp/f5-one.db
for v in base eager; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kf5-$v timeout 100 ncu --clock-control none --kernel-name w8a8_sm90_gemm \
    --launch-skip 5 --launch-count 1 --section SpeedOfLight $b bench --shape 4096,4096,7168 --scale block --no-cublaslt --samples 5 > $o/ncu-$v.txt 2>&1
  echo "ncu $v $? $SECONDS" >> $o/summary.txt
done; pk
for r in 1 2 3; do for v in base eager; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kf5-$v timeout 60 $b bench --json --no-cublaslt --graph \
    --shape 4096,4096,7168 --shape 512,4096,7168 --scale block | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/bench.jsonl 2>>$o/err.log
done; done
echo "bench $SECONDS" >> $o/summary.txt; pk
