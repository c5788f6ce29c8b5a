#!/usr/bin/env bash
# D4 (H200): D3 again with the gaps' distribution and the first replay's activities
# (bench/graph_trace.py now keeps every GPU activity), beside `w8a8 bench --graph` (the C
# command's graph replays) of the same shapes in the same call.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty4.db W8A8_KERNEL_DIR=/tmp/k4
pip install -q --no-deps --target /tmp/pyw carry/w8a8jit-*.whl > $o/pip.log 2>&1
export PYTHONPATH=/tmp/pyw
sh="--shape 1,57344,8192 --shape 16,57344,8192 --shape 32,8192,28672 --shape 256,8192,8192"
timeout 200 python3 bench/graph_trace.py $sh --out $o/trace-tensor.jsonl > $o/trace.log 2>&1
echo "trace tensor exit $? $SECONDS" >> $o/gpu.txt
carry/static/w8a8 bench --graph --json --no-cublaslt $sh --scale tensor,tensor > $o/ours-graph.jsonl 2>> $o/trace.log
echo "bench exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
