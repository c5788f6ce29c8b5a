#!/usr/bin/env bash
# E7 (session 16): (1) 16x10240x8192 per-tensor: one swap config timed by the tuner (--force,
# a one-config space) and by bench, PDL on and off; (2) the shipped caches (E6's rows), tuning
# off: decode grid + Llama M <= 512, every granularity, graph replays, beside every peer.
set -u
o=$(mktemp -d)/e7; mkdir -p $o
pk() { tar czf $OUT/e7.tgz -C $(dirname $o) e7; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $o/gpu.txt 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k7
b=carry/static/w8a8
# carry/one_swap.lua, the one-config space (not kept: this command makes it):
#   bench/narrow_space.py scripts/sm90_swap.lua \
#     block_m=128,block_n=16,stages=6,consumers=2,pingpong=0,split=1,specialize=0,swap=1
for pdl in 1 0; do
  W8A8_PDL=$pdl W8A8_CACHE_DB=$o/one$pdl.db $b tune --space carry/one_swap.lua --force --scale tensor --shape 16,10240,8192 --shape 16,8192,8192 > $o/one-tune-pdl$pdl.log 2>&1
  W8A8_PDL=$pdl W8A8_CACHE_DB=$o/one$pdl.db W8A8_TUNE=off $b bench --graph --no-cublaslt --scale tensor --shape 16,10240,8192 --shape 16,8192,8192 > $o/one-bench-pdl$pdl.txt 2>&1
  W8A8_PDL=$pdl W8A8_CACHE_DB=$o/one$pdl.db W8A8_TUNE=off $b bench --no-cublaslt --scale tensor --shape 16,10240,8192 --shape 16,8192,8192 >> $o/one-bench-pdl$pdl.txt 2>&1
done
echo "one $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=grids W8A8_SKIP_CHECK=1 W8A8_CACHE_DB=/tmp/empty.db \
 W8A8_KERNEL_DIR=/tmp/k7 W8A8_PEERS=carry/peers.py W8A8_SCALES="tensor,tensor row,row int8 block,block" \
  scripts/gpu-session.sh bench-grid:decode+bench-grid:llama3-small
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
