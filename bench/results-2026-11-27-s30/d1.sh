#!/usr/bin/env bash
# D1 (H200): split-K (2 or 4 CTAs a cluster) with overlap 1..3 (newly allowed together), timed
# by the tuner against split 1 on the DeepSeek-V3 block keys at M = 512 and 1024: space A
# 128x112/128 two cooperative consumers, stages 3..6, epilogue 1/2, overlap 0..3, split
# 1/2/4; space B the shipped 256x96/112 wave-1 tiles with split 1/2/4. Shapes compiled in.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  "block_m=128,block_n=112/128,stages=3/4/5/6,consumers=2,pingpong=0,raster=0,group=8,cluster=1,epilogue=1/2,split=1/2/4,specialize=1,overlap=0/1/2/3,stagger=0,wave=0" \
  > $o/a.lua || exit 2
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  "block_m=256,block_n=96/112,stages=3/4,consumers=2,pingpong=0,raster=0,group=4/8,cluster=1,epilogue=2,split=1/2/4,specialize=1,overlap=0,stagger=0,wave=1" \
  > $o/b.lua || exit 2
shapes=""
for nk in 7168,16384 4096,7168 2112,7168 24576,1536 7168,2048 32768,512; do
  for m in 512 1024; do shapes="$shapes --shape $m,$nk"; done
done
for s in a b; do
  W8A8_CACHE_DB=$o/tune.db W8A8_KERNEL_DIR=/tmp/k1 timeout 280 carry/static/w8a8 tune \
    --space $o/$s.lua --scale block,block $shapes --json > $o/tune-$s.jsonl 2> $o/tune-$s.err
  echo "tune $s exit $? $SECONDS" >> $o/gpu.txt
done
gzip $o/tune.db
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
