#!/usr/bin/env bash
# D12 (H200): seeded plain retunes of the FP8 per-tensor and per-row Llama keys at M = 8192
# (not retuned since tail=2 came), A B B A against the shipped rows (bench/sweep_rows.sh).
o=$OUT/d12; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k12
keys=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  keys="$keys 8192,$nk"
done
echo "-$keys" > $o/groups.txt
for s in tensor row; do
  BUDGET=${D12_BUDGET:-130} CHUNK=8 bench/sweep_rows.sh $o/groups.txt $s fast $o/$s /tmp/d12-$s.db
  echo "$s $SECONDS" >> $o/gpu.txt
  carry/static/w8a8 cache --db /tmp/d12-$s.db export $o/$s/winners.sql --winners >> $o/gpu.txt 2>&1
  gzip $o/$s/tune-$s.jsonl
done
tar czf $OUT/d12.tgz -C $OUT d12 && rm -rf $o
