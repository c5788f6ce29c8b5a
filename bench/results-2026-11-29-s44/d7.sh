#!/usr/bin/env bash
# D7 (H200), after the review's mends: session 43's Python timing scripts now share
# bench/results-2026-11-29-s43/block_calls.py (inputs, calls, peers.py's graph capture, a Kineto
# event's GPU time); each runs once at one shape to show it still works. The library's mend
# (W8A8_BENCH_GRAPH_BATCH, one constant for the 20) runs check_gpu_tune and check_gpu_dispatch,
# and `w8a8 bench --graph` beside peers.py on three DeepSeek-V3 shapes.
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so \
  PYTHONPATH=$PWD/python
S=bench/results-2026-11-29-s43
timeout 60 python3 $S/graph_kernels.py 4096,7168,2048 > $o/graph_kernels.jsonl 2> $o/err.txt
echo "graph_kernels $? $SECONDS" >> $o/gpu.txt
timeout 60 python3 $S/graph_timing.py 4096,7168,2048 > $o/graph_timing.jsonl 2>> $o/err.txt
echo "graph_timing $? $SECONDS" >> $o/gpu.txt
timeout 90 python3 $S/cold.py --quick --samples 10 > $o/cold.jsonl 2>> $o/err.txt
echo "cold $? $SECONDS" >> $o/gpu.txt
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="tune dispatch" timeout 100 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
SH="--shape 4096,7168,2048 --shape 512,8192,28672 --shape 1024,32768,512"
# shellcheck disable=SC2086
W8A8_CACHE_DB=/tmp/empty.db timeout 60 carry/static/w8a8 bench $SH --scale block,block --graph \
  --json --no-cublaslt > $o/ours.jsonl 2>> $o/err.txt
# shellcheck disable=SC2086
timeout 60 python3 carry/peers.py $SH --providers torch.block --out $o/peers.jsonl > $o/peers.log 2>&1
echo "done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d7.tgz -C $OUT d7
