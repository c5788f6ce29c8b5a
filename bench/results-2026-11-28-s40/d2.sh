#!/usr/bin/env bash
# D2 (H200): sm80_gemm's sync=1 (prefetch 1's main loop on per-stage mbarriers instead of a
# CTA barrier a K tile), issue 14.
# 1. check_gpu_sm80_gemm (sync configs against the reference on odd shapes, bitwise reruns,
#    refusals);
# 2. bench/sm80_ab.sh with one build on both sides (4 rounds): the winner tiles of D1 with
#    sync 0 and 1, INT8 per-row, K = 4096 and two K >= 8192 shapes;
# 3. issue 14's figure with sync in the space: sm80-peak + sm80-tune:int8, 24 candidates a key
#    (rank() puts each sync=1 config just behind its twin); clock and power meanwhile.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm80_gemm" timeout 240 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
SM80_AB_NCU=0 SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1,persist=0,sync=0/1" \
  SM80_AB_SHAPES="2048,4096,4096 4096,4096,4096 4096,28672,4096 4096,8192,8192" \
  OUT=$o/ab timeout 240 bench/sm80_ab.sh carry/static carry/static > $o/ab.log 2>&1
echo "ab exit $? $SECONDS" >> $o/gpu.txt
tar xzf $o/ab/sm80-ab.tgz -C $o/ab table.txt summary.txt 2>/dev/null
tar czf $OUT/d2.tgz -C $OUT d2
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 200 > $o/clk.csv 2>&1 &
smi=$!
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=150 W8A8_SM80_CANDIDATES=24 OUT=$o/fig \
  timeout 200 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $o/fig.log 2>&1
echo "fig exit $? $SECONDS" >> $o/gpu.txt
kill $smi
rm -f $o/fig/*.db-*
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
