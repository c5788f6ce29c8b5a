#!/usr/bin/env bash
# Y8 (session 21, H200): wave=1 configs only (carry/wave/sm90_gemm.lua, made from the commit's
# space by: bench/narrow_space.py scripts/sm90_gemm.lua "block_m=128/256,
# block_n=64/80/96/112/128,stages=2/3/4/5/6/7/8,consumers=1/2,pingpong=0/1,raster=0/1,
# group=1/4/8/16,cluster=1/2,epilogue=0/1/2,split=1,specialize=0/1,overlap=0,stagger=0/1,wave=1")
# tuned
# on 14 block-scaled keys below torch.block (Llama M = 128..512, dsv3 M = 512..4096), 96
# best-ranked a key; then A (shipped) / B (new rows over them) interleaved per shape, 3 rounds;
# torch.block once.
set -u
o=$(mktemp -d)/y8; mkdir -p $o
pk() { tar czf $OUT/y8.tgz -C $(dirname $o) y8; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky8
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
S="128,10240,8192 128,28672,4096 256,8192,8192 512,4096,4096 512,4096,14336 512,8192,8192 512,4096,7168 1024,4096,7168 2048,4096,7168 4096,4096,7168 2048,7168,16384 4096,7168,16384 2048,24576,1536 4096,24576,1536"
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 280 $b tune --space carry/wave/sm90_gemm.lua --budget 260 --max-candidates 96 --scale block --json $(args "$S") \
  > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for s in $S; do for r in 1 2 3; do for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 30 $b bench --json --no-cublaslt --graph --shape $s --scale block >> $o/$v$r.jsonl 2>>$o/err.log
done; done; done
echo "ab $SECONDS s" >> $o/summary.txt; pk
timeout 100 python3 carry/peers.py $(args "$S") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db $o/*.db-*; pk
