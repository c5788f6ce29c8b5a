#!/usr/bin/env bash
# D4 (H200): the other block-scaled H200 keys at M 4..48 whose shipped row is swap-AB (58
# keys; D3 took 19), retuned with the swap space as it is now (overlap 0..3; `tune --space
# sm90_swap --seed`, 32 candidates a key after the cache's winners), the best overlap > 0
# config against the best overlap 0 one per key (ov_table.txt), then the shipped rows (A)
# against the tune's winners (B) as 20-call graph replays A B B A (bench/bin_ab.sh), peers.py
# torch.block.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d4-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
S="$(cat bench/results-2026-12-02-s48/d4-keys.txt | tr '\n' ' ')"
args=""; for s in $S; do args="$args --shape $s"; done
rm -f /tmp/tuned.db
# shellcheck disable=SC2086
W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 200 $W tune $args --scale block,block \
  --space sm90_swap --seed --db /tmp/tuned.db --budget 180 --max-candidates 32 \
  --json > $o/tune.jsonl 2>> $o/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
python3 bench/results-2026-12-02-s48/ov_table.py $o/tune.jsonl > $o/ov_table.txt 2>&1
# shellcheck disable=SC2086
B_DB=/tmp/tuned.db CHUNK=30 BENCH_ARGS="--samples 20" timeout 200 bench/bin_ab.sh $W $W $o/ab.jsonl \
  block,block $S 2>> $o/err.txt
echo "ab $? $SECONDS" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $args --providers torch.block --out $o/peers.jsonl > $o/peers.log 2>&1
python3 bench/bin_ab.py $o/ab.jsonl $o/peers.jsonl torch.block > $o/ab_table.txt 2>&1
$W cache --db /tmp/tuned.db export $o/winners.sql --winners >> $o/gpu.txt 2>&1
W8A8_CACHE_PATH=$PWD/cache $W cache --db /tmp/empty-list.db --json list > $o/shipped.jsonl 2>> $o/err.txt
gzip -f $o/tune.jsonl
echo "done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
