#!/usr/bin/env bash
# D3 (H200), the closing call: every GPU suite on the final build (scripts/gpu-session.sh
# tests), then issue 14's INT8 figure once more: D2's winners benched again beside a new
# mma.sync peak and copy bandwidth (torch._int_mm's figures are D2's).
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 320 scripts/gpu-session.sh tests \
  > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3
# the figure: D2's winners (its exported rows) benched again, after the mma.sync peak
mkdir -p $o/a
W=carry/static/w8a8
$W cache --db /tmp/d2w.db import bench/results-2026-12-02-s49/d2/winners.sql >> $o/gpu.txt 2>&1
$W bench --op mma-peak --json > $o/a/sm80-peak.jsonl 2>> $o/a/err.txt
$W bench --op quant --shape 16384,16384 --json > $o/a/sm80-copy.jsonl 2>> $o/a/err.txt
cp bench/results-2026-12-02-s49/d2/a/sm80-peers.jsonl $o/a/
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 8 16 2048 4096 8192; do shapes="$shapes --shape $m,$nk"; done
done
# shellcheck disable=SC2086
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/d2w.db timeout 90 $W bench --json \
  --no-cublaslt --dtype int8 --scale row $shapes > $o/a/sm80-bench-int8.jsonl 2>> $o/a/err.txt
python3 scripts/sm80_summary.py $o/a > $o/a/sm80-summary.txt 2>&1
echo "figure exit $? $SECONDS" >> $o/gpu.txt
rm -f $o/a/*.db
tar czf $OUT/d3.tgz -C $OUT d3
