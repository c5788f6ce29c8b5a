#!/usr/bin/env bash
# D5 (H200): a plain retune (every built-in space, the cache's winners seeded; the swap space
# now with block_k and cluster 2) of the per-tensor keys D4 left under 1.01x torch.tensor.fast,
# with bench/sweep_rows.sh (96 candidates a space and key, 150 s): the shipped rows (A) against
# the tuned winners (B), A B B A; then peers.py at the same shapes. bench/ship_rows.sh ships
# the keys faster by >= 2 % in both pairs.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/d5-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
shapes="16,8192,28672 64,4096,14336 32,8192,28672 128,6144,4096 64,8192,28672 256,8192,8192"
echo "- $shapes" > $o/groups.txt
rm -f /tmp/d5.db
W8A8_TUNE=off carry/static/w8a8 cache --db /tmp/empty5.db --json list > $o/shipped.jsonl 2>> $o/gpu.txt
BUDGET=150 TUNE_ARGS="--max-candidates 96" CHUNK=6 timeout 330 \
  bench/sweep_rows.sh $o/groups.txt tensor fast $o /tmp/d5.db > $o/sweep.log 2>&1
echo "sweep $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
S=""; for s in $shapes; do S="$S --shape $s"; done
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $S --providers torch.tensor.fast,torch.bf16 --out $o/peers.jsonl \
  > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
gzip -f $o/*.jsonl
tar czf $OUT/d5.tgz -C $OUT d5
