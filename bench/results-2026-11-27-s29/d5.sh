#!/usr/bin/env bash
# D5 (H200): swap-AB with 2-CTA clusters multicasting the token tile (cluster=2, new in the
# swap space), timed by the tuner against the same configs with cluster=1: a space narrowed to
# 64-row weight tiles (one consumer, two cooperative, ping-pong), 12 and 16 stages, evict-first
# weights, shapes compiled in, split 1, token tiles of 16 and 32 (M = 16, 32) over the decode
# grid's five (N, K), per-tensor FP8 and block scales; every measurement kept. Then the swap
# suite (its configs now with 2-CTA clusters, ping-pong, evict-first). One tarball.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
python3 bench/narrow_space.py scripts/sm90_swap.lua \
  "block_m=64,block_n=16/32,stages=12/16,consumers=1/2,pingpong=0/1,split=1,cluster=1/2,specialize=1,swap=1,evict=0/1" \
  > $o/narrow.lua || exit 2
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 16 32; do shapes="$shapes --shape $m,$nk"; done
done
for s in tensor block; do
  W8A8_CACHE_DB=$o/$s.db W8A8_KERNEL_DIR=/tmp/k5 timeout 200 carry/static/w8a8 tune \
    --space $o/narrow.lua --scale $s $shapes --json > $o/tune-$s.jsonl 2> $o/tune-$s.err
  echo "tune $s exit $? $SECONDS" >> $o/gpu.txt
done
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="swap" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 \
  W8A8_TEST_TIMEOUT=$((580 - SECONDS)) W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o \
  scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
