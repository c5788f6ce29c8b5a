#!/usr/bin/env bash
# D4 (H200): the final build and cache. The sm80_gemm GPU suite (its epilogue and raster
# changed); issue 14's figures (sm80-peak, then sm80-tune:int8: the whole Llama grid at M 1 8
# 16 2048 4096 8192, 12 candidates a key, INT8 beside torch._int_mm); the closing grids beside
# peers.py (bench/grids_beside_peers.sh: decode and Llama M <= 512 in every granularity,
# DeepSeek-V3 block).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm80_gemm" timeout 120 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=100 W8A8_SM80_CANDIDATES=12 W8A8_PACK_NAME=sm80 OUT=$o \
  timeout 260 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $o/sm80.log 2>&1
echo "sm80 exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
timeout 190 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
