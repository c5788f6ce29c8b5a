#!/usr/bin/env bash
# D3 (H200): straddling block tiles with the K loop compiled per column offset and chosen once
# per tile (this build) against the per-K-block choice (HEAD's templates through
# W8A8_TEMPLATE_DIR, carry/tpl/base): the 12 top-ranked configs with block_n 112 / 160 / 176
# at four keys, old new old new; then check_gpu_sm90's block and tail tcases on this build.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
unset W8A8_CACHE_PATH
B=$PWD/carry/static/w8a8
spec="block_m=64/128/256,block_n=112/160/176,stages=2/3/4/5/6/7/8/10/12,consumers=1/2,pingpong=0/1"
spec="$spec,raster=0/1,group=1/4/8/16,cluster=1/2,epilogue=0/1/2,split=1/2/4,specialize=0/1"
spec="$spec,overlap=0/1/2/3,stagger=0/1,wave=0/1,tail=1/2"
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$spec" > /tmp/ns.lua || exit 2
shapes="--shape 2048,8192,8192 --shape 512,7168,16384 --shape 4096,2112,7168 --shape 1024,10240,8192"
for round in 1 2; do
  for b in old new; do
    tdir=$PWD/templates; [ $b = old ] && tdir=$PWD/carry/tpl/base/templates
    W8A8_TEMPLATE_DIR=$tdir W8A8_CACHE_DB=/tmp/$b-$round.db W8A8_KERNEL_DIR=/tmp/k-$b timeout 200 \
      $B tune --space /tmp/ns.lua --scale block --max-candidates 12 $shapes --json \
      > $o/$b-$round.jsonl 2> $o/$b-$round.err
    echo "$b $round exit $? $SECONDS" >> $o/gpu.txt
  done
done
tar czf $OUT/d3.tgz -C $OUT d3
for c in block tail; do
  d=$(mktemp -d)
  (cd $d && CK_RUN_CASE=$c W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db W8A8_TEST_KERNEL_DIR=$d/k \
     W8A8_TEST_CACHE_DB=$d/t.db CK_FORK=no timeout 420 $OLDPWD/carry/static/tests/check_gpu_sm90 \
     > $o/sm90-$c.log 2>&1; echo "sm90-$c exit $? $SECONDS" >> $o/gpu.txt) &
done
wait
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
