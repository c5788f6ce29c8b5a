#!/usr/bin/env bash
# X14 (session 20, after the second review mend: the evict-first load through one helper):
# every GPU suite, then the shipped caches alone on the decode grid (per-tensor, per-row,
# block, INT8), ours as graph replays beside peers.py (every provider) in the same call.
set -u
o=$(mktemp -d)/x14; mkdir -p $o
pk() { tar czf $OUT/x14.tgz -C $(dirname $o) x14; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=330 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kx14
export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_PACK_NAME=grids
W8A8_SCALES="tensor,tensor row,row int8 block,block" OUT=$o timeout 200 \
  scripts/gpu-session.sh bench-grid:decode > $o/grids.out 2>&1
echo "grids $? $SECONDS s" >> $o/summary.txt; pk
