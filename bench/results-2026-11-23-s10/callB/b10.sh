#!/usr/bin/env bash
# session 10, device call B (H100): the 48 KB-stage tiles (128x256, 256x128, 192 columns) at
# 3-6 stages, epilogue 0/1, cluster 1/2, on few-wave and large shapes; peers alongside.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/B; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callB.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
B=$PWD/carry/static/w8a8
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$L/exp.db
S="--shape 512,4096,4096 --shape 1024,4096,4096 --shape 2048,4096,4096 --shape 4096,4096,4096 --shape 512,6144,4096 --shape 1024,6144,4096 --shape 4096,4096,14336 --shape 16384,4096,4096"
timeout 330 $B tune --space carry/exp_sm90.lua $S --scale tensor --max-candidates 10000 --json \
    > $L/exp.jsonl 2> $L/exp.err; note tune $?
timeout 120 python3 bench/peers.py $S --providers torch.tensor.fast --out $L/peers.jsonl \
    > $L/peers.txt 2>&1; note peers $?
