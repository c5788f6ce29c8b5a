#!/usr/bin/env bash
# D5 (H200): our block kernel's SASS with the warp-uniform warpgroup (D4), per-instruction
# counts and stall samples under Nsight Compute at 256x8192x8192, as D2 took it before.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d5.db
for s in block tensor; do
  timeout 100 ncu --clock-control none --kernel-name w8a8_sm90_gemm --launch-skip 3 \
    --launch-count 1 --section SourceCounters --section WarpStateStats --page source \
    --print-source sass --csv carry/static/w8a8 bench --shape 256,8192,8192 --scale $s,$s \
    --no-cublaslt --samples 5 2> $o/src-ours-$s.err | gzip > $o/src-ours-$s.csv.gz
  echo "ncu $s $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
