#!/usr/bin/env bash
# D12 (H200): the closing grids on the final cache (D1, D3, D9, D10, D11's 18 rows): the decode
# grid and the Llama grid at M <= 512 in every granularity and the DeepSeek-V3 grid (block),
# graph replays beside peers.py (every torch provider) in the same call
# (bench/grids_beside_peers.sh). The build is D6's (the same kernels; the tuner's protected
# proxy metatable came after it and changes no enumeration of the shipped spaces).
o=$OUT/d12; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
bench/grids_beside_peers.sh $o
echo "grids $SECONDS" >> $o/gpu.txt
tar czf $OUT/d12.tgz -C $OUT d12 && rm -rf $o
