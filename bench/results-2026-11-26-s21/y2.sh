#!/usr/bin/env bash
# Y2 (session 21, H200): session 20's X13 (which ran on an H100) on the H200: a plain tune of the
# Llama keys at M <= 64 that X10 left out (M = 16 x 6144x4096, 4096x4096, 10240x8192; M = 64 x
# the 8 Llama (N, K)), 64 best-ranked configs a space, per scale kind; and the per-tensor decode
# keys below torch.tensor.fast in X14 / X8 (16 and 32 x 8192x28672, 1, 8 and 16 x 57344x8192)
# over 256 a space. A (shipped) / B (the new rows over them), peers between the two rounds.
set -u
o=$(mktemp -d)/y2; mkdir -p $o
pk() { tar czf $OUT/y2.tgz -C $(dirname $o) y2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/ky2
b=carry/static/w8a8
S="16,6144,4096 16,4096,4096 16,10240,8192"; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S 64,$nk"; done
T="16,8192,28672 32,8192,28672 1,57344,8192 8,57344,8192 16,57344,8192"
args() { for s in $1; do printf ' --shape %s' $s; done; }
for g in tensor row block; do
  W8A8_CACHE_DB=$o/new.db timeout 100 $b tune --budget 80 --max-candidates 64 --scale $g --json $(args "$S") \
    > $o/tune-$g.jsonl 2> $o/tune-$g.log
  echo "tune $g $? $SECONDS s" >> $o/summary.txt
done; pk
W8A8_CACHE_DB=$o/new.db timeout 130 $b tune --budget 110 --max-candidates 256 --scale tensor --json $(args "$T") \
  > $o/tune-deep.jsonl 2> $o/tune-deep.log
echo "tune deep $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  for g in tensor row block; do
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$S") --scale $g > $o/$v$1-$g.jsonl 2>>$o/err.log
  done
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$T") --scale tensor > $o/$v$1-deep.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 120 python3 carry/peers.py $(args "$S $T") --providers torch.tensor.fast,torch.row.fast,torch.block,torch.bf16 \
  --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db $o/*.db-*; pk
