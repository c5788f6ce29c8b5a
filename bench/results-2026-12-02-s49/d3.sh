#!/usr/bin/env bash
# D3 (H200), the closing call: every GPU suite on the final build (scripts/gpu-session.sh
# tests), then issue 14's INT8 figure once more on the final space (sm80-peak +
# sm80-tune:int8, 24 candidates a key, as D2).
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 320 scripts/gpu-session.sh tests \
  > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3
common="W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PEERS=carry/peers.py"
env $common W8A8_BUDGET=150 OUT=$o/a timeout 230 scripts/gpu-session.sh sm80-peak+sm80-tune:int8 \
  > $o/a.log 2>&1
echo "figure exit $? $SECONDS" >> $o/gpu.txt
rm -f $o/a/*.db
tar czf $OUT/d3.tgz -C $OUT d3
