#!/usr/bin/env bash
# D4 (H200): the swap-AB row that tunes at ~24 us and benches at ~30 us (16x10240x8192
# per-tensor, block_m=128,block_n=16,...,swap=1,evict=0; sessions 16, 25 and D3). The same
# config with evict 0 and 1 and the shipped 64x80 row, each alone in a `w8a8 bench --graph`
# process, three rounds; evict 0 after two other shapes in one process; the tuner's own timing
# of the two swap configs (a narrowed sm90_swap space), twice; GPU clocks around.
set -u
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
W=$PWD/carry/static/w8a8
export W8A8_KERNEL_DIR=/tmp/kd4 W8A8_TUNE=off W8A8_CACHE_PATH=/tmp/d4-empty
mkdir -p /tmp/d4-empty
row=$(grep "10240, 8192, 16," bench/results-2026-11-27-s27/d3/tensor/new.sql)
cfg="block_m=128,block_n=16,stages=8,consumers=2,pingpong=1,split=1,specialize=1,swap=1,evict=0"
mk() { echo "$row" | sed "s/'$cfg'/'$2'/" > /tmp/$1.sql
       W8A8_CACHE_DB=/tmp/$1.db $W cache import /tmp/$1.sql >> $o/log 2>&1; }
mk e0 "$cfg"
mk e1 "${cfg%evict=0}evict=1"
mk g80 "block_m=64,block_n=80,stages=12,consumers=2,pingpong=1,raster=0,group=1,cluster=1,epilogue=0,split=1,specialize=1,overlap=0,stagger=0"
clk() { nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader >> $o/clocks.txt; }
clk
for r in 1 2 3; do
  for v in e0 e1 g80; do
    W8A8_CACHE_DB=/tmp/$v.db $W bench --json --graph --no-cublaslt --shape 16,10240,8192 \
      | sed "s/^{/{\"v\": \"$v\", \"r\": $r, /" >> $o/alone.jsonl 2>> $o/log
  done
done
clk
W8A8_CACHE_DB=/tmp/e0.db $W bench --json --graph --no-cublaslt --shape 16,4096,14336 \
  --shape 16,8192,8192 --shape 16,10240,8192 --shape 16,10240,8192 > $o/chunk.jsonl 2>> $o/log
python3 bench/narrow_space.py scripts/sm90_swap.lua \
  "block_m=128,block_n=16,stages=8,consumers=2,pingpong=1,split=1,specialize=1,swap=1,evict=0/1" \
  > /tmp/swap1.lua
for r in 1 2; do
  W8A8_CACHE_DB=/tmp/t$r.db $W tune --space /tmp/swap1.lua --shape 16,10240,8192 --json \
    >> $o/tune.jsonl 2>> $o/log
done
clk
# the tuner's database as the dispatcher's: bench right after, in a new process
W8A8_CACHE_DB=/tmp/t2.db $W bench --json --graph --no-cublaslt --shape 16,10240,8192 \
  > $o/after-tune.jsonl 2>> $o/log
clk
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
