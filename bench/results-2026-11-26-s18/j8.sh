#!/usr/bin/env bash
# J8 (session 18, H100): after the review mend (test_gpu_tensors in testutil): the decode and
# dispatch suites; then the decode grid with the shipped caches, FP8 fast accumulation per-tensor
# and per-row, graph replays: ours, peers.py (torch.*.fast), ours again.
set -u
o=$(mktemp -d)/j8; mkdir -p $o
pk() { tar czf $OUT/j8.tgz -C $(dirname $o) j8; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=150 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="decode dispatch" OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kj8
ours() { for g in tensor row; do
  timeout 40 carry/static/w8a8 bench --json --no-cublaslt --graph --grid decode --scale $g > $o/ours$1-$g.jsonl 2>>$o/err.log; done; }
ours 1; echo "ours 1 $SECONDS s" >> $o/summary.txt
timeout 60 python3 carry/peers.py --grid decode --providers torch.tensor.fast,torch.row.fast,torch.bf16 --budget 50 --out $o/peers.jsonl > $o/peers.out 2>&1
echo "peers $SECONDS s" >> $o/summary.txt
ours 2; echo "ours 2 $SECONDS s" >> $o/summary.txt; pk
