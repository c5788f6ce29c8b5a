#!/usr/bin/env bash
# C8 (session 24, H200): a plain tune (the embedded space, which now offers every overlap with
# promoted sums; budget 150 s) of 10 block-scaled keys at M >= 256 into a fresh database,
# then its winners (B) against the shipped rows (A) as graph replays, A B B A: does a
# first-run tune find the overlap configs on its own?
set -u
o=$(mktemp -d)/c8; mkdir -p $o
pk() { tar czf $OUT/c8.tgz -C $(dirname $o) c8; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
K="256,8192,8192 512,4096,14336 512,4096,7168 512,8192,28672 1024,7168,16384 1024,24576,1536 2048,7168,2048 4096,4096,7168 4096,2112,7168 512,32768,512"
args() { for s in $1; do printf ' --shape %s' $s; done; }
( unset W8A8_CACHE_PATH; W8A8_CACHE_DB=/tmp/c8-plain.db W8A8_KERNEL_DIR=/tmp/kc8 timeout 160 $b tune --scale block --budget 150 \
    $(args "$K") --json > $o/tune-plain.jsonl 2> $o/tune-plain.log
  echo "plain tune $? $SECONDS" >> $o/summary.txt
  $b cache --db /tmp/c8-plain.db export $o/plain.sql --winners 2>>$o/err.log
  q=0; for v in A B B A; do q=$((q+1))
    if [ $v = A ]; then env W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/c8-empty.db W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/kc8 \
        timeout 150 $b bench --json --no-cublaslt --graph $(args "$K") --scale block
    else W8A8_CACHE_DB=/tmp/c8-plain.db W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/kc8 \
        timeout 150 $b bench --json --no-cublaslt --graph $(args "$K") --scale block
    fi | sed "s/^{/{\"build\": \"$v\", \"seq\": $q, /" >> $o/ab-plain.jsonl 2>>$o/err.log
  done )
echo "ab plain $SECONDS" >> $o/summary.txt; pk
