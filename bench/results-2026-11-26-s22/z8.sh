#!/usr/bin/env bash
# Z8 (session 22, H200, final build: kernels as 05278d1, the new padding test, the new
# 128x7168x2048 block row): every GPU suite, then the shipped caches on the DeepSeek-V3 grid
# (block) beside peers.py (scripts/gpu-session.sh bench-grid:dsv3).
set -u
o=$(mktemp -d)/z8; mkdir -p $o
pk() { tar czf $OUT/z8.tgz -C $(dirname $o) z8; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=330 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kz8
export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_PACK_NAME=grids
W8A8_SCALES="block,block" OUT=$o timeout 200 scripts/gpu-session.sh bench-grid:dsv3 > $o/grids.out 2>&1
echo "grids $? $SECONDS s" >> $o/summary.txt; pk
