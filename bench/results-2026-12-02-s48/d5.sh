#!/usr/bin/env bash
# D5 (H200): the closing grids on the shipped cache after D1-D4's rows (bench/grids_beside_peers.sh:
# decode and Llama M <= 512 in every granularity beside every torch provider, DeepSeek-V3 block
# beside torch.block; 20-call graph replays on both sides). No GPU suites (device time).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 220 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
gzip -f $o/*.jsonl
tar czf $OUT/d5.tgz -C $OUT d5
