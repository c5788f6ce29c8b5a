#!/usr/bin/env bash
# D1 (H200): (1) the GPU suites the session-35 mend touched (sm80_gemm, decode, swap);
# (2) Nsight Compute (full set, SASS source page, no clock control) of one block-scaled config
# and the same config with per-tensor scales and promoted accumulation (same main loop, no
# scales): where the block loop's extra time goes.
#   C1 128x128 overlap 3 (the shipped block row) at 512x8192x8192
#   C2 128x176 overlap 0 (promoted per-tensor's large-M winner; block ~20 % slower) at 2048x8192x8192
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
OUT=$o/suites W8A8_BIN=carry/static W8A8_SUITES="sm80_gemm decode swap" W8A8_SKIP_CHECK=1 \
  timeout 300 scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
B=$PWD/carry/static/w8a8
C1="block_m=128,block_n=128,stages=5,consumers=2,pingpong=0,raster=0,group=16,cluster=1,epilogue=1,split=1,specialize=1,overlap=3,stagger=0,wave=0,tail=1"
C2="block_m=128,block_n=176,stages=4,consumers=2,pingpong=0,raster=0,group=8,cluster=1,epilogue=1,split=1,specialize=1,overlap=0,stagger=0,wave=0,tail=1"
one() { # NAME CONFIG SHAPE SCALE ACCUM
  local name=$1 cfg=$2 shape=$3 scale=$4 accum=$5
  python3 bench/narrow_space.py scripts/sm90_gemm.lua "$cfg" > /tmp/$name.lua
  W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/$name.db W8A8_KERNEL_DIR=/tmp/k-$name $B tune --space /tmp/$name.lua \
    --shape $shape --scale $scale --accum $accum --json > $o/$name-tune.jsonl 2> $o/$name-tune.err
  echo "$name tune exit $? $SECONDS" >> $o/gpu.txt
  W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/$name.db W8A8_KERNEL_DIR=/tmp/k-$name timeout 200 ncu --clock-control none \
    --set full --import-source no -k "regex:w8a8_sm90" --launch-skip 2 --launch-count 1 -f -o /tmp/$name \
    $B bench --shape $shape --scale $scale --accum $accum --samples 3 --no-cublaslt > $o/$name.log 2>&1
  echo "$name ncu exit $? $SECONDS" >> $o/gpu.txt
  ncu -i /tmp/$name.ncu-rep --page details > $o/$name-details.txt 2>&1
  ncu -i /tmp/$name.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $o/$name-src.csv.gz
}
one c1-block "$C1" 512,8192,8192 block,block fast
one c1-prom "$C1" 512,8192,8192 tensor,tensor promoted
one c2-block "$C2" 2048,8192,8192 block,block fast
one c2-prom "$C2" 2048,8192,8192 tensor,tensor promoted
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
