#!/usr/bin/env bash
# D15 (H200): D14's plain seeded tunes over the Llama per-tensor and per-row keys at M = 4096,
# then the shipped rows (A) against the winners (B), graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d15; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k15
keys=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  keys="$keys 4096,$nk"
done
echo "-$keys" > $o/groups.txt
for g in tensor row; do
  BUDGET=${D15_BUDGET:-150} CHUNK=8 bench/sweep_rows.sh $o/groups.txt $g fast $o/$g /tmp/d15-$g.db
  echo "$g $SECONDS" >> $o/gpu.txt
  gzip -c /tmp/d15-$g.db > $o/$g/tune.db.gz
  gzip $o/$g/tune-$g.jsonl
  tar czf $OUT/d15.tgz -C $OUT d15
done
tar czf $OUT/d15.tgz -C $OUT d15 && rm -rf $o
