#!/usr/bin/env bash
# D1 (H200): tail=2 (the last partial wave split in 2-CTA clusters, commit 7c9161a). The tail
# tcase of the sm90 suite (shapes of two full waves plus a rest, against the reference, two
# runs bitwise equal) and the plan tcase; then narrowed named spaces with tail 1 and 2 tuned
# on the keys whose last wave tail=2 can shorten (bench/sweep_rows.sh: tune, then the shipped
# rows A against the tune's winners B, graph replays A B B A): DeepSeek-V3 block keys and
# Llama per-tensor (fast) keys at M = 512...2048.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
for c in tail plan; do
  (cd /tmp && CK_RUN_CASE=$c W8A8_KERNEL_DIR=/tmp/k1 timeout 300 \
    $OLDPWD/carry/static/tests/check_gpu_sm90) > $o/sm90-$c.log 2>&1
  echo "sm90-$c exit $? $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d1.tgz -C $OUT d1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k1
S="block_m=128,stages=3/4/5/6,consumers=2,pingpong=0,raster=0,group=8,cluster=1,split=1"
S="$S,specialize=1,stagger=0,wave=0,tail=1/2"
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  "$S,block_n=112/128/144/160/176,epilogue=1/2,overlap=0/1/2/3" > $o/block.lua
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  "$S,block_n=112/128/160/176,epilogue=1/2,overlap=0" > $o/tensor.lua
echo "$o/block.lua 512,7168,16384 1024,7168,16384 4096,7168,2048" > $o/g-block.txt
echo "$o/block.lua 2048,4096,7168 1024,4096,7168" >> $o/g-block.txt
echo "$o/tensor.lua 512,10240,8192 512,6144,4096 1024,8192,8192 2048,4096,14336 1024,8192,28672" > $o/g-tensor.txt
BUDGET=100 bench/sweep_rows.sh $o/g-block.txt block fast $o/block /tmp/d1-block.db
echo "block $SECONDS" >> $o/gpu.txt
BUDGET=110 bench/sweep_rows.sh $o/g-tensor.txt tensor fast $o/tensor /tmp/d1-tensor.db
echo "tensor $SECONDS" >> $o/gpu.txt
for s in block tensor; do gzip -c /tmp/d1-$s.db > $o/$s/tune.db.gz; done
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
