#!/usr/bin/env bash
# C3 (session 24, H200): C2's narrowed tunes (specialize 0) found overlap 3 the fastest
# block config on 7 of 8 keys since A's scales travel by bulk copy. The same with
# specialize 1 (as the shipped rows), cluster 1/2, group 8/16, overlap 0-3 (carry/c3-block.lua)
# on the block keys where we trail torch.block, and a 128x128 per-tensor space
# (carry/c3-tensor.lua: consumers 1/2, stages 5/6, cluster 1/2, epilogue 1/2) on the
# per-tensor ones; then the shipped rows against the tunes' winners as graph replays,
# 2 rounds in each order, torch.block / torch.tensor.fast beside. The spaces:
#   bench/narrow_space.py scripts/sm90_gemm.lua block_m=128,block_n=128,stages=4/5,consumers=2,\
#     pingpong=0,raster=0,group=8/16,cluster=1/2,epilogue=1,split=1,specialize=1,\
#     overlap=0/1/2/3,stagger=0,wave=0 > carry/c3-block.lua
#   bench/narrow_space.py scripts/sm90_gemm.lua block_m=128,block_n=128,stages=5/6,\
#     consumers=1/2,pingpong=0,raster=0,group=8/16,cluster=1/2,epilogue=1/2,split=1,\
#     specialize=1,overlap=0,stagger=0,wave=0 > carry/c3-tensor.lua
set -u
o=$(mktemp -d)/c3; mkdir -p $o
pk() { tar czf $OUT/c3.tgz -C $(dirname $o) c3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
BK="512,4096,7168 512,4096,14336 512,4096,4096 256,8192,8192 256,6144,4096 128,10240,8192 4096,4096,7168 2048,7168,2048 512,57344,8192 512,7168,16384"
TK="512,4096,14336 256,8192,8192 256,4096,14336 512,4096,4096 512,8192,8192"
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_KERNEL_DIR=/tmp/kc3
W8A8_CACHE_DB=/tmp/c3.db timeout 220 $b tune --space carry/c3-block.lua --scale block $(args "$BK") \
  --max-candidates 100 --budget 210 --json > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS" >> $o/summary.txt; pk
W8A8_CACHE_DB=/tmp/c3.db timeout 120 $b tune --space carry/c3-tensor.lua --scale tensor $(args "$TK") \
  --max-candidates 100 --budget 110 --json > $o/tune-tensor.jsonl 2> $o/tune-tensor.log
echo "tune tensor $? $SECONDS" >> $o/summary.txt; pk
$b cache --db /tmp/c3.db export $o/c3.sql --winners 2>>$o/err.log
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for r in 1 2; do for v in A B B A; do db=/tmp/c3-empty.db; [ $v = B ] && db=/tmp/c3.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$BK") --scale block | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/ab.jsonl 2>>$o/err.log
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$TK") --scale tensor | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/ab.jsonl 2>>$o/err.log
done; done
echo "ab $SECONDS" >> $o/summary.txt; pk
timeout 120 python3 carry/peers.py $(args "$BK $TK") --providers torch.block,torch.tensor.fast --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt; pk
