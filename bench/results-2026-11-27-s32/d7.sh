#!/usr/bin/env bash
# D7 (H200): D6's grids beside peers.py twice more in one call (the same build and cache), to
# tell the peers' and our call-to-call spread from a change: D6 measured torch.tensor.fast
# 1-3 % faster than session 31's D5 on decode shapes whose rows and kernels did not change
# (57344x8192: 4.36 against 4.2 TB/s), ours the same.
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
for r in 1 2; do
  o=$OUT/d7/r$r; mkdir -p $o
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $o/gpu.txt 2>&1
  bench/grids_beside_peers.sh $o
  echo "grids $SECONDS" >> $o/gpu.txt
  tar czf $OUT/d7.tgz -C $OUT d7
done
