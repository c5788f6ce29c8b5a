#!/usr/bin/env bash
# Y12 (session 21, H200): issue 10's decode grid measured shape by shape
# (bench/compare.py --interleave 2: per shape, two rounds of ours (a process per granularity)
# and the peers alternating which goes first, the median round of each), the shipped caches,
# FP8 per-tensor / per-row against the fast-accumulation peers, block against torch.block,
# INT8 against torch.int8; torch.bf16 beside.
set -u
o=$(mktemp -d)/y12; mkdir -p $o
pk() { tar czf $OUT/y12.tgz -C $(dirname $o) y12; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky12 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
nvidia-smi -L > $o/gpu.txt
timeout 560 python3 bench/compare.py --grid decode --bin carry/static/w8a8 --no-cublaslt \
  --scale tensor --scale row --scale block --scale int8 --interleave 2 --save $o/decode > $o/decode.txt 2> $o/decode.err
echo "decode $? $SECONDS s" >> $o/summary.txt; pk
