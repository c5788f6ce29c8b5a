#!/usr/bin/env bash
# D5 (H200): FP8 on Ampere (sm_80/86) as f16 mma.sync on codes unpacked with integer
# operations, tested on Hopper through the test hook (SOFT_FP8=1): the sm80_gemm and decode
# suites (each with a test of that path: every config on odd shapes, both FP8 mixes, block
# scales); then what those unpacks cost against sm_90's cvt (bench/sm80_ab.sh: carry/soft =
# templates with SOFT_FP8 on by default, carry/static = as committed; e4m3 per-tensor, the
# large tiles, two rounds).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm decode" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=250 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o timeout 270 scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
SM80_AB_NCU=0 SM80_AB_SHAPES="4096,4096,4096 2048,6144,4096 2048,4096,14336" \
  SM80_AB_ARGS="--dtype e4m3 --scale tensor" \
  SM80_AB_CONFIGS="block_m=128/256,block_n=64/128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=1/2/4,slice_k=1,group=8,prefetch=0,epilogue=1" \
  OUT=$o timeout 200 bench/sm80_ab.sh carry/soft carry/static > $o/ab.log 2>&1
echo "ab $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
