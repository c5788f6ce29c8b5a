#!/usr/bin/env bash
# D2 (H200): cuBLASLt's block-scaled kernel up close, to see how it places its promotion: the
# SASS of nvjet's main loop with per-instruction executed counts and stall samples (Nsight
# Compute's source page, as session 41's D5 took ours) at 256x8192x8192 (block and per-tensor
# fast), read with bench/ncu_stalls.py; ours (the shipped block row) again in the same call.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d2.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
command -v ncu >> $o/gpu.txt 2>&1 || { echo "no ncu" >> $o/gpu.txt; tar czf $OUT/d2.tgz -C $OUT d2; exit 0; }
SRC="--section SourceCounters --section WarpStateStats --section InstructionStats --page source --print-source sass --csv"
theirs() { # tag kind
  timeout 150 ncu --clock-control none --kernel-name regex:nvjet --launch-skip 3 --launch-count 1 \
    $SRC python3 bench/results-2026-11-29-s41/torch_one.py 256,8192,8192 $2 2> $o/src-$1.err \
    | gzip > $o/src-$1.csv.gz
  echo "ncu $1 $SECONDS" >> $o/gpu.txt
}
theirs cublas-block block
theirs cublas-tensor tensor
tar czf $OUT/d2.tgz -C $OUT d2
timeout 150 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 3 --launch-count 1 \
  $SRC carry/static/w8a8 bench --shape 256,8192,8192 --scale block,block --no-cublaslt \
  --samples 5 2> $o/src-ours-block.err | gzip > $o/src-ours-block.csv.gz
echo "ncu ours $SECONDS" >> $o/gpu.txt
# the instruction mix of each (InstructionStats, details page)
for k in block tensor; do
  timeout 120 ncu --clock-control none --kernel-name regex:nvjet --launch-skip 3 --launch-count 1 \
    --section InstructionStats --section WarpStateStats --print-details all \
    python3 bench/results-2026-11-29-s41/torch_one.py 256,8192,8192 $k > $o/mix-cublas-$k.txt 2>&1
done
timeout 120 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 3 --launch-count 1 \
  --section InstructionStats --section WarpStateStats --print-details all \
  carry/static/w8a8 bench --shape 256,8192,8192 --scale block,block --no-cublaslt --samples 5 \
  > $o/mix-ours-block.txt 2>&1
echo "mix $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
