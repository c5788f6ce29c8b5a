#!/usr/bin/env bash
# D10 (session 25, H200): the per-tensor FP8 rows the H200 cache already held at the M buckets
# between the grid's for the Llama-3.1-8B (N, K) (36 keys, tuned in earlier sessions; D1 had
# retuned 7 of them), a plain tune seeded from the shipped cache, 3 s a key; shipped (A)
# against the new rows (B), A B B A.
set -u
o=$(mktemp -d)/d10; mkdir -p $o
pk() { tar czf $OUT/d10.tgz -C $(dirname $o) d10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd10 W8A8_CACHE_PATH=$PWD/cache CHUNK=20
echo "- 24,4096,4096 48,4096,4096 96,4096,4096 192,4096,4096 384,4096,4096 768,4096,4096 1536,4096,4096 3072,4096,4096 6144,4096,4096 24,6144,4096 48,6144,4096 96,6144,4096 192,6144,4096 384,6144,4096 768,6144,4096 1536,6144,4096 3072,6144,4096 6144,6144,4096 24,4096,14336 48,4096,14336 96,4096,14336 192,4096,14336 384,4096,14336 768,4096,14336 1536,4096,14336 3072,4096,14336 6144,4096,14336 24,28672,4096 48,28672,4096 96,28672,4096 192,28672,4096 384,28672,4096 768,28672,4096 1536,28672,4096 3072,28672,4096 6144,28672,4096" > $o/groups-tensor.txt
BUDGET=108 bash bench/sweep_rows.sh $o/groups-tensor.txt tensor fast $o/tensor /tmp/d10.db
$W8A8 cache --db /tmp/d10.db export $o/tensor/new.sql --winners 2>> $o/err.log
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
echo "tensor $SECONDS" >> $o/summary.txt; pk
