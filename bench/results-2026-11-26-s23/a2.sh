#!/usr/bin/env bash
# A2 (session 23, H200): cuBLASLt runs 128x128 tiles with 6 stages and 2x1 clusters for both
# the block and the per-tensor shapes where we lose (A1). Epilogue 2 now stages one box at a
# time when a tile row is two boxes, so 6 stages of 128x128 fit beside the block scale areas.
# Narrowed tunes (carry/a2-block.lua: 128x128, 2 consumers, stages 4-6, cluster 1/2, epilogue
# 1/2, overlap 0/1, raster/group; carry/a2-tensor.lua: 128/256x128, consumers 1/2, stages 4-6,
# cluster 1/2, epilogue 1/2) of the losing keys; then the shipped rows (A) against the tunes'
# winners (B), 3 rounds alternating; peers beside.
set -u
o=$(mktemp -d)/a2; mkdir -p $o
pk() { tar czf $OUT/a2.tgz -C $(dirname $o) a2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
BK="512,4096,7168 512,4096,14336 256,8192,8192 512,8192,8192 256,8192,28672 512,4096,4096 256,28672,4096 512,7168,2048 4096,4096,7168"
TK="512,4096,14336 256,8192,8192 256,8192,28672 512,10240,8192 512,8192,8192 256,4096,14336"
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_KERNEL_DIR=/tmp/ka2
W8A8_CACHE_DB=/tmp/a2-new.db timeout 180 $b tune --space carry/a2-block.lua --scale block $(args "$BK") \
  --max-candidates 100 --budget 170 --json > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS" >> $o/summary.txt; pk
W8A8_CACHE_DB=/tmp/a2-new.db timeout 110 $b tune --space carry/a2-tensor.lua --scale tensor $(args "$TK") \
  --max-candidates 100 --budget 100 --json > $o/tune-tensor.jsonl 2> $o/tune-tensor.log
echo "tune tensor $? $SECONDS" >> $o/summary.txt; pk
$b cache --db /tmp/a2-new.db export $o/new.sql --winners 2>>$o/err.log
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for r in 1 2 3; do for v in A B; do db=/tmp/a2-empty.db; [ $v = B ] && db=/tmp/a2-new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$BK") --scale block | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/ab.jsonl 2>>$o/err.log
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$TK") --scale tensor | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/ab.jsonl 2>>$o/err.log
done; done
echo "ab $SECONDS" >> $o/summary.txt; pk
timeout 120 python3 carry/peers.py $(args "$BK $TK") --providers torch.block,torch.tensor.fast --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt; pk
