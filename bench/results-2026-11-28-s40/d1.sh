#!/usr/bin/env bash
# D1 (H200), issue 14's INT8 figure: does tuning sm80_gemm under the conditions the figure is
# measured in (idle before each finalist's timing, --settle 100, and 32 candidates a key)
# pick faster kernels than session 38's tune (16 candidates, back to back)?
# 0. check_gpu_tune (session 39's last tuner mend ran only on the stand-in driver);
# 1. A: sm80-peak + sm80-tune:int8 as in session 38's D5; B: the same tune with
#    W8A8_SM80_TUNE_ARGS="--settle 100" and 32 candidates (each bench right after its tune);
# 2. round 2 in the order B, A: w8a8 bench of each database's winners at M >= 2048
#    (so A B B A); SM clock, power and throttle reasons every 200 ms meanwhile.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="tune" timeout 200 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 200 > $o/clk.csv 2>&1 &
smi=$!
common="W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PEERS=carry/peers.py"
env $common W8A8_BUDGET=100 W8A8_SM80_CANDIDATES=16 OUT=$o/a \
  timeout 150 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $o/a.log 2>&1
echo "a exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
env $common W8A8_BUDGET=260 W8A8_SM80_CANDIDATES=32 W8A8_SM80_TUNE_ARGS="--settle 100" OUT=$o/b \
  timeout 300 scripts/gpu-session.sh sm80-tune:int8 > $o/b.log 2>&1
echo "b exit $? $SECONDS" >> $o/gpu.txt
cp $o/a/sm80-peak.jsonl $o/a/sm80-copy.jsonl $o/b/ 2>/dev/null
tar czf $OUT/d1.tgz -C $OUT d1
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 2048 4096 8192; do shapes="$shapes --shape $m,$nk"; done
done
for r in b a; do
  mkdir -p $o/${r}2
  cp $o/a/sm80-peak.jsonl $o/a/sm80-copy.jsonl $o/a/sm80-peers.jsonl $o/${r}2/ 2>/dev/null
  W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=$o/$r/sm80.db W8A8_KERNEL_DIR=/tmp/w8a8-kernels \
    timeout 60 carry/static/w8a8 bench --json --no-cublaslt --dtype int8 --scale row $shapes \
    > $o/${r}2/sm80-bench-int8.jsonl 2>> $o/${r}2/bench.log
  echo "${r}2 exit $? $SECONDS" >> $o/gpu.txt
done
kill $smi
for r in a b b2 a2; do
  echo "== $r"; python3 scripts/sm80_summary.py $o/$r | tail -4
done > $o/summary.txt 2>&1
rm -f $o/a/*.db-* $o/b/*.db-*
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
