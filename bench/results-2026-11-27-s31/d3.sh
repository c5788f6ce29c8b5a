#!/usr/bin/env bash
# D3 (H200): the block and gpu_sm90 tcases (tail configs among their configs; tail takes whole
# A tiles now, after D2's block tcase refused a 256x112 tail config at M <= 96); then plain,
# seeded tunes (the space as a first run on a new GPU sees it, rank() with the wave factor and
# without the tail step) of the DeepSeek-V3 block keys at M = 512...4096 whose 128-row tiles
# leave a partial wave, and the shipped rows (A) against the tunes' winners (B), graph replays
# A B B A (bench/sweep_rows.sh).
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
for c in block gpu_sm90; do
  (cd /tmp && CK_RUN_CASE=$c W8A8_KERNEL_DIR=/tmp/k3 timeout 420 \
    $OLDPWD/carry/static/tests/check_gpu_sm90) > $o/sm90-$c.log 2>&1
  echo "sm90-$c exit $? $SECONDS" >> $o/gpu.txt
  tar czf $OUT/d3.tgz -C $OUT d3
done
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k3
echo "- 1024,7168,16384 512,7168,16384 2048,7168,16384 4096,7168,16384" > $o/g-block.txt
echo "- 1024,7168,2048 1024,2112,7168 2048,2112,7168 4096,2112,7168" >> $o/g-block.txt
BUDGET=110 bench/sweep_rows.sh $o/g-block.txt block fast $o/block /tmp/d3-block.db
echo "block $SECONDS" >> $o/gpu.txt
gzip -c /tmp/d3-block.db > $o/block/tune.db.gz
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
