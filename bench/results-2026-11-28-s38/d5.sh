#!/usr/bin/env bash
# D5 (H200): the closing call for the session's sm80_gemm work (persist 1; the epilogue's scales
# prefetched into L1 on 4-warp CTAs) and the new driver call behind persist's grid
# (cuOccupancyMaxActiveBlocksPerMultiprocessor).
# 1. bench/sm80_ab.sh: HEAD~'s templates (carry/oldw; session 37's, HEAD~'s space: no persist)
#    against the final ones, INT8 winner tiles, persist 0 and 1;
# 2. every GPU suite (scripts/gpu-session.sh tests);
# 3. issue 14's figure (sm80-peak, sm80-tune:int8 with 16 candidates a key), the SM clock,
#    power and throttle reasons sampled every 200 ms meanwhile (clk.csv).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
SM80_AB_NCU=0 SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1,persist=0/1" \
  SM80_AB_SHAPES="2048,4096,4096 4096,4096,4096 2048,6144,4096 4096,28672,4096 4096,8192,8192" \
  OUT=$o/ab timeout 200 bench/sm80_ab.sh carry/oldw carry/static > $o/ab.log 2>&1
echo "ab exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 420 scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 200 > $o/clk.csv 2>&1 &
smi=$!
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=100 W8A8_SM80_CANDIDATES=16 W8A8_PACK_NAME=sm80 OUT=$o \
  timeout 200 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $o/sm80.log 2>&1
echo "sm80 exit $? $SECONDS" >> $o/gpu.txt
kill $smi
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
