#!/usr/bin/env bash
# D8 (H200), issue 14's INT8 figure on this session's build: sm80-peak + sm80-tune:int8 as
# session 40's A (16
# candidates a key, budget 100 s), then a second bench of the same winners; SM clock and power
# every 200 ms. (That build still carried D1's stagger launch argument and the space's
# `variants = { stagger = ... }`: the first `git revert` had stopped on a conflict unseen, and
# the revert landed after D8, as cb592b7. The tune picked a stagger value for 19 of the 24
# keys of M >= 2048, by margins D1 puts within noise; the templates, host code and space
# committed are session 40's again.)
o=$OUT/d8; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 200 > $o/clk.csv 2>&1 &
smi=$!
common="W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PEERS=carry/peers.py"
env $common W8A8_BUDGET=100 W8A8_SM80_CANDIDATES=16 OUT=$o/a \
  timeout 170 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $o/a.log 2>&1
echo "a exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d8.tgz -C $OUT d8
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 2048 4096 8192; do shapes="$shapes --shape $m,$nk"; done
done
mkdir -p $o/a2
cp $o/a/sm80-peak.jsonl $o/a/sm80-copy.jsonl $o/a/sm80-peers.jsonl $o/a2/ 2>/dev/null
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=$o/a/sm80.db W8A8_KERNEL_DIR=/tmp/w8a8-kernels \
  timeout 60 carry/static/w8a8 bench --json --no-cublaslt --dtype int8 --scale row $shapes \
  > $o/a2/sm80-bench-int8.jsonl 2>> $o/a2/bench.log
python3 scripts/sm80_summary.py $o/a2 > $o/a2/sm80-summary.txt 2>&1
echo "a2 exit $? $SECONDS" >> $o/gpu.txt
kill $smi 2>/dev/null
rm -f $o/a/*.db
tar czf $OUT/d8.tgz -C $OUT d8 && rm -rf $o
