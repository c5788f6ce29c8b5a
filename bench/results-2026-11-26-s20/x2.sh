#!/usr/bin/env bash
# X2 (session 20): Nsight Compute at 4096x4096x7168 of one 128x128 tile three ways: per-tensor
# fast (no promotion), block scales overlap 0 stagger 0, block scales overlap 2 stagger 1 (X1's
# best); each a one-config named space run by `w8a8 tune`, the 6th sm90 launch profiled.
set -u
o=$(mktemp -d)/x2; mkdir -p $o
pk() { tar czf $OUT/x2.tgz -C $(dirname $o) x2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/x2k
nvidia-smi -L > $o/gpu.txt
b=$PWD/carry/static/w8a8
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" >> $o/summary.txt
base=block_m=128,block_n=128,stages=5,consumers=2,pingpong=0,raster=0,group=8,cluster=1,epilogue=1,split=1,specialize=1
prof() { # name scale overlap stagger
  mkdir -p /tmp/$1
  python3 bench/narrow_space.py scripts/sm90_gemm.lua $base,overlap=$3,stagger=$4 > /tmp/$1/sm90_gemm.lua
  W8A8_CACHE_DB=/tmp/$1.db timeout 90 $NCU --clock-control none -k regex:w8a8_sm90 --launch-skip 5 -c 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SourceCounters --section InstructionStats --import-source no -o /tmp/$1/rep \
    $b tune --space /tmp/$1/sm90_gemm.lua --scale $2 --shape 4096,4096,7168 --budget 20 > $o/$1-run.txt 2>&1
  echo "$1 ncu $? $SECONDS s" >> $o/summary.txt
  $NCU -i /tmp/$1/rep.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $o/$1-sass.csv.gz
  $NCU -i /tmp/$1/rep.ncu-rep --print-details all > $o/$1-details.txt 2>&1
  pk
}
prof pt tensor 0 0
prof ov0 block 0 0
prof ov2 block 2 1
echo "all $SECONDS s" >> $o/summary.txt; pk
