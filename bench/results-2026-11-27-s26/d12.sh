#!/usr/bin/env bash
# D12 (H200): the block-scaled rows of the DeepSeek-V3 grid at M >= 512 (24 keys; issue 11 counts
# their geomean against torch.block, 1.088 in D1, and 4 of them were below 1),
# a plain tune seeded from the shipped cache, about 8 s a key; shipped (A) against the new rows (B),
# A B B A.
set -u
o=$(mktemp -d)/d12; mkdir -p $o
pk() { tar czf $OUT/d12.tgz -C $(dirname $o) d12; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd12 W8A8_CACHE_PATH=$PWD/cache CHUNK=16
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 512 1024 2048 4096; do shapes="$shapes $m,$nk"; done
done
echo "-$shapes" > $o/groups-block.txt
BUDGET=200 bash bench/sweep_rows.sh $o/groups-block.txt block fast $o/block /tmp/d12.db
$W8A8 cache --db /tmp/d12.db export $o/block/new.sql --winners 2>> $o/err.log
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
gzip $o/shipped.jsonl
echo "block $SECONDS" >> $o/summary.txt; pk
