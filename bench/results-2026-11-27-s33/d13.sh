#!/usr/bin/env bash
# D13 (H200): seeded plain retunes of the INT8 Llama keys at M = 1…32 (the decode grid's M and
# the Llama grid's 1 and 16) and of the FP8 block Llama keys at M = 8192, A B B A against the
# shipped rows (bench/sweep_rows.sh).
o=$OUT/d13; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k13
nks="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
keys=""
for nk in $nks; do for m in 1 2 4 8 16 32; do keys="$keys $m,$nk"; done; done
echo "-$keys" > $o/groups-int8.txt
DTYPE=int8 BUDGET=${D13_BUDGET:-170} CHUNK=16 bench/sweep_rows.sh $o/groups-int8.txt tensor fast $o/int8 /tmp/d13-int8.db
echo "int8 $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db /tmp/d13-int8.db export $o/int8/winners.sql --winners >> $o/gpu.txt 2>&1
keys=""
for nk in $nks; do keys="$keys 8192,$nk"; done
echo "-$keys" > $o/groups-block.txt
BUDGET=${D13_BUDGET8K:-130} CHUNK=8 bench/sweep_rows.sh $o/groups-block.txt block fast $o/block /tmp/d13-block.db
echo "block $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db /tmp/d13-block.db export $o/block/winners.sql --winners >> $o/gpu.txt 2>&1
gzip $o/int8/tune-tensor.jsonl $o/block/tune-block.jsonl
tar czf $OUT/d13.tgz -C $OUT d13 && rm -rf $o
