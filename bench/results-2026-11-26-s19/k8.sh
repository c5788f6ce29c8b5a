#!/usr/bin/env bash
# K8/K9 (session 19, H200 then H100): the Llama-8B per-tensor rows at M = 24 and 48 (8 keys a
# GPU, h200-sm90.sql / h100-llama3-8b.sql) predate swap-AB; every config of the plain spaces;
# A (shipped) / B (new rows over them) twice, the peers between.
set -u
name=${1:-k8}
o=$(mktemp -d)/$name; mkdir -p $o
pk() { tar czf $OUT/$name.tgz -C $(dirname $o) $name; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kk8
nvidia-smi -L > $o/gpu.txt
b=carry/static/w8a8
S=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336; do for m in 24 48; do S="$S $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 200 $b tune --budget 170 --max-candidates 5000 --scale tensor --json $(args "$S") \
  > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$S") --scale tensor > $o/$v$1-tensor.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 60 python3 carry/peers.py $(args "$S") --providers torch.tensor.fast --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/new.db; pk
