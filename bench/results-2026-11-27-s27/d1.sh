#!/usr/bin/env bash
# D1 (H200): persistent sm80_gemm CTAs (persist 1: as many CTAs as fit, each looping over tiles,
# the next tile's prologue loading under this tile's stores). The sm80_gemm GPU suite on the new
# build (its new tcase runs CTAs over several tiles each), then bench/sm80_ab.sh against HEAD
# (carry/old): the large-tile INT8 configs, persist 0 and 1, at 4096x4096x4096,
# 4096x28672x4096, 2048x4096x4096 and 8192x8192x8192, two rounds interleaved.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm80_gemm" OUT=$o \
  scripts/gpu-session.sh tests
echo "suites $SECONDS" >> $o/gpu.txt
SM80_AB_SHAPES="4096,4096,4096 4096,28672,4096 2048,4096,4096 8192,8192,8192" OUT=$o \
  bash bench/sm80_ab.sh carry/old carry/static
echo "ab $SECONDS" >> $o/gpu.txt
ls -la $o
