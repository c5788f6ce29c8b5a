#!/usr/bin/env bash
# D5 (H200): the per-replay cost D4 found outside our kernels in Python-captured graphs
# (event-timed replay 123 us a call against a 112 us span of kernels at 16x57344x8192):
# bench/graph_trace.py with a marker kernel before each replay (startup: marker end to the
# replay's first kernel), graphs of 20 and of 2 calls, and 20 calls with W8A8_PDL=0.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty5.db W8A8_KERNEL_DIR=/tmp/k5
pip install -q --no-deps --target /tmp/pyw carry/w8a8jit-*.whl > $o/pip.log 2>&1
export PYTHONPATH=/tmp/pyw
sh="--shape 16,57344,8192 --shape 32,8192,28672 --shape 256,8192,8192 --shape 1,57344,8192"
timeout 200 python3 bench/graph_trace.py $sh --out $o/trace-20.jsonl > $o/trace.log 2>&1
echo "trace 20 exit $? $SECONDS" >> $o/gpu.txt
timeout 100 python3 bench/graph_trace.py $sh --calls 2 --replays 20 --out $o/trace-2.jsonl >> $o/trace.log 2>&1
echo "trace 2 exit $? $SECONDS" >> $o/gpu.txt
W8A8_PDL=0 timeout 200 python3 bench/graph_trace.py $sh --out $o/trace-20-nopdl.jsonl >> $o/trace.log 2>&1
echo "trace 20 nopdl exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
