#!/usr/bin/env bash
# A4 (session 23, H200): bench/wgmma_ffma.cu with a third warpgroup: does a third consumer hide
# the block-scaled promotion that two do not (688 against 512 cycles a K block in Z1)?
set -u
o=$OUT/a4; mkdir -p $o
nvidia-smi -L > $o/gpu.txt
nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o /tmp/wf bench/wgmma_ffma.cu > $o/build.log 2>&1 &&
  timeout 120 /tmp/wf 100000 > $o/wgmma_ffma.jsonl 2>> $o/build.log
echo "wf $? $SECONDS" >> $o/summary.txt
