#!/usr/bin/env bash
# D7 (H200): peers.py's graph timing (events around replays of 20 calls) beside Kineto's
# kernel time in the same replays, torch.block and ours, two rounds (graph_timing.py); then
# peers.py itself and w8a8 bench --graph on the same shapes.
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d7.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
S="4096,7168,2048 4096,4096,7168 4096,7168,16384 512,7168,16384 2048,24576,1536 128,4096,7168"
# shellcheck disable=SC2086
W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so PYTHONPATH=python timeout 250 \
  python3 bench/results-2026-11-29-s43/graph_timing.py $S > $o/timing.jsonl 2> $o/err.txt
echo "timing rc $? $SECONDS" >> $o/gpu.txt
A=""; for s in $S; do A="$A --shape $s"; done
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $A --providers torch.block --out $o/peers.jsonl >> $o/err.txt 2>&1
# shellcheck disable=SC2086
timeout 100 carry/static/w8a8 bench $A --scale block,block --graph --no-cublaslt --json \
  > $o/ours.jsonl 2>> $o/err.txt
echo "peers, ours $SECONDS" >> $o/gpu.txt
tar czf $OUT/d7.tgz -C $OUT d7 && rm -rf $o
