#!/usr/bin/env bash
# Closing call (H200), session 44: the grids beside peers.py in the same call (shipped caches with
# D2 and D3's 14 tuned block rows; bench/grids_beside_peers.sh, 20-call graph replays on both
# sides), then every GPU suite (the tuner's timing and winner rule changed; wave tiles shipped).
o=$OUT/dclose; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 230 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/dclose.tgz -C $OUT dclose
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 340 scripts/gpu-session.sh tests \
  > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/dclose.tgz -C $OUT dclose && rm -rf $o
