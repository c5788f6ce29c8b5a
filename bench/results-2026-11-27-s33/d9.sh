#!/usr/bin/env bash
# D9 (H200): 256x8192x8192 (one wave of 128 tiles of 128x128, K = 8192; about 15 TB/s of L2
# reads if the tensor cores ran at peak) with a 2-CTA cluster sharing the multicast weight
# tile (cuBLASLt's nvjet 128x128 2x1 does), the shipped rows' configs otherwise (carry/v/k2.sql;
# k2c.sql: two 64-row consumers, 5 stages), per-tensor, per-row, block; and D8's selected
# 2048x24576x1536 block row (carry/v/d8sel.sql) again, three A B B A rounds. User databases (B)
# against the shipped rows (A), bench/bin_ab.sh.
o=$OUT/d9; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k9
for v in k2 k2c d8sel; do carry/static/w8a8 cache --db /tmp/$v.db import carry/v/$v.sql >> $o/import.log 2>&1; done
for g in tensor,tensor row,row block,block; do
  for v in k2 k2c; do
    [ $v = k2c ] && [ $g = block,block ] && continue
    B_DB=/tmp/$v.db CHUNK=1 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-$v-${g%%,*}.jsonl $g \
      256,8192,8192 256,8192,8192 2>> $o/ab.err
  done
done
echo "cluster $SECONDS" >> $o/gpu.txt
B_DB=/tmp/d8sel.db CHUNK=1 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-d8sel.jsonl block,block \
  2048,24576,1536 2048,24576,1536 2048,24576,1536 2>> $o/ab.err
echo "d8sel $SECONDS" >> $o/gpu.txt
tar czf $OUT/d9.tgz -C $OUT d9 && rm -rf $o
