#!/usr/bin/env bash
# E12 (session 16, H200): swap-AB with block scales. Suites swap, dispatch and sm90's block
# tcase; a fresh block,block tune of the 8 Llama (N, K) at M = 1…64 (every family); the decode
# grid's block rows: A (shipped) against B (with the new rows), beside torch.block and bf16.
set -u
o=$(mktemp -d)/e12; mkdir -p $o
pk() { tar czf $OUT/e12.tgz -C $(dirname $o) e12; }
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=tests W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=280 \
  W8A8_SUITES="swap dispatch sm90" W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk scripts/gpu-session.sh tests
echo "tests $SECONDS s" >> $o/summary.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k12
b=carry/static/w8a8
sb=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 2 4 8 16 32 64; do sb="$sb --shape $m,$nk"; done; done
W8A8_CACHE_DB=$o/block.db $b tune --budget 100 --scale block,block --json $sb > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
sd=""; for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do for m in 1 2 4 8 16 32; do sd="$sd --shape $m,$nk"; done; done
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/block.db
  W8A8_CACHE_DB=$db $b bench --json --no-cublaslt --graph $sd --scale block,block > $o/$v-block.jsonl 2>>$o/err.log
done
python3 carry/peers.py $sd --providers torch.block,torch.bf16 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
gzip $o/tune-block.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
