#!/bin/bash
# F1 (session 17): sm80_gemm's main loop (first fragments before the copies, branch-free
# copies) on the GPU suite, old vs new build on large INT8 tiles, then peak + a 64-candidate tune
set -u
L=$(mktemp -d)/f1; mkdir -p $L
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
pack() { tar czf $OUT/f1.tgz -C $(dirname $L) f1; }
nvidia-smi > $L/smi.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 > $L/clocks.csv 2>&1 &
SMI=$!
echo "start $(date +%s)" >> $L/steps.txt
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=tests W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=150 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm80_gemm" OUT=$L scripts/gpu-session.sh tests > $L/tests.out 2>&1
echo "tests $? $(date +%s)" >> $L/steps.txt; pack
SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=64/128,stages=3/4/5,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=0/1,epilogue=1" \
  OUT=$L timeout 250 bench/sm80_ab.sh carry/old carry/static > $L/ab.out 2>&1
echo "ab $? $(date +%s)" >> $L/steps.txt; pack
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=sm80 W8A8_SM80_CANDIDATES=64 OUT=$L \
  timeout 180 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $L/sm80.out 2>&1
echo "sm80 $? $(date +%s)" >> $L/steps.txt
kill $SMI; pack
