#!/usr/bin/env bash
# E2 (session 16): GPU suites swap + dispatch; fresh plain tunes (every space: sm80_decode,
# sm90_gemm, sm90_swap) of the 8 Llama (N, K) at M = 1…64, per-tensor, per-row and INT8.
set -u
o=$(mktemp -d)/e2; mkdir -p $o
pk() { tar czf $OUT/e2.tgz -C $(dirname $o) e2; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=tests W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 \
  W8A8_SUITES="swap dispatch" W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk scripts/gpu-session.sh tests
echo "tests $SECONDS s" >> $o/summary.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k2 W8A8_CACHE_DB=$o/h200-small.db
b=carry/static/w8a8
sh=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 2 4 8 16 32 64; do sh="$sh --shape $m,$nk"; done; done
$b tune --budget 120 --scale tensor --json $sh > $o/tune-tensor.jsonl 2> $o/tune-tensor.log
echo "tune tensor $? $SECONDS s" >> $o/summary.txt; pk
$b tune --budget 120 --scale row --json $sh > $o/tune-row.jsonl 2> $o/tune-row.log
echo "tune row $? $SECONDS s" >> $o/summary.txt; pk
$b tune --budget 80 --dtype int8 --json $sh > $o/tune-int8.jsonl 2> $o/tune-int8.log
echo "tune int8 $? $SECONDS s" >> $o/summary.txt
gzip $o/tune-*.jsonl; rm -f $o/*.db-*; pk
