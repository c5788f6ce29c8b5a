#!/usr/bin/env bash
# D3 (H200): sm80_gemm's staged epilogue without bounds for tiles inside M and N (g80_stage<true>,
# g80_store_staged's stepped pointer) against HEAD's templates (carry/oldw: the same binary
# with W8A8_TEMPLATE_DIR at HEAD's), INT8 per-row, the M >= 2048 winners' tiles (128x256 and
# 256x128, 3/4 stages, prefetch 1, staged epilogue), two interleaved rounds (bench/sm80_ab.sh);
# then the sm80_gemm GPU suite on the new build.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
SM80_AB_NCU=0 SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1" \
  SM80_AB_SHAPES="2048,4096,4096 4096,4096,4096 2048,6144,4096 8192,28672,4096 4096,8192,8192" \
  OUT=$o timeout 300 bench/sm80_ab.sh carry/oldw carry/static > $o/ab.log 2>&1
echo "ab exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm80_gemm" timeout 250 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
