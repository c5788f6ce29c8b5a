#!/usr/bin/env bash
# D14 (H200): D13's plain seeded tunes over the Llama per-tensor keys at M = 1024 and 2048 and
# the block keys at M = 4096, then the shipped rows (A) against the winners (B), graph replays
# A B B A (bench/sweep_rows.sh).
o=$OUT/d14; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k14
nks="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
keys=""; for nk in $nks; do for m in 1024 2048; do keys="$keys $m,$nk"; done; done
echo "-$keys" > $o/g-tensor.txt
keys=""; for nk in $nks; do keys="$keys 4096,$nk"; done
echo "-$keys" > $o/g-block.txt
for g in tensor block; do
  BUDGET=${D14_BUDGET:-200} CHUNK=16 bench/sweep_rows.sh $o/g-$g.txt $g fast $o/$g /tmp/d14-$g.db
  echo "$g $SECONDS" >> $o/gpu.txt
  gzip -c /tmp/d14-$g.db > $o/$g/tune.db.gz
  gzip $o/$g/tune-$g.jsonl
  tar czf $OUT/d14.tgz -C $OUT d14
done
tar czf $OUT/d14.tgz -C $OUT d14 && rm -rf $o
