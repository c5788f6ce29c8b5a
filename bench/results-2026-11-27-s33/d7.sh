#!/usr/bin/env bash
# D7 (H200): the per-replay time outside the kernels of D4/D5 (Python-captured graphs of our
# sm90_gemm kernels): bench/graph_trace.py now also times the host's g.replay() call; three
# runs of 32x8192x28672 and 16x57344x8192 (PDL on, off), beside `w8a8 bench --graph`.
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty7.db W8A8_KERNEL_DIR=/tmp/k7
pip install -q --no-deps --target /tmp/pyw carry/w8a8jit-*.whl > $o/pip.log 2>&1
export PYTHONPATH=/tmp/pyw
sh="--shape 32,8192,28672 --shape 16,57344,8192"
for r in 1 2 3; do
  timeout 100 python3 bench/graph_trace.py $sh --out $o/trace-pdl.jsonl >> $o/trace.log 2>&1
  W8A8_PDL=0 timeout 100 python3 bench/graph_trace.py $sh --out $o/trace-nopdl.jsonl >> $o/trace.log 2>&1
  carry/static/w8a8 bench --graph --json --no-cublaslt $sh --scale tensor,tensor >> $o/ours-graph.jsonl 2>> $o/trace.log
  echo "round $r $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d7.tgz -C $OUT d7 && rm -rf $o
