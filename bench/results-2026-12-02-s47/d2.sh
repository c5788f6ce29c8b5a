#!/usr/bin/env bash
# D2 (H200): 2-CTA clusters (B multicast) for block-scaled FP8 at large M, where the plain
# tune's 96 best-ranked candidates hold none (the rank puts cluster 2 a step behind: measured
# no faster with per-tensor 128-row tiles) and three DeepSeek-V3 shapes run under torch.block
# (session 46, D4): `w8a8 tune --space sm90_cluster2.lua --seed` (sm90_gemm's space with
# cluster = {2}, split 1, tail 1, stages 2-16, made by bench/narrow_space.py below; the shipped
# rows timed first) into /tmp/tuned.db, then the
# shipped rows against the tuned ones as 20-call graph replays (ship tuned tuned ship,
# peers.py torch.block between).
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
space=/tmp/sm90_cluster2.lua
python3 bench/narrow_space.py scripts/sm90_gemm.lua "block_m=64/128/256,\
block_n=8/16/24/32/48/64/80/96/112/128/144/160/176/192/208/224/240/256,\
stages=2/3/4/5/6/7/8/9/10/11/12/13/14/15/16,consumers=1/2,pingpong=0/1,raster=0/1,\
group=1/4/8/16,cluster=2,epilogue=0/1/2,split=1,specialize=0/1,overlap=0/1/2/3/4/5,\
stagger=0/1,wave=0/1,tail=1" > $space
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
S="--shape 4096,4096,7168 --shape 4096,24576,1536 --shape 2048,7168,16384"
S="$S --shape 2048,24576,1536 --shape 2048,4096,7168"
# shellcheck disable=SC2086
W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 260 $W tune $S --scale block,block \
  --space $space --seed --db /tmp/tuned.db \
  --budget 240 --max-candidates 24 --json > $t/tune.jsonl 2> $t/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
two() { # label db round [args]
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$2 timeout 90 $W bench $S \
    --scale block,block --graph --json --no-cublaslt --samples 20 $4 > $t/$1-block-r$3.jsonl \
    2>> $t/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
two ship /tmp/empty.db 1; two tuned /tmp/tuned.db 1 --verify
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $S --providers torch.block --out $t/peers.jsonl \
  > $t/peers.log 2>&1
two tuned /tmp/tuned.db 2; two ship /tmp/empty.db 2
python3 bench/ab_rounds.py $t ship tuned block > $t/table.txt 2>&1
$W cache --db /tmp/tuned.db export $t/winners.sql --winners >> $o/gpu.txt 2>&1
gzip -f $t/tune.jsonl
echo "ab done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
