#!/usr/bin/env bash
# D9 (H200): plain seeded tunes (what a first run does; the space has offered tail=2 since
# session 31, and the Llama rows were tuned before it) of the Llama keys whose 128-row tiles
# leave a last wave of at most half the SMs (where tail 2 can split it: 512x10240x8192 is 320
# tiles of 128x128 = 2 x 132 + 56), per-tensor, per-row and block, then the shipped rows (A)
# against the tunes' winners (B), graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d9; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k9
echo "- 256,28672,4096 256,10240,8192 256,57344,8192 512,6144,4096 512,28672,4096 512,10240,8192 1024,6144,4096 1024,10240,8192" > $o/groups.txt
for g in tensor row block; do
  BUDGET=${D9_BUDGET:-120} CHUNK=8 bench/sweep_rows.sh $o/groups.txt $g fast $o/$g /tmp/d9-$g.db
  echo "$g $SECONDS" >> $o/gpu.txt
  gzip -c /tmp/d9-$g.db > $o/$g/tune.db.gz
  gzip $o/$g/tune-$g.jsonl
  tar czf $OUT/d9.tgz -C $OUT d9
done
tar czf $OUT/d9.tgz -C $OUT d9 && rm -rf $o
