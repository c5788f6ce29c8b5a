#!/usr/bin/env bash
# X5 (session 20): the block-scaled ring without its scale copies, at 4096x4096x7168 on one
# 128x128 config (Nsight Compute, the first launch of each): diagnostic build d2 (no cp.async
# of the block scales, the loaders only arrive), d3 (no copies and no promotion FMAs), the
# build as it is, and per-tensor.
set -u
o=$(mktemp -d)/x5; mkdir -p $o
pk() { tar czf $OUT/x5.tgz -C $(dirname $o) x5; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
base=block_m=128,block_n=128,stages=5,consumers=2,pingpong=0,raster=0,group=8,cluster=1,epilogue=1,split=1,specialize=1
prof() { # name bin scale overlap stagger
  mkdir -p /tmp/$1
  python3 bench/narrow_space.py scripts/sm90_gemm.lua $base,overlap=$4,stagger=$5 > /tmp/$1/sm90_gemm.lua
  W8A8_KERNEL_DIR=/tmp/k-$1 W8A8_CACHE_DB=/tmp/$1.db timeout 90 $NCU --clock-control none -k regex:w8a8_sm90 --launch-skip ${SKIP:-3} -c 1 \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis -o /tmp/$1/rep \
    carry/$2/w8a8 tune --space /tmp/$1/sm90_gemm.lua --scale $3 --shape 4096,4096,7168 --budget 20 > $o/$1-run.txt 2>&1
  echo "$1 ncu $? $SECONDS s" >> $o/summary.txt
  $NCU -i /tmp/$1/rep.ncu-rep --print-details all > $o/$1-details.txt 2>&1
  pk
}
export SKIP=0
prof pt static tensor 0 0
prof blk0 static block 0 0
prof nocopy0 d2 block 0 0
prof nocopy1 d2 block 1 0
prof nothing0 d3 block 0 0
prof blk0b static block 0 0
for n in pt blk0 nocopy0 nocopy1 nothing0 blk0b; do echo "$n $(grep -E '^ +Duration' $o/$n-details.txt | head -1) $(grep -E 'Pipe Tensor Cycles Active' $o/$n-details.txt | head -1)" >> $o/summary.txt; done
echo "all $SECONDS s" >> $o/summary.txt; pk
