#!/usr/bin/env bash
# D5 (H200): the closing grids on the final cache (bench/grids_beside_peers.sh: ours and
# peers.py's providers as 20-call graph replays, decode, Llama M <= 512 and DeepSeek-V3).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 240 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
