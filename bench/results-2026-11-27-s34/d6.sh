#!/usr/bin/env bash
# D6 (H200): the integer FP8 unpacks rewritten (bytes 1, 3 and 0, 2 straight from the word, no
# byte permute; e4m3's × 256 once on the sums instead of per f16x2): the sm80_gemm and decode
# suites (their integer-unpack tests included), then bench/sm80_ab.sh twice, e4m3 per-tensor:
# D5's integer unpacks (carry/softold) against the new ones (carry/soft), and the new ones
# against sm_90's cvt (carry/static).
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm decode" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=250 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o timeout 270 scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6
cfgs="block_m=128,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=0,epilogue=1"
for pair in "softold soft" "soft static"; do
  set -- $pair
  mkdir -p $o/$1-$2
  SM80_AB_NCU=0 SM80_AB_SHAPES="4096,4096,4096 2048,6144,4096 2048,4096,14336" \
    SM80_AB_ARGS="--dtype e4m3 --scale tensor" SM80_AB_CONFIGS="$cfgs" \
    OUT=$o/$1-$2 timeout 150 bench/sm80_ab.sh carry/$1 carry/$2 > $o/$1-$2/ab.log 2>&1
  echo "ab $1 $2 $SECONDS" >> $o/gpu.txt
  tar czf $OUT/d6.tgz -C $OUT d6
done
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
