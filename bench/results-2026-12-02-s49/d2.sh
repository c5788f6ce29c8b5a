#!/usr/bin/env bash
# D2 (H200): issue 14's INT8 figure as the sessions before measured it (sm80-peak +
# sm80-tune:int8: the whole sm80_gemm space, its 24 best-ranked configs a key, now with block_k
# 256 ranked ahead of its 128 twins on one-CTA tiles), then a second bench of the same winners.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu \
  --format=csv,noheader -lms 500 > $o/clk.csv 2>&1 &
smi=$!
common="W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PEERS=carry/peers.py"
env $common W8A8_BUDGET=200 OUT=$o/a timeout 450 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 \
  > $o/a.log 2>&1
echo "a exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 2048 4096 8192; do shapes="$shapes --shape $m,$nk"; done
done
mkdir -p $o/a2
cp $o/a/sm80-peak.jsonl $o/a/sm80-copy.jsonl $o/a/sm80-peers.jsonl $o/a2/ 2>/dev/null
# shellcheck disable=SC2086
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=$o/a/sm80.db timeout 60 \
  carry/static/w8a8 bench --json --no-cublaslt --dtype int8 --scale row $shapes \
  > $o/a2/sm80-bench-int8.jsonl 2>> $o/a2/bench.log
python3 scripts/sm80_summary.py $o/a2 > $o/a2/sm80-summary.txt 2>&1
echo "a2 exit $? $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db $o/a/sm80.db export $o/winners.sql --winners >> $o/gpu.txt 2>&1
kill $smi 2>/dev/null
rm -f $o/a/*.db
tar czf $OUT/d2.tgz -C $OUT d2
