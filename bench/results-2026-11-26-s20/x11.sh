#!/usr/bin/env bash
# X11 (session 20, H100): evict=1 as on the H200 in X10, without the suites: a plain tune
# of the decode keys at M = 16, 32 (5 (N, K) x
# per-tensor, per-row, block; every space, the 64 best-ranked configs of each); the decode
# grid A (shipped) / B (the new rows over them), peers between.
set -u
o=$(mktemp -d)/x11; mkdir -p $o
pk() { tar czf $OUT/x11.tgz -C $(dirname $o) x11; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/kx11
b=carry/static/w8a8
S=""; for m in 16 32; do for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do S="$S $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
for g in tensor row block; do
  W8A8_CACHE_DB=$o/new.db timeout 100 $b tune --budget 80 --max-candidates 64 --scale $g --json $(args "$S") \
    > $o/tune-$g.jsonl 2> $o/tune-$g.log
  echo "tune $g $? $SECONDS s" >> $o/summary.txt
done; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  for g in tensor row block; do
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$S") --scale $g > $o/$v$1-$g.jsonl 2>>$o/err.log
  done; done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 100 python3 carry/peers.py $(args "$S") --providers torch.tensor.fast,torch.row.fast,torch.block,torch.bf16 \
  --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db $o/*.db-*; pk
