#!/usr/bin/env bash
# D4 (session 25, H200): D3 for per-tensor FP8: the 38 Llama keys at the M buckets between the
# grid's (24 ... 6144) that the shipped H200 cache lacked, a plain tune seeded from it, 4 s a
# key; the nearest bucket's row (A) against the new rows (B), A B B A.
set -u
o=$(mktemp -d)/d4; mkdir -p $o
pk() { tar czf $OUT/d4.tgz -C $(dirname $o) d4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd4 W8A8_CACHE_PATH=$PWD/cache CHUNK=20
echo "- 384,6144,4096 6144,6144,4096 24,8192,8192 48,8192,8192 96,8192,8192 192,8192,8192 384,8192,8192 768,8192,8192 1536,8192,8192 3072,8192,8192 6144,8192,8192 24,10240,8192 48,10240,8192 96,10240,8192 192,10240,8192 384,10240,8192 768,10240,8192 1536,10240,8192 3072,10240,8192 6144,10240,8192 24,57344,8192 48,57344,8192 96,57344,8192 192,57344,8192 384,57344,8192 768,57344,8192 1536,57344,8192 3072,57344,8192 6144,57344,8192 24,8192,28672 48,8192,28672 96,8192,28672 192,8192,28672 384,8192,28672 768,8192,28672 1536,8192,28672 3072,8192,28672 6144,8192,28672" > $o/groups-tensor.txt
BUDGET=152 bash bench/sweep_rows.sh $o/groups-tensor.txt tensor fast $o/tensor /tmp/d4.db
$W8A8 cache --db /tmp/d4.db export $o/tensor/new.sql --winners 2>> $o/err.log
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
echo "tensor $SECONDS" >> $o/summary.txt; pk
