#!/usr/bin/env bash
# D3 (H200): a plain retune (every built-in space, the cache's winners of each key and its
# neighbouring M buckets seeded) of the DeepSeek-V3 block keys at M >= 128 that D2 did not
# retune (N = 2112 left out: torch.block has no kernel there), with bench/sweep_rows.sh (48
# candidates a space and key): shipped rows (A) against the tuned winners (B), A B B A; then
# peers.py torch.block at the same shapes. bench/ship_rows.sh ships keys >= 1.02x in both pairs.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/d3-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
shapes="128,24576,1536 128,32768,512 128,7168,16384 128,4096,7168 128,7168,2048"
shapes="$shapes 512,24576,1536 512,32768,512 512,7168,16384 512,4096,7168 512,7168,2048"
shapes="$shapes 1024,24576,1536 1024,32768,512 1024,7168,16384 1024,4096,7168 1024,7168,2048"
shapes="$shapes 2048,32768,512 2048,7168,2048 4096,32768,512 4096,7168,16384 4096,7168,2048"
echo "- $shapes" > $o/groups.txt
rm -f /tmp/d3.db
W8A8_TUNE=off carry/static/w8a8 cache --db /tmp/empty3.db --json list > $o/shipped.jsonl 2>> $o/gpu.txt
BUDGET=200 TUNE_ARGS="--max-candidates 48" CHUNK=10 timeout 400 \
  bench/sweep_rows.sh $o/groups.txt block fast $o /tmp/d3.db > $o/sweep.log 2>&1
echo "sweep $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3
S=""; for s in $shapes; do S="$S --shape $s"; done
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $S --providers torch.block --out $o/peers.jsonl \
  > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
gzip -f $o/*.jsonl
tar czf $OUT/d3.tgz -C $OUT d3
