#!/usr/bin/env bash
# H6 (session 17, H100): sm80_gemm's best INT8 config (D6's 4096³ winner) up close:
# bench/sm80_probe.sh (fit of t = a + b·K, ncu stall reasons), then Nsight Compute's
# per-instruction view (SASS with its warp-stall samples) of the same kernel.
set -u
o=$(mktemp -d)/h6; mkdir -p $o
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
cfg=block_m=128,block_n=128,block_k=64,stages=5,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=0,epilogue=1
OUT=$o timeout 300 bench/sm80_probe.sh carry/static $cfg > $o/probe.out 2>&1
echo "probe $? $SECONDS" >> $o/summary.txt
st=$PWD/build/sm80-probe
run() { W8A8_CACHE_DB=$st/one.db W8A8_KERNEL_DIR=$st/k timeout 200 ncu --clock-control none \
  --kernel-name w8a8_sm80_gemm --launch-skip 3 --launch-count 1 "$@" \
  carry/static/w8a8 bench --shape 4096,4096,4096 --dtype int8 --scale row --no-cublaslt --samples 5; }
run --section SourceCounters --section WarpStateStats --import-source no --page source \
  --print-source sass --csv > $o/ncu-source.csv 2> $o/ncu-source.err
echo "source $? $SECONDS" >> $o/summary.txt
run --section SourceCounters --section WarpStateStats --print-details all > $o/ncu-details.txt 2>&1
echo "details $? $SECONDS" >> $o/summary.txt
gzip $o/ncu-source.csv; tar czf $OUT/h6.tgz -C $(dirname $o) h6
