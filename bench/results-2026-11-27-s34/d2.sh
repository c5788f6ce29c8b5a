#!/usr/bin/env bash
# D2 (H200): after D1 (FP8 as f16 mmas, 1.27-1.31x), what bounds it: bench/fp8_unpack.cu (f16
# mma.sync ceiling, and the mma rate beside F2FP unpacks, integer-op unpacks or byte permutes);
# the sm80_gemm GPU suite on the new build; issue 14's figures for e4m3: sm80-peak (now with
# the f16 peak) and sm80-tune:e4m3 (32 candidates a key, scripts/sm80_summary.py).
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
/usr/local/cuda/bin/nvcc -gencode arch=compute_90,code=sm_90 -O3 -o /tmp/fp8_unpack \
  bench/fp8_unpack.cu > $o/unpack.log 2>&1 && /tmp/fp8_unpack >> $o/unpack.log 2>&1
echo "unpack $SECONDS" >> $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o timeout 230 scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=300 W8A8_SM80_CANDIDATES=32 W8A8_PACK_NAME=sm80 OUT=$o \
  timeout 280 scripts/gpu-session.sh sm80-peak+sm80-tune:e4m3 > $o/sm80.log 2>&1
echo "sm80 $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
