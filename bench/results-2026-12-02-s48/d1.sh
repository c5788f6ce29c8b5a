#!/usr/bin/env bash
# D1 (H200): block_n = 56 (7168 = 128 tiles of 56: DeepSeek-V3's hidden size in one wave of
# 128 CTAs, both consumers of a 128-row tile busy) at the block-scaled keys M = 64, 128 ×
# N 7168 × K 2048, 16384, where the shipped rows run 112 tiles of 64×128 (20 SMs idle).
# Two narrowed tunes into one database, so the tuner times 56 against 112 / 128 on its own
# measurements (bench/param_wins.py ... block_n 56): sm90_56.lua (block_n 56 only) and
# sm90_wide.lua (112, 128; --seed: the shipped rows timed first). Then the shipped rows (A)
# against the database's winners (B) as 20-call graph replays, A B B A (bench/bin_ab.sh),
# peers.py torch.block on the same shapes; then check_gpu_sm90's tcases (the new 56-column
# configs on odd shapes).
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d1-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
common="block_m=64/128,stages=4/5/6/7/8/10/12,consumers=1/2,pingpong=0/1,raster=0/1,group=8,\
cluster=1,epilogue=1/2,split=1/2,specialize=1,overlap=1/2/3,stagger=0,wave=0,tail=1/2"
python3 bench/narrow_space.py scripts/sm90_gemm.lua "block_n=56,$common" > /tmp/sm90_56.lua
python3 bench/narrow_space.py scripts/sm90_gemm.lua "block_n=112/128,$common" > /tmp/sm90_wide.lua
S="64,7168,2048 128,7168,2048 64,7168,16384 128,7168,16384"
args=""; for s in $S; do args="$args --shape $s"; done
rm -f /tmp/tuned.db
for sp in 56 wide; do
  seed=""; [ $sp = wide ] && seed=--seed
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 150 $W tune $args --scale block,block \
    --space /tmp/sm90_$sp.lua $seed --db /tmp/tuned.db --budget 130 --max-candidates 64 \
    --json > $o/tune-$sp.jsonl 2>> $o/tune.err
  echo "tune $sp $? $SECONDS" >> $o/gpu.txt
done
python3 bench/param_wins.py /tmp/tuned.db block_n 56 --scale block > $o/param_wins.txt 2>&1
# shellcheck disable=SC2086
B_DB=/tmp/tuned.db CHUNK=4 BENCH_ARGS="--samples 20" bench/bin_ab.sh $W $W $o/ab.jsonl block,block $S \
  2>> $o/err.txt
echo "ab $? $SECONDS" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $args --providers torch.block --out $o/peers.jsonl > $o/peers.log 2>&1
python3 bench/bin_ab.py $o/ab.jsonl $o/peers.jsonl torch.block > $o/ab_table.txt 2>&1
$W cache --db /tmp/tuned.db export $o/winners.sql --winners >> $o/gpu.txt 2>&1
W8A8_CACHE_PATH=$PWD/cache $W cache --db /tmp/empty-list.db --json list > $o/shipped.jsonl 2>> $o/err.txt
gzip -f $o/tune-*.jsonl
echo "ab done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES=sm90 timeout 260 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "sm90 suite $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
