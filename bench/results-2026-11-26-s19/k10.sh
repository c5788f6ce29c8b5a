#!/usr/bin/env bash
# K10 (session 19, H100): the H100 DeepSeek-V3 block-scaled rows at M <= 64 (session 17 H2, a 306 s tune of 225 keys);
# retuned as K7 did on the H200 (capped at
# the 64 best-ranked configs of each space);
# A (shipped) / B (new rows over them), the peers between the rounds.
set -u
o=$(mktemp -d)/k10; mkdir -p $o
pk() { tar czf $OUT/k10.tgz -C $(dirname $o) k10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kk10
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
ms=1,2,4,8,16,24,32,48,64
x=""; for m in 1 2 4 8 16 24 32 48 64; do x="$x --shape $m,2112,7168"; done
W8A8_CACHE_DB=$o/new.db timeout 370 $b tune --budget 330 --max-candidates 64 --model deepseek-v3 --m $ms $x --scale block --json \
  > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
s=""; for nk in 576,7168 1536,7168 2112,7168 4096,7168 7168,2048 7168,16384 7168,18432 24576,1536 32768,512 36864,7168; do
  for m in 1 2 4 8 16 24 32 48 64; do s="$s --shape $m,$nk"; done; done
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $s --scale block > $o/$v$1-block.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 80 python3 carry/peers.py $s --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/new.db; pk
