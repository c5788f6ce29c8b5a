#!/usr/bin/env bash
# D9 (H200): the final build (ping-pong tiles back on the run-time selects): D8's config
# again, old new old new (old: HEAD~3's templates), then the closing grids on the final cache
# (bench/grids_beside_peers.sh).
o=$OUT/d9; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
c="block_m=64,block_n=112,stages=8,consumers=2,pingpong=1,raster=0,group=8,cluster=1,epilogue=1"
c="$c,split=1,specialize=1,overlap=3,stagger=0,wave=0,tail=1"
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$c" > /tmp/one.lua || exit 2
for r in 1 2; do
  for b in old new; do
    W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/$b-$r.db timeout 100 carry/${b}w/w8a8 tune \
      --space /tmp/one.lua --scale block --shape 128,7168,2048 --shape 64,28672,4096 --json \
      > $o/$b-$r.jsonl 2> $o/$b-$r.err
    echo "$b $r exit $? $SECONDS" >> $o/gpu.txt
  done
done
timeout 330 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d9.tgz -C $OUT d9 && rm -rf $o
