#!/usr/bin/env bash
# C4 (session 24, H200): does overlap 2/3 now pay on the shipped block rows? C3 found 128x128
# block tiles with overlap 2/3 (offered only in a named tune since session 20, X1) 2-6 %
# faster than the shipped rows on 7 of 10 keys, now that A's scales travel by bulk copy.
# Every shipped H200 block-scaled sm90_gemm row at M bucket >= 64 (not swap, wave or split;
# 189 keys in 84 groups of one config: c4_prepare.py, since bench/sweep_prepare.py, which
# keeps wave and split rows -> carry/c4) tuned over its own config with overlap 0..3 into
# /tmp/c4.db (each candidate verified by the tuner); then the shipped rows (A) against that
# database's winners (B) as graph replays, 20 shapes a process, in the order A B B A (the
# loops are bench/sweep_rows.sh since).
set -u
o=$(mktemp -d)/c4; mkdir -p $o
pk() { tar czf $OUT/c4.tgz -C $(dirname $o) c4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/kc4
args() { for s in $1; do printf ' --shape %s' $s; done; }
while read -r space shapes; do
  W8A8_CACHE_DB=/tmp/c4.db timeout 60 $b tune --space $space --scale block $(args "$shapes") --json >> $o/tune.jsonl 2>> $o/tune.log
  echo "tune $space $? $SECONDS" >> $o/summary.txt
  [ $SECONDS -gt 330 ] && break
done < carry/c4/groups.txt
pk
$b cache --db /tmp/c4.db export $o/c4.sql --winners 2>>$o/err.log
all=$(cut -d' ' -f2- carry/c4/groups.txt | tr ' ' '\n' | sort -t, -k2n -k3n -k1n)
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
chunk() { # round shapes...
  local r=$1; shift
  local q=0
  for v in A B B A; do db=/tmp/c4-empty.db; [ $v = B ] && db=/tmp/c4.db; q=$((q+1))
    W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$*") --scale block \
      | sed "s/^{/{\"build\": \"$v\", \"round\": $r, \"seq\": $q, /" >> $o/ab.jsonl 2>>$o/err.log
  done
}
set -- $all; r=0
while [ $# -gt 0 ]; do
  c=""; for i in $(seq 20); do [ $# -gt 0 ] && { c="$c $1"; shift; }; done
  r=$((r+1)); chunk $r $c
done
echo "ab $SECONDS" >> $o/summary.txt; pk
