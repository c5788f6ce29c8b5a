#!/usr/bin/env bash
# D4 (H200): the decode side of the final build against the previous one (A: carry/old, the
# session-27 build; B: carry/static), same shipped cache, graph replays, A B B A
# (bench/bin_ab.sh): the decode grid and 16 x {10240x8192, 6144x4096, 4096x4096}, every
# granularity. Most rows there have no partial tile (no tile moves), so B/A shows what the
# code change alone costs. One tarball.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
shapes="16,10240,8192 16,6144,4096 16,4096,4096"
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do shapes="$shapes $m,$nk"; done
done
for s in tensor,tensor row,row int8 block,block; do
  CHUNK=33 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-${s%%,*}.jsonl $s $shapes \
    2>> $o/err.log
  echo "ab $s $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
