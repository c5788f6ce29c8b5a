#!/usr/bin/env bash
# D10 (H200): D9 for the per-row FP8 rows of the Llama grid at M >= 1024 (32 keys; most tuned before
# shape specialization, overlap and epilogue 2 existed; D1 had 6 of them below torch.tensor.fast),
# a plain tune seeded from the shipped cache, about 6 s a key; shipped (A) against the new rows (B),
# A B B A.
set -u
o=$(mktemp -d)/d10; mkdir -p $o
pk() { tar czf $OUT/d10.tgz -C $(dirname $o) d10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd10 W8A8_CACHE_PATH=$PWD/cache CHUNK=16
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1024 2048 4096 8192; do shapes="$shapes $m,$nk"; done
done
echo "-$shapes" > $o/groups-row.txt
BUDGET=200 bash bench/sweep_rows.sh $o/groups-row.txt row fast $o/row /tmp/d10.db
$W8A8 cache --db /tmp/d10.db export $o/row/new.sql --winners 2>> $o/err.log
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
gzip $o/shipped.jsonl
echo "row $SECONDS" >> $o/summary.txt; pk
