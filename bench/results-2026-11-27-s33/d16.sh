#!/usr/bin/env bash
# D16 (H200): the closing grids again on the final cache (D15's 9 rows; the build at the final
# commit, kernels as in D8/D14): decode, Llama M <= 512 in every granularity and DeepSeek-V3
# block, graph replays beside peers.py in the same call (bench/grids_beside_peers.sh).
o=$OUT/d16; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
bench/grids_beside_peers.sh $o
echo "grids $SECONDS" >> $o/gpu.txt
tar czf $OUT/d16.tgz -C $OUT d16 && rm -rf $o
