#!/usr/bin/env bash
# D6 (H200): every kernel Kineto sees for torch.block and ours, eager back to back against
# peers.py's CUDA graph (graph_kernels.py), at the shapes where D5's graph figure of
# torch.block sat 10-30 % below its eager one.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d6.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so PYTHONPATH=python timeout 250 \
  python3 bench/results-2026-11-29-s43/graph_kernels.py 4096,7168,2048 4096,7168,16384 \
  4096,4096,7168 512,7168,16384 > $o/kernels.jsonl 2> $o/err.txt
echo "rc $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
