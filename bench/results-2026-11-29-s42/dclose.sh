#!/usr/bin/env bash
# Closing call (H200): the closing figures on the final build (the warp-uniform warpgroup index, D4) and
# cache (D1's four overlap 4 / 5 block rows): the grids, ours as graph replays beside peers.py
# in the same call (bench/grids_beside_peers.sh), then every GPU suite, then the block kernel's
# SASS counts at 256x8192x8192 (as D2's) under Nsight Compute.
o=$OUT/dclose; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 230 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/dclose.tgz -C $OUT dclose
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 340 scripts/gpu-session.sh tests \
  > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/dclose.tgz -C $OUT dclose
# the block kernel's SASS with the change (D2 took it before): per-instruction counts
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-dclose.db timeout 100 ncu \
  --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 3 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
  carry/static/w8a8 bench --shape 256,8192,8192 --scale block,block --no-cublaslt --samples 5 \
  2> $o/src-ours-block.err | gzip > $o/src-ours-block.csv.gz
echo "ncu $SECONDS" >> $o/gpu.txt
tar czf $OUT/dclose.tgz -C $OUT dclose && rm -rf $o
