#!/usr/bin/env bash
# X1 (session 20): overlap 2, 3 (K blocks in groups of 4, 8; one exposed promotion a group)
# against overlap 0, 1 on block-scaled dsv3 keys at M = 512, 2048, 4096: a narrowed named
# sm90_gemm space (128-row tiles, block_n 112/128, 4/5 stages, cluster 1/2, every overlap,
# stagger 0/1, specialize 1), every config timed; per-tensor fast on 3 keys as the
# no-promotion bound; then the dsv3 grid at M >= 512, A (shipped) / B (new rows), peers between.
set -u
o=$(mktemp -d)/x1; mkdir -p $o
pk() { tar czf $OUT/x1.tgz -C $(dirname $o) x1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/x1k
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
tar xJf carry/tests.tar.xz -C carry/static
for c in plan block; do CK_RUN_CASE=$c W8A8_CACHE_DB=/tmp/t.db timeout 170 carry/static/tests/check_gpu_sm90 > $o/sm90-$c.log 2>&1
  echo "sm90 $c $? $SECONDS s" >> $o/summary.txt; done; pk
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  block_m=128,block_n=112/128,stages=4/5,consumers=2,pingpong=0,raster=0,group=8,cluster=1/2,epilogue=1,split=1,specialize=1,overlap=0/1/2/3,stagger=0/1 \
  > /tmp/sm90_gemm.lua
mkdir -p /tmp/pt
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  block_m=128,block_n=112/128,stages=4/5,consumers=2,pingpong=0,raster=0,group=8,cluster=1/2,epilogue=1,split=1,specialize=1,overlap=0,stagger=0 \
  > /tmp/pt/sm90_gemm.lua
B=""; for m in 512 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do B="$B $m,$nk"; done; done
T="4096,4096,7168 4096,7168,16384 4096,24576,1536"
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 260 $b tune --budget 230 --max-candidates 3000 --space /tmp/sm90_gemm.lua \
  --scale block --json $(args "$B") > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune block $? $SECONDS s" >> $o/summary.txt; pk
W8A8_CACHE_DB=$o/pt.db timeout 80 $b tune --budget 60 --max-candidates 3000 --space /tmp/pt/sm90_gemm.lua \
  --scale tensor --json $(args "$T") > $o/tune-tensor.jsonl 2> $o/tune-tensor.log
echo "tune tensor $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$B") --scale block > $o/$v$1-block.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 100 python3 carry/peers.py $(args "$B") --providers torch.block \
  --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db $o/*.db-*; pk
