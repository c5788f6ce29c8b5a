#!/usr/bin/env bash
# X12 (session 20, H200): evict=1 offered by sm90_gemm's own space at M <= 64. A plain tune
# of the decode keys where a non-swap sm90_gemm row won X10 (M = 16, 32 x 28672x4096,
# 57344x8192 x per-tensor, per-row, block; every space, the 64 best-ranked configs of each);
# A (shipped) / B (the new rows over them), peers between.
set -u
o=$(mktemp -d)/x12; mkdir -p $o
pk() { tar czf $OUT/x12.tgz -C $(dirname $o) x12; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/kx12
b=carry/static/w8a8
S=""; for m in 16 32; do for nk in 28672,4096 57344,8192; do S="$S $m,$nk"; done; done
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
