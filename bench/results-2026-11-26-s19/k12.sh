#!/usr/bin/env bash
# K12 (session 19, after the review mend): every GPU suite (the static-deps build of HEAD),
# then the decode grid with the shipped caches, FP8 fast accumulation per-tensor / per-row and
# block scales, graph replays: ours, peers.py (torch.*.fast, torch.block, torch.bf16), ours.
set -u
o=$(mktemp -d)/k12; mkdir -p $o
pk() { tar czf $OUT/k12.tgz -C $(dirname $o) k12; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=330 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/k12
ours() { for g in tensor row block; do
  timeout 40 carry/static/w8a8 bench --json --no-cublaslt --graph --grid decode --scale $g > $o/ours$1-$g.jsonl 2>>$o/err.log; done; }
ours 1; echo "ours 1 $SECONDS s" >> $o/summary.txt
timeout 70 python3 carry/peers.py --grid decode --providers torch.tensor.fast,torch.row.fast,torch.block,torch.bf16 --budget 60 --out $o/peers.jsonl > $o/peers.out 2>&1
echo "peers $SECONDS s" >> $o/summary.txt
ours 2; echo "ours 2 $SECONDS s" >> $o/summary.txt; pk
