#!/usr/bin/env bash
# J4 (session 18, H100): after scripts/lib/gemm.lua (the spaces' shared helpers) and
# test_dispatched_in_a_graph: the decode and sm80_gemm suites (each tunes or dispatches through
# its space), then a short tune of the sm90 spaces on two keys and a bench of what it chose.
set -u
o=$(mktemp -d)/j4; mkdir -p $o
pk() { tar czf $OUT/j4.tgz -C $(dirname $o) j4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=250 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="decode sm80_gemm" OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
s="--shape 16,4096,4096 --shape 2048,4096,4096"
W8A8_CACHE_DB=$o/t.db W8A8_KERNEL_DIR=/tmp/kj4 timeout 80 carry/static/w8a8 tune --budget 60 --json $s > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt
W8A8_CACHE_DB=$o/t.db W8A8_KERNEL_DIR=/tmp/kj4 W8A8_TUNE=off timeout 40 carry/static/w8a8 bench --json --graph $s > $o/bench.jsonl 2>> $o/tune.log
echo "bench $? $SECONDS s" >> $o/summary.txt; rm -f $o/t.db*; pk
