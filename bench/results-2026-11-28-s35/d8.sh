#!/usr/bin/env bash
# D8 (H200): one straddling ping-pong config with overlap 3 (64x112, the row 128x7168x2048 had
# before D4) timed alone by this binary with HEAD~1's templates (old) and this build's (new),
# old new old new old new, at 128x7168x2048 (K = 2048: 16 K blocks), 128x7168x16384 and
# 64x28672x4096: D4 saw that row at 8.5 us where session 34's D13 had 7.54 us.
o=$OUT/d8; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
unset W8A8_CACHE_PATH
c="block_m=64,block_n=112,stages=8,consumers=2,pingpong=1,raster=0,group=8,cluster=1,epilogue=1"
c="$c,split=1,specialize=1,overlap=3,stagger=0,wave=0,tail=1"
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$c" > /tmp/one.lua || exit 2
for r in 1 2 3; do
  for b in old new; do
    W8A8_CACHE_DB=/tmp/$b-$r.db timeout 100 carry/${b}w/w8a8 tune --space /tmp/one.lua \
      --scale block --shape 128,7168,2048 --shape 128,7168,16384 --shape 64,28672,4096 --json \
      > $o/$b-$r.jsonl 2> $o/$b-$r.err
    echo "$b $r exit $? $SECONDS" >> $o/gpu.txt
  done
done
tar czf $OUT/d8.tgz -C $OUT d8 && rm -rf $o
