#!/usr/bin/env bash
# Y9 (session 21, final build: wave=1 and the new rows): every GPU suite (the static-deps build of HEAD), then
# the shipped caches alone (empty user database, tuning off) on the decode grid, Llama M 1..512
# (4 granularities) and the DeepSeek-V3 grid (block), ours as graph replays beside peers.py
# (every provider), same call: issue 10's and 11's acceptance grids.
set -u
o=$(mktemp -d)/y9; mkdir -p $o
pk() { tar czf $OUT/y9.tgz -C $(dirname $o) y9; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=330 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/ky9
export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_PACK_NAME=grids
W8A8_SCALES="tensor,tensor row,row int8 block,block" OUT=$o timeout 260 \
  scripts/gpu-session.sh bench-grid:decode+bench-grid:llama3-small+bench-grid:dsv3 > $o/grids.out 2>&1
echo "grids $? $SECONDS s" >> $o/summary.txt; pk
