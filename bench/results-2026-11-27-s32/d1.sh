#!/usr/bin/env bash
# D1 (H200): named tunes (w8a8 tune --space sm90_gemm: split and stagger at every M, every
# overlap and wave; the walk of the named space now takes seconds, not tens of them) of the
# keys below their torch peer in session 31's final grids, one key a group with its own
# budget, then the shipped rows (A) against the tunes' winners (B), graph replays A B B A
# (bench/sweep_rows.sh). Tune lines keep the planning time of each key.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k1
for s in 512,7168,16384 1024,4096,7168 2048,4096,7168 2048,24576,1536 256,8192,8192; do
  echo "sm90_gemm $s"; done > $o/g-block.txt
for s in 512,4096,14336 256,8192,8192; do echo "sm90_gemm $s"; done > $o/g-tensor.txt
echo "sm90_gemm 256,8192,8192" > $o/g-row.txt
for g in block tensor row; do
  BUDGET=${D1_BUDGET:-50} CHUNK=4 bench/sweep_rows.sh $o/g-$g.txt $g fast $o/$g /tmp/d1-$g.db
  echo "$g $SECONDS" >> $o/gpu.txt
  gzip -c /tmp/d1-$g.db > $o/$g/tune.db.gz
  tar czf $OUT/d1.tgz -C $OUT d1
done
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
