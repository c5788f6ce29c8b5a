#!/usr/bin/env bash
# D9 (H200): the GPU suites tune and sm90 (trigger=1 configs, the tuner with variants), then a
# first-run tune with no shipped rows to seed it (W8A8_CACHE_PATH empty: the space alone) of
# Llama keys at M = 128…512, per-tensor FP8 and INT8, into an empty database: sm90_gemm's
# variant trigger=1 is tried on each finalist and timed beside it in the final pass (graph
# replays, three rounds). variants.py reads the pairs and the winners from the --json output.
o=$OUT/d9; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="tune sm90" \
  scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? at $SECONDS s" >> $o/gpu.txt
tar czf $OUT/d9.tgz -C $OUT d9
W=carry/static/w8a8
export W8A8_CACHE_PATH= W8A8_KERNEL_DIR=/tmp/k9
sh="--shape 256,6144,4096 --shape 256,4096,14336 --shape 256,28672,4096 --shape 256,8192,8192"
sh="$sh --shape 512,4096,4096 --shape 128,6144,4096"
$W tune $sh --db /tmp/t9.db --budget 120 --json > $o/tune-tensor.jsonl 2> $o/tune-tensor.err
echo "tune tensor exit $? at $SECONDS s" >> $o/gpu.txt
$W tune --shape 256,4096,14336 --shape 256,8192,8192 --shape 512,28672,4096 --shape 128,6144,4096 \
  --dtype int8 --db /tmp/t9.db --budget 80 --json > $o/tune-int8.jsonl 2> $o/tune-int8.err
echo "tune int8 exit $? at $SECONDS s" >> $o/gpu.txt
$W cache --db /tmp/t9.db export $o/t9.sql 2>> $o/tune-int8.err
tar czf $OUT/d9.tgz -C $OUT d9 && rm -rf $o
