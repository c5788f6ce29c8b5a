#!/usr/bin/env bash
# X3 (session 20): the promotion of K block g interleaved with K block g+1's wgmma issue (a
# quarter of its FMAs after each k32 step, each step its own commit group) against X1's
# build, where g is promoted whole after g+1's four wgmmas. Both builds time one narrowed
# named space (128-row tiles, block_n 112/128, 4/5 stages, every overlap, stagger 0/1,
# specialize 1) on 9 block-scaled keys, A B A B.
set -u
o=$(mktemp -d)/x3; mkdir -p $o
pk() { tar czf $OUT/x3.tgz -C $(dirname $o) x3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  block_m=128,block_n=112/128,stages=4/5,consumers=2,pingpong=0,raster=0,group=8,cluster=1,epilogue=1,split=1,specialize=1,overlap=0/1/2/3,stagger=0/1 \
  > /tmp/sm90_gemm.lua
B="512,7168,16384"; for m in 2048 4096; do for nk in 4096,7168 7168,16384 24576,1536 7168,2048; do B="$B $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
for r in 1 2; do for v in a static; do
  W8A8_KERNEL_DIR=/tmp/k-$v W8A8_CACHE_DB=/tmp/$v$r.db timeout 120 carry/$v/w8a8 tune --budget 100 --max-candidates 3000 --space /tmp/sm90_gemm.lua \
    --scale block --json $(args "$B") > $o/tune-$v$r.jsonl 2> $o/tune-$v$r.log
  echo "tune $v $r $? $SECONDS s" >> $o/summary.txt; pk
done; done
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; pk
