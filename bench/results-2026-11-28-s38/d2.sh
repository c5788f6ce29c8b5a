#!/usr/bin/env bash
# D2 (H200): as D1, after the non-persistent kernel body went back to the SASS of HEAD~1 (D1: 8-warp tiles 0.96-0.97x), sm80-tune with 16 candidates a key.
# 1. bench/sm80_ab.sh: HEAD's templates (carry/oldw, HEAD's space: no persist) against the new
#    ones (persist 0 and 1) on the INT8 winner tiles at K = 4096, 8192, 14336;
# 2. the sm80_gemm GPU suite (persistent_ctas_loop_over_tiles is new);
# 3. issue 14's figure (sm80-peak, then sm80-tune:int8, 12 candidates a key: persist ranked
#    first at 0.99, unmeasured).
# Setup on the host: carry/static (static-deps build), carry/tpl/base (git archive HEAD
# templates), carry/oldw/w8a8 (the wrapper) and carry/oldw/sm80_gemm.lua (HEAD's space).
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
SM80_AB_NCU=0 SM80_AB_CONFIGS="block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1,persist=0/1" \
  SM80_AB_SHAPES="2048,4096,4096 4096,4096,4096 2048,6144,4096 4096,28672,4096 4096,8192,8192 2048,4096,14336" \
  OUT=$o/ab timeout 240 bench/sm80_ab.sh carry/oldw carry/static > $o/ab.log 2>&1
echo "ab exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm80_gemm" timeout 170 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=100 W8A8_SM80_CANDIDATES=16 W8A8_PACK_NAME=sm80 OUT=$o \
  timeout 170 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $o/sm80.log 2>&1
echo "sm80 exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
