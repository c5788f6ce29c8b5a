#!/usr/bin/env bash
# D1 (H200): sm80_gemm's `stagger` launch argument (the first wave's CTAs of one SM start
# stagger · 1024 cycles apart, so their epilogues stop coinciding; negative: CTAs paired by
# parity instead of by wave order). INT8 per-row, the K = 4096 keys of issue 14's figure and
# three longer-K keys, tuned over a fixed space of the winners' tiles (4-warp 128×128 and 8-warp
# 128×256, 3 stages, prefetch 1, staged epilogue, group 1/8, persist 0/1) with the stagger
# values as variants, --settle 100. Then `w8a8 bench` of the winners against the same rows with
# the stagger taken out, rounds S N N S; then the sm80_gemm GPU suite.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/k-d1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=carry/static/w8a8
python3 bench/narrow_space.py scripts/sm80_gemm.lua "block_m=128,block_n=128/256,block_k=128,stages=3,warps_m=2,warps_n=2/4,slice_k=1,group=1/8,prefetch=1,epilogue=1,persist=0/1" > $o/fixed.lua
sh=""
for nk in 6144,4096 4096,4096 28672,4096; do for m in 2048 4096 8192; do sh="$sh --shape $m,$nk"; done; done
sh="$sh --shape 4096,8192,8192 --shape 4096,4096,14336 --shape 2048,8192,28672"
W8A8_CACHE_DB=$o/t.db timeout 330 $W tune --space $o/fixed.lua --dtype int8 --scale row $sh \
  --settle 100 --json > $o/tune.jsonl 2> $o/tune.err
echo "tune exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
W8A8_CACHE_DB=$o/t.db $W cache export $o/s.sql --winners >> $o/gpu.txt 2>&1
sed 's/,stagger=-\?[0-9]*//' $o/s.sql > $o/n.sql
W8A8_CACHE_DB=$o/n.db $W cache import $o/n.sql >> $o/gpu.txt 2>&1
for r in s1:s n1:n n2:n s2:s; do
  W8A8_CACHE_DB=$o/${r#*:}.db $W bench --json --no-cublaslt --dtype int8 --scale row $sh \
    > $o/bench-${r%%:*}.jsonl 2>> $o/bench.err
  echo "bench $r $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d1.tgz -C $OUT d1
[ $SECONDS -lt 420 ] && OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm80_gemm" \
  timeout $((560 - SECONDS)) scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
# (fixed.lua, narrow_space.py's output, is not kept: the line above makes it again.)
# (The bench rounds above found no s.db — the winners were exported to s.sql but never
# imported — so `w8a8 bench` ran the shipped sm90_gemm rows for both; their files were dropped.
# The A/B of D1 is the tuner's final pass in tune.jsonl.gz.)
