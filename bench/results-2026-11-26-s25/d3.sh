#!/usr/bin/env bash
# D3 (session 25, H200): the per-row FP8 keys of the Llama (N, K) at the M buckets between the
# grid's (24 ... 6144), which the shipped H200 cache lacked (the dispatcher took the nearest
# bucket's row): a plain tune seeded from the shipped cache, 4 s a key; the nearest bucket's row
# (A, the shipped caches) against the new rows (B), A B B A.
set -u
o=$(mktemp -d)/d3; mkdir -p $o
pk() { tar czf $OUT/d3.tgz -C $(dirname $o) d3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd3 W8A8_CACHE_PATH=$PWD/cache CHUNK=24
S=""
for nk in 4096,4096 6144,4096 4096,14336 28672,4096 8192,8192 10240,8192 57344,8192 8192,28672; do
  for m in 24 48 96 192 384 768 1536 3072 6144; do S="$S $m,$nk"; done; done
echo "- $S" > $o/groups-row.txt
BUDGET=290 bash bench/sweep_rows.sh $o/groups-row.txt row fast $o/row /tmp/d3-row.db
$W8A8 cache --db /tmp/d3-row.db export $o/row/new.sql --winners 2>> $o/err.log
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
echo "row $SECONDS" >> $o/summary.txt; pk
