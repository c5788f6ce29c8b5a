#!/usr/bin/env bash
# C5 (session 24, H200): (1) C4's overlap sweep on the shipped promoted per-tensor and per-row
# rows (cache/h200-llama3-promoted.sql, Llama M >= 512, all overlap 0: a plain tune never
# offered overlap there): each config tuned over overlap 0..3 (c4_prepare.py SCALE promoted,
# since bench/sweep_prepare.py --scale SCALE --accum promoted -> carry/c5-SCALE), then shipped
# (A) against the winners (B) as graph replays, 20 shapes a process, A B B A; (2) the
# DeepSeek-V3 and Llama M <= 512 grids, block scales, on the shipped caches with C4's 46 rows,
# beside peers.py.
set -u
o=$(mktemp -d)/c5; mkdir -p $o
pk() { tar czf $OUT/c5.tgz -C $(dirname $o) c5; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/kc5
args() { for s in $1; do printf ' --shape %s' $s; done; }
for sc in tensor row; do
  while read -r space shapes; do
    W8A8_CACHE_DB=/tmp/c5.db timeout 60 $b tune --space $space --scale $sc --accum promoted $(args "$shapes") --json >> $o/tune-$sc.jsonl 2>> $o/tune.log
    echo "tune $sc $space $? $SECONDS" >> $o/summary.txt
  done < carry/c5-$sc/groups.txt
done
pk
$b cache --db /tmp/c5.db export $o/c5.sql --winners 2>>$o/err.log
( export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for sc in tensor row; do
  all=$(cut -d' ' -f2- carry/c5-$sc/groups.txt | tr ' ' '\n' | sort -t, -k2n -k3n -k1n)
  set -- $all; r=0
  while [ $# -gt 0 ]; do
    c=""; for i in $(seq 20); do [ $# -gt 0 ] && { c="$c $1"; shift; }; done
    r=$((r+1)); q=0
    for v in A B B A; do db=/tmp/c5-empty.db; [ $v = B ] && db=/tmp/c5.db; q=$((q+1))
      W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$c") --scale $sc --accum promoted \
        | sed "s/^{/{\"build\": \"$v\", \"round\": $r, \"seq\": $q, /" >> $o/ab.jsonl 2>>$o/err.log
    done
  done
done )
echo "ab $SECONDS" >> $o/summary.txt; pk
( export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kg
  export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_SCALES="block,block"
  W8A8_PACK_NAME=grid-dsv3 OUT=$o timeout 100 scripts/gpu-session.sh bench-grid:dsv3 > $o/grid-dsv3.out 2>&1
  echo "dsv3 $? $SECONDS" >> $o/summary.txt
  W8A8_PACK_NAME=grid-small OUT=$o timeout 100 scripts/gpu-session.sh bench-grid:llama3-small > $o/grid-small.out 2>&1
  echo "small $? $SECONDS" >> $o/summary.txt ); pk
