#!/usr/bin/env bash
# K3 (session 19): occupancy=2 (two CTAs an SM). The sm90 suite's plan tcase (two_ctas_an_sm:
# grids, the reference, bitwise the occupancy-1 output); every config of the plain spaces (now
# with occupancy 2 at M <= 64) on the per-tensor keys at M <= 64 below their peer on the H200
# (session 17's H9, K1); A (shipped) / B (new rows over them) with the peers between rounds.
set -u
o=$(mktemp -d)/k3; mkdir -p $o
pk() { tar czf $OUT/k3.tgz -C $(dirname $o) k3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
d=$(mktemp -d); root=$PWD
(cd $d && CK_RUN_CASE=plan CK_FORK=no W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db timeout 200 \
  $root/carry/static/tests/check_gpu_sm90 > $o/sm90-plan.log 2>&1; echo "sm90 plan $? $SECONDS s" >> $o/summary.txt)
pk
export W8A8_KERNEL_DIR=/tmp/k3
b=carry/static/w8a8
T="16,10240,8192 16,8192,28672 32,8192,28672 1,57344,8192 16,57344,8192 64,8192,28672 64,57344,8192"
args() { for s in $1; do printf ' --shape %s' $s; done; }
W8A8_CACHE_DB=$o/new.db timeout 260 $b tune --budget 220 --max-candidates 5000 \
  --scale tensor --json $(args "$T") > $o/tune-tensor.jsonl 2> $o/tune-tensor.log
echo "tune tensor $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
round() { for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$T") --scale tensor > $o/$v$1-tensor.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 100 python3 carry/peers.py $(args "$T") --providers torch.tensor.fast,torch.bf16 \
  --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2
$b cache --db $o/new.db export $o/new.sql --winners 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/new.db; pk
