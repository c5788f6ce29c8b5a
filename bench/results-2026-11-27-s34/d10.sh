#!/usr/bin/env bash
# D10 (H200): seeded plain retunes with `--settle 100` of the shapes below their torch peer in
# session 33's D14 (issue 10's acceptance 1): per-tensor 10 keys, per-row 2, block 2, A B B A
# against the shipped rows (bench/sweep_rows.sh).
o=$OUT/d10; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k10
echo "- 1,57344,8192 2,57344,8192 4,57344,8192 16,8192,28672 128,6144,4096 256,6144,4096 128,8192,28672 256,8192,8192 256,10240,8192 512,4096,14336" > $o/groups-tensor.txt
echo "- 256,8192,8192 512,4096,14336" > $o/groups-row.txt
echo "- 256,8192,8192 512,4096,4096" > $o/groups-block.txt
for s in tensor row block; do
  SETTLE=100 BUDGET=120 CHUNK=20 timeout 200 bench/sweep_rows.sh $o/groups-$s.txt $s fast $o/$s /tmp/d10-$s.db
  echo "$s exit $? $SECONDS" >> $o/gpu.txt
  gzip $o/$s/tune-$s.jsonl
  tar czf $OUT/d10.tgz -C $OUT d10
done
tar czf $OUT/d10.tgz -C $OUT d10 && rm -rf $o
