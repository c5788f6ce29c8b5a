#!/usr/bin/env bash
# Y11 (session 21, H200): issue 10's Llama grid at M <= 512 measured shape by shape
# (bench/compare.py --interleave 2: per shape, two rounds of ours (a process per granularity)
# and the peers alternating which goes first, the median round of each), the shipped caches,
# FP8 per-tensor / per-row against the fast-accumulation peers, block against torch.block,
# INT8 against torch.int8; torch.bf16 beside.
set -u
o=$(mktemp -d)/y11; mkdir -p $o
pk() { tar czf $OUT/y11.tgz -C $(dirname $o) y11; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky11 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
nvidia-smi -L > $o/gpu.txt
timeout 560 python3 bench/compare.py --grid llama3 --max-m 512 --bin carry/static/w8a8 --no-cublaslt \
  --scale tensor --scale row --scale block --scale int8 --interleave 2 --save $o/llama > $o/llama.txt 2> $o/llama.err
echo "llama $? $SECONDS s" >> $o/summary.txt; pk
