#!/usr/bin/env bash
# D5 (H200): sm80_gemm's prefetch-1 main loop on 4-warp CTAs of 64x64 warp tiles (two CTAs an
# SM at 254 registers; valid() offered prefetch 1 on 8-warp CTAs only). First every config of
# {128x256 8 warps, 256x128 8 warps, 128x128 4 warps} x stages {3, 4} x prefetch {0, 1},
# staged epilogue, at five INT8 shapes (one tune --space, each config timed); then the
# sm80_gemm GPU suite (a 128x128 4-warp prefetch-1 config added); then issue 14's figures
# again with the space's new rank (sm80-peak, sm80-tune:int8 with 16 candidates a key).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
B=$PWD/carry/static/w8a8
python3 bench/narrow_space.py scripts/sm80_gemm.lua "block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=0/1,epilogue=1" > /tmp/pf.lua
a=(); for s in 2048,4096,4096 4096,4096,4096 8192,28672,4096 4096,8192,8192 2048,8192,28672; do a+=(--shape $s); done
W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/pf.db W8A8_KERNEL_DIR=/tmp/k5 timeout 60 $B tune --space /tmp/pf.lua \
  --dtype int8 --scale row "${a[@]}" --json > $o/pf.jsonl 2> $o/pf.err
echo "pf exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm80_gemm" timeout 110 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=100 W8A8_SM80_CANDIDATES=16 W8A8_PACK_NAME=sm80 OUT=$o \
  timeout 150 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 > $o/sm80.log 2>&1
echo "sm80 exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
