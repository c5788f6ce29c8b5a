#!/usr/bin/env bash
# C7 (session 24, H100): C4's and C5's overlap sweep on the shipped H100 rows: block scales
# (182 keys at M >= 64, h100-dsv3.sql / h100-decode.sql), promoted per-tensor (40) and per-row
# (8) (h100-llama3-promoted.sql); each config tuned over overlap 0..3 (c4_prepare.py SCALE
# ACCUM H100, since bench/sweep_prepare.py --device H100 -> carry/c7-SCALE), then the shipped
# rows (A) against the winners (B) as graph replays, 20 shapes a process, A B B A.
set -u
o=$(mktemp -d)/c7; mkdir -p $o
pk() { tar czf $OUT/c7.tgz -C $(dirname $o) c7; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/kc7
args() { for s in $1; do printf ' --shape %s' $s; done; }
for x in "block fast" "tensor promoted" "row promoted"; do
  set -- $x; sc=$1; ac=$2
  while read -r space shapes; do
    W8A8_CACHE_DB=/tmp/c7.db timeout 60 $b tune --space $space --scale $sc --accum $ac $(args "$shapes") --json >> $o/tune-$sc.jsonl 2>> $o/tune.log
    echo "tune $sc $space $? $SECONDS" >> $o/summary.txt
  done < carry/c7-$sc/groups.txt
  pk
done
$b cache --db /tmp/c7.db export $o/c7.sql --winners 2>>$o/err.log
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for x in "block fast" "tensor promoted" "row promoted"; do
  set -- $x; sc=$1; ac=$2
  all=$(cut -d' ' -f2- carry/c7-$sc/groups.txt | tr ' ' '\n' | sort -t, -k2n -k3n -k1n)
  set -- $all; r=0
  while [ $# -gt 0 ]; do
    c=""; for i in $(seq 20); do [ $# -gt 0 ] && { c="$c $1"; shift; }; done
    r=$((r+1)); q=0
    for v in A B B A; do db=/tmp/c7-empty.db; [ $v = B ] && db=/tmp/c7.db; q=$((q+1))
      W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$c") --scale $sc --accum $ac \
        | sed "s/^{/{\"build\": \"$v\", \"round\": $r, \"seq\": $q, /" >> $o/ab.jsonl 2>>$o/err.log
    done
  done
  echo "ab $sc $SECONDS" >> $o/summary.txt; pk
done
