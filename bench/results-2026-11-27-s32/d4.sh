#!/usr/bin/env bash
# D4 (H200): sm80_gemm's epilogue loads every column's scale and bias before its first store
# (warp tiles of 128 accumulators without a zero point). First its GPU suite (every dtype ×
# scale, azp, bias, out dtype, odd shapes) on the new build; then the two builds side by side
# (bench/sm80_ab.sh: carry/old = HEAD's templates, carry/static = the change), the same INT8
# per-row configs (the large 8-warp tiles, prefetch 1, epilogue 0 and 1) timed by each build's
# tune at two K = 4096 shapes and one K = 14336 shape, two rounds interleaved.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=240 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
SM80_AB_NCU=0 SM80_AB_SHAPES="4096,4096,4096 2048,6144,4096 2048,4096,14336" \
  SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=0/1" \
  OUT=$o bench/sm80_ab.sh carry/old carry/static > $o/ab.log 2>&1
echo "ab $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
