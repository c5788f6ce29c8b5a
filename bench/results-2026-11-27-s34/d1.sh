#!/usr/bin/env bash
# D1 (H200): sm80_gemm runs FP8 k32 steps compiled for plain sm_90 as two f16 m16n8k16 mmas
# into the accumulators (fragments unpacked once), where ptxas expanded each FP8 mma into two
# HMMAs from zero and 4 FADDs; the space allows 128-accumulator warp tiles for FP8 on sm_90.
# First the two builds side by side (bench/sm80_ab.sh: carry/old = HEAD's templates and space,
# carry/static = the change), e4m3 per-tensor, the same configs timed by each build's tune at
# three shapes, two rounds interleaved; then the sm80_gemm GPU suite on the new build.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
SM80_AB_NCU=0 SM80_AB_SHAPES="4096,4096,4096 2048,6144,4096 2048,4096,14336" \
  SM80_AB_ARGS="--dtype e4m3 --scale tensor" \
  SM80_AB_CONFIGS="block_m=64/128/256,block_n=64/128/256,block_k=128,stages=3/4,warps_m=1/2/4,warps_n=1/2/4,slice_k=1,group=8,prefetch=0/1,epilogue=1" \
  OUT=$o timeout 330 bench/sm80_ab.sh carry/old carry/static > $o/ab.log 2>&1
echo "ab $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
