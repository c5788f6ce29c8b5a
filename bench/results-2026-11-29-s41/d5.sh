#!/usr/bin/env bash
# D5 (H200): where the block-scaled gap at M = 256 / 512 comes from. Nsight Compute on one
# launch each of: our shipped block-scaled row and per-tensor row at 256x8192x8192, our block
# row at 512x4096x14336, and cuBLASLt's kernels (torch._scaled_mm, block and per-tensor fast)
# on the same shapes: speed of light, pipe utilization (the wgmma pipe), warp states and
# scheduler statistics (ncu-*.txt), plus SASS-level stall samples of our two 256x8192x8192
# kernels (src-*.csv.gz, read with bench/ncu_stalls.py). --clock-control none: the clock the
# GPU picks, as in the benchmarks.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d5.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
command -v ncu >> $o/gpu.txt 2>&1 || { echo "no ncu" >> $o/gpu.txt; tar czf $OUT/d5.tgz -C $OUT d5; exit 0; }
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
S="$S --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
ours() { # tag shape scale
  timeout 150 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 3 \
    --launch-count 1 $S --print-details all \
    $W bench --shape $2 --scale $3 --no-cublaslt --samples 5 > $o/ncu-$1.txt 2>&1
  echo "ncu $1 exit $? $SECONDS" >> $o/gpu.txt
}
ours block-256 256,8192,8192 block,block
ours tensor-256 256,8192,8192 tensor,tensor
ours block-512 512,4096,14336 block,block
tar czf $OUT/d5.tgz -C $OUT d5
theirs() { # tag shape kind
  timeout 150 ncu --clock-control none --kernel-name regex:nvjet --launch-skip 3 \
    --launch-count 1 $S --print-details all python3 bench/results-2026-11-29-s41/torch_one.py $2 $3 \
    > $o/ncu-$1.txt 2>&1
  echo "ncu $1 exit $? $SECONDS" >> $o/gpu.txt
}
theirs cublas-block-256 256,8192,8192 block
theirs cublas-tensor-256 256,8192,8192 tensor
theirs cublas-block-512 512,4096,14336 block
tar czf $OUT/d5.tgz -C $OUT d5
src() { # tag scale
  timeout 150 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 3 \
    --launch-count 1 --section SourceCounters --section WarpStateStats --page source \
    --print-source sass --csv $W bench --shape 256,8192,8192 --scale $2 --no-cublaslt \
    --samples 5 2> $o/src-$1.err | gzip > $o/src-$1.csv.gz
  echo "ncu src $1 $SECONDS" >> $o/gpu.txt
}
src block block,block
src tensor tensor,tensor
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
