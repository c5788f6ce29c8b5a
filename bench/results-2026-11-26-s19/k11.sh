#!/usr/bin/env bash
# K11 (session 19, H200): issue 11's acceptance run with the final caches: the dsv3 grid
# (M = 1…4096) block-scaled, ours (graph replays), peers.py --grid dsv3 (torch.block), ours
# again.
set -u
o=$(mktemp -d)/k11; mkdir -p $o
pk() { tar czf $OUT/k11.tgz -C $(dirname $o) k11; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kk11
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
timeout 120 $b bench --json --no-cublaslt --graph --grid dsv3 --scale block,block > $o/ours1.jsonl 2>>$o/err.log
echo "ours 1 $SECONDS s" >> $o/summary.txt; pk
timeout 200 python3 carry/peers.py --grid dsv3 --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt; pk
timeout 120 $b bench --json --no-cublaslt --graph --grid dsv3 --scale block,block > $o/ours2.jsonl 2>>$o/err.log
echo "ours 2 $SECONDS s" >> $o/summary.txt; pk
