#!/usr/bin/env bash
# D5 (H200): why torch.block gains 15-18 % under DeepGEMM's timing (D4) where ours gains 2-4 %.
# On four shapes (cold.py --quick), both providers timed by Kineto: back to back (300 calls, a
# sustained load), after a 0.25 GB memset (an L2 flush, little idle time) and after an 8 GB
# one (D4's method); then graph replays as in D4; clock and power every 50 ms (clk.csv).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d5.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 50 > $o/clk.csv 2>&1 &
smi=$!
py() { # label flush-gb samples
  date +"$1 start %T.%N" >> $o/gpu.txt
  W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so PYTHONPATH=python timeout 200 \
    python3 bench/results-2026-11-29-s43/cold.py --quick --flush-gb $2 --samples $3 \
    > $o/$1.jsonl 2>> $o/cold.err
  date +"$1 end %T.%N rc $?" >> $o/gpu.txt
}
py b2b 0 300
py l2 0.25 30
py gb8 8 30
S=""
for s in 4096,4096,7168 4096,7168,16384 4096,7168,2048 128,4096,7168; do S="$S --shape $s"; done
date +"graph start %T.%N" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 200 carry/static/w8a8 bench $S --scale block,block --graph --no-cublaslt --json \
  > $o/ours-graph.jsonl 2>> $o/err.txt
# shellcheck disable=SC2086
timeout 200 python3 carry/peers.py $S --providers torch.block --out $o/peers-graph.jsonl \
  >> $o/err.txt 2>&1
date +"graph end %T.%N" >> $o/gpu.txt
py b2b2 0 300
kill $smi
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
