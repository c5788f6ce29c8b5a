#!/usr/bin/env bash
# D2 (H200): the tail tcase again (D1's first plan of the block-scaled case had no block
# scales), the block tcase (tail configs among the block configs); then chosen tail=2 configs
# of 1024x7168x16384 (the worst DeepSeek-V3 shape, 0.911x torch.block in session 30; in D1's
# tune the best tail=2 configs ran 205-208 us in pass 1, the shipped 256x112 wave row 224-240
# us in D1's A/B) each tuned alone into its own database and timed against the shipped row,
# graph replays A B B A, three rounds.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
for c in tail block; do
  (cd /tmp && CK_RUN_CASE=$c W8A8_KERNEL_DIR=/tmp/k2 timeout 300 \
    $OLDPWD/carry/static/tests/check_gpu_sm90) > $o/sm90-$c.log 2>&1
  echo "sm90-$c exit $? $SECONDS" >> $o/gpu.txt
  tar czf $OUT/d2.tgz -C $OUT d2
done
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k2
C="block_m=128,block_n=128,consumers=2,pingpong=0,raster=0,group=8,cluster=1,split=1"
C="$C,specialize=1,stagger=0,wave=0,tail=2"
i=0
for v in stages=4,epilogue=2,overlap=2 stages=5,epilogue=1,overlap=1 stages=6,epilogue=2,overlap=1 \
         stages=5,epilogue=2,overlap=2; do
  i=$((i + 1))
  python3 bench/narrow_space.py scripts/sm90_gemm.lua "$C,$v" > $o/c$i.lua
  for s in 1024,7168,16384 1024,7168,2048; do
    W8A8_CACHE_DB=/tmp/c$i.db carry/static/w8a8 tune --space $o/c$i.lua --budget 30 --dtype e4m3 \
      --scale block --shape $s --json >> $o/tune.jsonl 2>> $o/tune.log
  done
  B_DB=/tmp/c$i.db CHUNK=2 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-c$i.jsonl block \
    1024,7168,16384 1024,7168,2048 1024,7168,16384 1024,7168,2048 1024,7168,16384 1024,7168,2048 \
    2>> $o/err.log
  echo "c$i $v $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
