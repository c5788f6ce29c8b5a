#!/usr/bin/env bash
# D9 (H200): seeded plain retunes with `tune --settle 100` (D4 shipped 13 of 18 stale rows
# with it) of the 24 DeepSeek-V3 block keys at M = 512…4096 (issue 11's M >= 512 geomean),
# A B B A against the shipped rows (bench/sweep_rows.sh).
o=$OUT/d9; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k9
keys=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 512 1024 2048 4096; do keys="$keys $m,$nk"; done
done
echo "-$keys" > $o/groups.txt
SETTLE=100 BUDGET=300 CHUNK=24 timeout 480 bench/sweep_rows.sh $o/groups.txt block fast $o/block /tmp/d9.db
echo "block exit $? $SECONDS" >> $o/gpu.txt
gzip $o/block/tune-block.jsonl
tar czf $OUT/d9.tgz -C $OUT d9 && rm -rf $o
