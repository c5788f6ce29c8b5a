#!/usr/bin/env bash
# D11 (session 25, H100): the block-scaled Llama keys at M = 1024...8192 the shipped H100
# cache lacked (32; the dispatcher took the nearest bucket's row), a plain tune seeded from
# the shipped cache, 4 s a key; A (the nearest bucket's row) against the new rows (B), A B B A.
set -u
o=$(mktemp -d)/d11; mkdir -p $o
pk() { tar czf $OUT/d11.tgz -C $(dirname $o) d11; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd11 W8A8_CACHE_PATH=$PWD/cache CHUNK=16
echo "- 1024,4096,4096 2048,4096,4096 4096,4096,4096 8192,4096,4096 1024,6144,4096 2048,6144,4096 4096,6144,4096 8192,6144,4096 1024,4096,14336 2048,4096,14336 4096,4096,14336 8192,4096,14336 1024,28672,4096 2048,28672,4096 4096,28672,4096 8192,28672,4096 1024,8192,8192 2048,8192,8192 4096,8192,8192 8192,8192,8192 1024,10240,8192 2048,10240,8192 4096,10240,8192 8192,10240,8192 1024,57344,8192 2048,57344,8192 4096,57344,8192 8192,57344,8192 1024,8192,28672 2048,8192,28672 4096,8192,28672 8192,8192,28672" > $o/groups-block.txt
BUDGET=128 bash bench/sweep_rows.sh $o/groups-block.txt block fast $o/block /tmp/d11.db
$W8A8 cache --db /tmp/d11.db export $o/block/new.sql --winners 2>> $o/err.log
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
echo "block $SECONDS" >> $o/summary.txt; pk
