#!/usr/bin/env bash
# K5 (session 19, H200): the sm90 suite's plan tcase (the split-4 grid the cost model assumes);
# then the shipped caches alone (empty user database, tuning off): the decode grid, Llama
# M 1…512 (4 granularities) and the DeepSeek-V3 grid (block), ours as graph replays beside
# peers.py (every provider), same call: issue 10's and 11's acceptance grids.
set -u
o=$(mktemp -d)/k5; mkdir -p $o
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $OUT/gpu.txt
d=$(mktemp -d); root=$PWD
(cd $d && CK_RUN_CASE=plan CK_FORK=no W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db timeout 100 \
  $root/carry/static/tests/check_gpu_sm90 > $OUT/sm90-plan.log 2>&1; echo "sm90 plan $?" >> $OUT/gpu.txt)
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kk5
export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_PACK_NAME=k5
W8A8_SCALES="tensor,tensor row,row int8 block,block" timeout 480 \
  scripts/gpu-session.sh bench-grid:decode+bench-grid:llama3-small+bench-grid:dsv3 > /dev/null 2>&1
