#!/usr/bin/env bash
# D13 (H200): the final build and cache. The closing grids beside peers.py
# (bench/grids_beside_peers.sh: decode and Llama M <= 512 in every granularity, DeepSeek-V3
# block; 32 shipped rows now carry trigger=1), then every GPU suite.
o=$OUT/d13; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 200 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d13.tgz -C $OUT d13
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 320 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d13.tgz -C $OUT d13 && rm -rf $o
