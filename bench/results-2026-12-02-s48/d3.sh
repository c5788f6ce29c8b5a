#!/usr/bin/env bash
# D3 (H200): overlap with swap-AB (block scales: each K block promoted while the next one's
# wgmmas run, the template's OVERLAP loop, now allowed with SWAP and offered by
# scripts/sm90_swap.lua as overlap 0..3). At 19 block-scaled decode keys (M 8, 16, 32 × the
# decode grid's 5 (N, K); M 16 × 4 DeepSeek-V3 (N, K)), two narrowed swap tunes into one
# database: overlap 0 (--seed: the shipped rows timed first) and overlap 1..3, 24 candidates
# a key each; per key the best of each (ov_table.txt). Then the shipped rows (A) against the
# database's winners (B), 20-call graph replays A B B A (bench/bin_ab.sh), peers.py
# torch.block, and the swap GPU suite (overlap configs on odd shapes).
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d3-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
all="block_m=64/128/256,block_n=8/16/24/32/48/64,block_k=128/256/512,stages=4/6/8/10/12/16,\
consumers=1/2,pingpong=0/1,cluster=1/2,split=1/2/4,specialize=0/1,swap=1,evict=0/1"
python3 bench/narrow_space.py scripts/sm90_swap.lua "$all,overlap=0" > /tmp/swap_ov0.lua
python3 bench/narrow_space.py scripts/sm90_swap.lua "$all,overlap=1/2/3" > /tmp/swap_ov1.lua
S=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 8 16 32; do S="$S $m,$nk"; done
done
S="$S 16,4096,7168 16,7168,2048 16,7168,16384 16,24576,1536"
args=""; for s in $S; do args="$args --shape $s"; done
rm -f /tmp/tuned.db
for sp in ov0 ov1; do
  seed=""; [ $sp = ov0 ] && seed=--seed
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 200 $W tune $args --scale block,block \
    --space /tmp/swap_$sp.lua $seed --db /tmp/tuned.db --budget 180 --max-candidates 24 \
    --json > $o/tune-$sp.jsonl 2>> $o/tune.err
  echo "tune $sp $? $SECONDS" >> $o/gpu.txt
done
python3 bench/results-2026-12-02-s48/ov_table.py $o/tune-ov0.jsonl $o/tune-ov1.jsonl > $o/ov_table.txt 2>&1
# shellcheck disable=SC2086
B_DB=/tmp/tuned.db CHUNK=20 BENCH_ARGS="--samples 20" bench/bin_ab.sh $W $W $o/ab.jsonl block,block $S \
  2>> $o/err.txt
echo "ab $? $SECONDS" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $args --providers torch.block --out $o/peers.jsonl > $o/peers.log 2>&1
python3 bench/bin_ab.py $o/ab.jsonl $o/peers.jsonl torch.block > $o/ab_table.txt 2>&1
$W cache --db /tmp/tuned.db export $o/winners.sql --winners >> $o/gpu.txt 2>&1
W8A8_CACHE_PATH=$PWD/cache $W cache --db /tmp/empty-list.db --json list > $o/shipped.jsonl 2>> $o/err.txt
gzip -f $o/tune-*.jsonl
echo "ab done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES=swap timeout 330 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "suites $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3
