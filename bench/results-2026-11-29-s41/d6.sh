#!/usr/bin/env bash
# D6 (H200): why our 2-CTA clusters lose where cuBLASLt's win (D5: its 256x8192x8192 kernels
# are 128x128 tiles in clusters of 2). The shipped 256x8192x8192 rows (per-tensor FP8 and
# INT8, per-row, block) as they are (base) and with cluster=2 (cl2: cl2.sql beside this
# script, the same
# INSERTs with cluster=1 replaced), graph replays, rounds base cl2 cl2 base; then Nsight
# Compute on the cl2 block and per-tensor kernels (sections as D5, and the block kernel's
# SASS stall samples).
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k-d6
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
W8A8_CACHE_DB=/tmp/cl2.db $W cache import bench/results-2026-11-29-s41/cl2.sql >> $o/gpu.txt 2>&1
one() { # label round
  local db=/tmp/empty-d6.db; [ $1 = cl2 ] && db=/tmp/cl2.db
  for s in tensor row block int8; do
    local a="--scale $s,$s"; [ $s = int8 ] && a="--dtype int8 --scale tensor,tensor"
    W8A8_CACHE_DB=$db $W bench --shape 256,8192,8192 $a --graph --no-cublaslt --json \
      --samples 20 > $o/$1-$s-r$2.jsonl 2>> $o/err.txt
  done
  echo "$1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one cl2 1; one cl2 2; one base 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $o base cl2 tensor row block int8 > $o/table.txt 2>&1
tar czf $OUT/d6.tgz -C $OUT d6
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
S="$S --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
for s in block tensor; do
  W8A8_CACHE_DB=/tmp/cl2.db timeout 150 ncu --clock-control none --kernel-name w8a8_sm90_gemm \
    --launch-skip 3 --launch-count 1 $S --print-details all \
    $W bench --shape 256,8192,8192 --scale $s,$s --no-cublaslt --samples 5 > $o/ncu-cl2-$s.txt 2>&1
  echo "ncu $s exit $? $SECONDS" >> $o/gpu.txt
done
W8A8_CACHE_DB=/tmp/cl2.db timeout 150 ncu --clock-control none --kernel-name w8a8_sm90_gemm \
  --launch-skip 3 --launch-count 1 --section SourceCounters --section WarpStateStats \
  --page source --print-source sass --csv $W bench --shape 256,8192,8192 --scale block,block \
  --no-cublaslt --samples 5 2> $o/src.err | gzip > $o/src-cl2-block.csv.gz
echo "ncu src $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
