#!/usr/bin/env bash
# D2 (H200): the closing grids on the final cache (D1's four overlap 4 / 5 block rows shipped
# by ship_ov.py), ours as graph replays beside peers.py in the same call
# (bench/grids_beside_peers.sh); then check_gpu_sm90 again (D1's run stopped its block case at
# a test config over the shared-memory limit, since fixed; the straddling overlap-5 config
# replaced, a ping-pong overlap-4 one added).
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 230 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm90" timeout 340 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
