#!/usr/bin/env bash
# D8 (H200): the GPU suites on the final build (after the review's mends, which left the SASS
# of the checked kernels identical): sm80_gemm and decode (FP8 as f16 mmas, the integer-unpack
# tests), jit, tune, dispatch and quant; then issue 14's sm80 figures once more
# (sm80-peak+sm80-tune:e4m3, 32 candidates a key).
o=$OUT/d8; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm decode jit tune dispatch quant" W8A8_BIN=carry/static W8A8_PACK=1 \
  W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=250 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o timeout 280 scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d8.tgz -C $OUT d8
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=300 W8A8_SM80_CANDIDATES=32 W8A8_PACK_NAME=sm80 OUT=$o \
  timeout 200 scripts/gpu-session.sh sm80-peak+sm80-tune:e4m3 > $o/sm80.log 2>&1
echo "sm80 $SECONDS" >> $o/gpu.txt
tar czf $OUT/d8.tgz -C $OUT d8 && rm -rf $o
