#!/usr/bin/env bash
# D3 (H200): kernel by kernel inside CUDA-graph replays (bench/graph_trace.py: torch.profiler
# over graphs of 20 calls), ours through the Python package (this tree's wheel, shipped cache,
# no tuning) beside torch._scaled_mm fast accumulation, per-tensor decode / small-M shapes
# where we trail in graph time (1x57344x8192, 16x57344x8192, 32x8192x28672, 256x8192x8192) and
# one where we lead (1x4096x14336); per-row at 256x8192x8192.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty3.db W8A8_KERNEL_DIR=/tmp/k3
pip install -q --no-deps --target /tmp/pyw carry/w8a8jit-*.whl > $o/pip.log 2>&1
export PYTHONPATH=/tmp/pyw
timeout 200 python3 bench/graph_trace.py --shape 1,57344,8192 --shape 16,57344,8192 \
  --shape 32,8192,28672 --shape 256,8192,8192 --shape 1,4096,14336 --out $o/trace-tensor.jsonl \
  > $o/trace.log 2>&1
echo "trace tensor exit $? $SECONDS" >> $o/gpu.txt
timeout 100 python3 bench/graph_trace.py --scale row --shape 256,8192,8192 --shape 16,57344,8192 \
  --out $o/trace-row.jsonl >> $o/trace.log 2>&1
echo "trace row exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
