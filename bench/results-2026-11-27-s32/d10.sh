#!/usr/bin/env bash
# D10 (H200): D9's plain seeded tunes (D9 shipped 5 of 8 block keys, 3 with tail 2) over the
# other Llama block keys of the M <= 512 grid (M 64, 128, 256, 512), then the shipped rows (A)
# against the winners (B), graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d10; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k10
done9=" 256,28672,4096 256,10240,8192 256,57344,8192 512,6144,4096 512,28672,4096 512,10240,8192 "
keys=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 64 128 256 512; do
    case "$done9" in *" $m,$nk "*) continue ;; esac
    keys="$keys $m,$nk"
  done
done
echo "-$keys" > $o/groups.txt
BUDGET=${D10_BUDGET:-300} CHUNK=14 bench/sweep_rows.sh $o/groups.txt block fast $o/block /tmp/d10-block.db
echo "block $SECONDS" >> $o/gpu.txt
gzip -c /tmp/d10-block.db > $o/block/tune.db.gz
gzip $o/block/tune-block.jsonl
tar czf $OUT/d10.tgz -C $OUT d10 && rm -rf $o
