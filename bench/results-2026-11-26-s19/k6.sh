#!/usr/bin/env bash
# K6 (session 19, H200): the H200 DeepSeek-V3 block-scaled rows that name an sm80_decode config
# with one row tile and several token tiles were tuned (session 15) before that config took
# the f16 path; K5 ran three of them 1.19-1.23x slower than their tuned time. Those 8 keys
# tuned again over every config of the plain spaces; A (shipped) / B (new rows over them),
# the peers between the rounds.
set -u
o=$(mktemp -d)/k6; mkdir -p $o
pk() { tar czf $OUT/k6.tgz -C $(dirname $o) k6; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kk6
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
S="16,7168,2048 16,7168,18432 16,7168,16384 16,4096,7168 16,2112,7168 16,1536,7168 24,2112,7168 96,576,7168"
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 250 $b tune --budget 210 --max-candidates 5000 --scale block --json $(args "$S") \
  > $o/tune-block.jsonl 2> $o/tune-block.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$S") --scale block > $o/$v$1-block.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 60 python3 carry/peers.py $(args "$S") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/new.db; pk
