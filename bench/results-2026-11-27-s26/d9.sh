#!/usr/bin/env bash
# D9 (H200): the per-tensor FP8 rows of the Llama grid at M >= 1024 (32 keys; most tuned before
# shape specialization, overlap and epilogue 2 existed; D1 had 6 of them below torch.tensor.fast),
# a plain tune seeded from the shipped cache, about 6 s a key; shipped (A) against the new rows (B),
# A B B A.
set -u
o=$(mktemp -d)/d9; mkdir -p $o
pk() { tar czf $OUT/d9.tgz -C $(dirname $o) d9; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd9 W8A8_CACHE_PATH=$PWD/cache CHUNK=16
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1024 2048 4096 8192; do shapes="$shapes $m,$nk"; done
done
echo "-$shapes" > $o/groups-tensor.txt
BUDGET=200 bash bench/sweep_rows.sh $o/groups-tensor.txt tensor fast $o/tensor /tmp/d9.db
$W8A8 cache --db /tmp/d9.db export $o/tensor/new.sql --winners 2>> $o/err.log
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
gzip $o/shipped.jsonl
echo "tensor $SECONDS" >> $o/summary.txt; pk
