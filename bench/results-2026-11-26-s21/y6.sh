#!/usr/bin/env bash
# Y6 (session 21, H200; Y5 ran on an H100 and its block tcase had configs over the shared-memory limit): wave=1 (128-row consumers promote their two 64-row sub-tiles in turn
# through one temporary set: block-scaled tiles of 256x112, one-consumer 128x128). The block
# tcase of check_gpu_sm90 (the new wave configs among the block configs), then a plain tune
# (64 best-ranked a space) of the block keys that matter most: dsv3 at M = 512..4096 and the
# Llama shapes at M = 128..512 below torch.block in X8; A (shipped) / B (new rows over them)
# twice with torch.block between.
set -u
o=$(mktemp -d)/y6; mkdir -p $o
pk() { tar czf $OUT/y6.tgz -C $(dirname $o) y6; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
export W8A8_KERNEL_DIR=/tmp/ky6
CK_FORK=no CK_RUN_CASE=block timeout 300 carry/static/tests/check_gpu_sm90 > $o/sm90-block.log 2>&1
echo "sm90 block rc=$? $SECONDS s" >> $o/summary.txt; pk
S=""; for m in 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do S="$S $m,$nk"; done; done
L="512,4096,4096 512,4096,14336 512,6144,4096 256,8192,8192 512,8192,8192 128,10240,8192 128,28672,4096 256,28672,4096"
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 200 $b tune --budget 180 --max-candidates 64 --scale block --json $(args "$S $L") \
  > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 90 $b bench --json --no-cublaslt --graph $(args "$S $L") --scale block > $o/$v$1.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 120 python3 carry/peers.py $(args "$S $L") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db $o/*.db-*; pk
