#!/usr/bin/env bash
# D8 (H200): sm80_decode's weight loads ask L2 for 256-byte prefetches (.L2::256B; a warp's
# 4-thread groups read 128-byte pieces of rows whose next 128 bytes the next warp reads). The
# decode suite on the new build, then the two builds (carry/old: HEAD's templates) over the
# shipped rows at the decode grid's M <= 8 (where sm80_decode serves), graph replays A B B A
# (bench/bin_ab.sh), per-tensor, block and INT8.
o=$OUT/d8; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="decode" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8; do shapes="$shapes $m,$nk"; done
done
for g in tensor block int8; do
  CHUNK=20 bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-$g.jsonl $g $shapes \
    2>> $o/ab.err
  echo "ab $g $SECONDS" >> $o/gpu.txt
  tar czf $OUT/d8.tgz -C $OUT d8
done
tar czf $OUT/d8.tgz -C $OUT d8 && rm -rf $o
