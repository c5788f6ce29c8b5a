#!/usr/bin/env bash
# D7 (session 25, H200): the Llama M <= 512 and decode grids on the shipped caches as
# committed, per-tensor, per-row, INT8 and block scales, beside peers.py (every provider).
set -u
o=$(mktemp -d)/d7; mkdir -p $o
pk() { tar czf $OUT/d7.tgz -C $(dirname $o) d7; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
( export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kg
  export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py
  export W8A8_SCALES="tensor,tensor row,row int8 block,block"
  W8A8_PACK_NAME=grid-small OUT=$o timeout 280 scripts/gpu-session.sh bench-grid:llama3-small > $o/grid-small.out 2>&1
  echo "small $? $SECONDS" >> $o/summary.txt; pk
  W8A8_PACK_NAME=grid-decode OUT=$o timeout 200 scripts/gpu-session.sh bench-grid:decode > $o/grid-decode.out 2>&1
  echo "decode $? $SECONDS" >> $o/summary.txt ); pk
