#!/usr/bin/env bash
# D2 (H200): block-scaled tiles that straddle 128-column blocks, promoted with the blocks as
# constants (this build) against the run-time selects (HEAD~1's templates, same binary through
# W8A8_TEMPLATE_DIR): the top 12 ranked block_n = 112 configs of the space at four DeepSeek-V3
# keys, old new old new; then check_gpu_sm90's block and tail tcases on this build.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
unset W8A8_CACHE_PATH
B=$PWD/carry/static/w8a8
spec="block_m=64/128/256,block_n=112,stages=2/3/4/5/6/7/8/10/12,consumers=1/2,pingpong=0/1"
spec="$spec,raster=0/1,group=1/4/8/16,cluster=1/2,epilogue=0/1/2,split=1/2/4,specialize=0/1"
spec="$spec,overlap=0/1/2/3,stagger=0/1,wave=0/1,tail=1/2"
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$spec" > /tmp/n112.lua || exit 2
shapes="--shape 512,7168,16384 --shape 1024,7168,16384 --shape 512,7168,2048 --shape 2048,2112,7168"
for round in 1 2; do
  for b in old new; do
    tdir=$PWD/templates; [ $b = old ] && tdir=$PWD/carry/oldtpl/templates
    W8A8_TEMPLATE_DIR=$tdir W8A8_CACHE_DB=/tmp/$b-$round.db W8A8_KERNEL_DIR=/tmp/k-$b timeout 150 \
      $B tune --space /tmp/n112.lua --scale block --max-candidates 12 $shapes --json \
      > $o/$b-$round.jsonl 2> $o/$b-$round.err
    echo "$b $round exit $? $SECONDS" >> $o/gpu.txt
  done
done
tar czf $OUT/d2.tgz -C $OUT d2
tar xJf carry/tests.tar.xz -C carry/static
for c in block tail; do
  d=$(mktemp -d)
  (cd $d && CK_RUN_CASE=$c W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db W8A8_TEST_KERNEL_DIR=$d/k \
     W8A8_TEST_CACHE_DB=$d/t.db CK_FORK=no timeout 380 $OLDPWD/carry/static/tests/check_gpu_sm90 \
     > $o/sm90-$c.log 2>&1; echo "sm90-$c exit $? $SECONDS" >> $o/gpu.txt) &
done
wait
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
