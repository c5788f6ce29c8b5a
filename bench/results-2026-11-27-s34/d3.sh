#!/usr/bin/env bash
# D3 (H200): issue 14's figures in one call with the corrected FP8 peak (mma_peak's B operand
# changes every iteration, so ptxas can no longer hoist sm_90's FP8 mmas out of the loop):
# sm80-peak (INT8, e4m3, e5m2, f16), then sm80-tune:e4m3 and sm80-tune:int8 (32 candidates a
# key, the whole Llama grid at M 1 8 16 2048 4096 8192; INT8 beside torch._int_mm).
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=300 W8A8_SM80_CANDIDATES=32 W8A8_PACK_NAME=sm80 OUT=$o \
  timeout 500 scripts/gpu-session.sh sm80-peak+sm80-tune:e4m3+sm80-tune:int8 > $o/sm80.log 2>&1
echo "sm80 $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
