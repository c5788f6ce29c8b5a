#!/usr/bin/env bash
# D11 (H200): D10's seeded plain INT8 retune over the Llama keys at M = 64…512 and M = 8192,
# A B B A against the shipped rows (bench/sweep_rows.sh).
o=$OUT/d11; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k11
nks="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
keys=""
for nk in $nks; do for m in 64 128 256 512; do keys="$keys $m,$nk"; done; done
echo "-$keys" > $o/groups-small.txt
DTYPE=int8 BUDGET=${D11_BUDGET:-160} CHUNK=16 bench/sweep_rows.sh $o/groups-small.txt tensor fast $o/small /tmp/d11-small.db
echo "small $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db /tmp/d11-small.db export $o/small/winners.sql --winners >> $o/gpu.txt 2>&1
keys=""
for nk in $nks; do keys="$keys 8192,$nk"; done
echo "-$keys" > $o/groups-8192.txt
DTYPE=int8 BUDGET=${D11_BUDGET8K:-120} CHUNK=8 bench/sweep_rows.sh $o/groups-8192.txt tensor fast $o/m8192 /tmp/d11-8192.db
echo "8192 $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db /tmp/d11-8192.db export $o/m8192/winners.sql --winners >> $o/gpu.txt 2>&1
gzip $o/small/tune-tensor.jsonl $o/m8192/tune-tensor.jsonl
tar czf $OUT/d11.tgz -C $OUT d11 && rm -rf $o
