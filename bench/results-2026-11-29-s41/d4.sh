#!/usr/bin/env bash
# D4 (H200): the closing grids on the final cache (12 rows re-tuned by D2/D3), ours as graph
# replays beside peers.py in the same call (bench/grids_beside_peers.sh), then the GPU suites of
# the tuner and the dispatcher (tune.c changed in session 40's mend, after its last GPU run).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 220 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="tune dispatch" timeout 300 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
