#!/usr/bin/env bash
# G1 (session 17, H200): deep tunes (512 candidates a key, graph-timed finals) of the Llama keys
# at M <= 512 that E8 left below their torch peer, then those shapes with the shipped rows (A)
# and with the new rows over them (B), interleaved twice, graph replays, beside the peers.
set -u
o=$(mktemp -d)/g1; mkdir -p $o
pk() { tar czf $OUT/g1.tgz -C $(dirname $o) g1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k1
b=carry/static/w8a8
T="256,4096,4096 512,4096,14336 128,6144,4096 128,8192,8192 256,8192,8192 512,8192,8192 128,8192,28672"
R="512,4096,14336 256,8192,8192"
B="512,4096,4096 512,4096,14336 256,6144,4096 512,6144,4096 256,8192,8192 512,8192,8192 128,10240,8192 128,28672,4096 512,28672,4096 512,57344,8192"
args() { for s in $1; do printf ' --shape %s' $s; done; }
tune() { # granularity shapes budget
  W8A8_CACHE_DB=$o/new.db timeout $(($3 + 30)) $b tune --budget $3 --max-candidates 512 --scale $1 --json $(args "$2") \
    > $o/tune-$1.jsonl 2> $o/tune-$1.log
  echo "tune $1 $? $SECONDS s" >> $o/summary.txt; pk
}
tune tensor "$T" 130
tune row "$R" 50
tune block "$B" 170
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for r in 1 2; do for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  for g in tensor row block; do s=$T; [ $g = row ] && s=$R; [ $g = block ] && s=$B
    W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$s") --scale $g > $o/$v$r-$g.jsonl 2>>$o/err.log
  done; done; done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 120 python3 carry/peers.py $(args "$T $R $B") --providers torch.tensor.fast,torch.row.fast,torch.block \
  --out $o/peers.jsonl > /dev/null 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
