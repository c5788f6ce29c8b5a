#!/usr/bin/env bash
# D13 (H200): D10/D11's plain seeded tunes over the Llama keys at M = 1024 and 2048 (tuned
# before tail=2 existed), block and per-row, then the shipped rows (A) against the winners (B),
# graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d13; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k13
keys=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1024 2048; do keys="$keys $m,$nk"; done
done
echo "-$keys" > $o/groups.txt
for g in block row; do
  BUDGET=${D13_BUDGET:-200} CHUNK=16 bench/sweep_rows.sh $o/groups.txt $g fast $o/$g /tmp/d13-$g.db
  echo "$g $SECONDS" >> $o/gpu.txt
  gzip -c /tmp/d13-$g.db > $o/$g/tune.db.gz
  gzip $o/$g/tune-$g.jsonl
  tar czf $OUT/d13.tgz -C $OUT d13
done
tar czf $OUT/d13.tgz -C $OUT d13 && rm -rf $o
