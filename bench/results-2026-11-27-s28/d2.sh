#!/usr/bin/env bash
# D2 (H200): the final layout of sm90_tile_start (consumer origins after the main loop, the
# producer's per K block); block scales shift their last tile row too. The shape suites
# (sm90, sm90-block, swap); then the previous build (A, carry/old) against this one (B):
# block-scaled compute-bound shapes (no partial tile: D1 had them 3-7 % slower, within the
# A runs' own spread?) in two A B B A passes, DeepSeek-V3 M = 512...2048, odd M; and the
# other granularities on odd M and a few grid shapes. One tarball.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm90 sm90-block swap" W8A8_BIN=carry/static W8A8_PACK=1 \
  W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests
echo "suites $SECONDS" >> $o/gpu.txt
big="512,8192,8192 2048,8192,8192 512,8192,28672 1024,8192,28672 1024,10240,8192 1024,28672,4096"
odd=""
for nk in 4096,14336 8192,8192 28672,4096; do for m in 129 200 333 520 1000; do odd="$odd $m,$nk"; done; done
ds=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 512 1024 2048; do ds="$ds $m,$nk"; done
done
for pass in 1 2; do
  CHUNK=6 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-block-big.jsonl block,block $big \
    2>> $o/err.log
done
echo "block big $SECONDS" >> $o/gpu.txt
CHUNK=18 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-block.jsonl block,block $ds $odd \
  2>> $o/err.log
echo "block $SECONDS" >> $o/gpu.txt
grid="128,4096,4096 256,6144,4096 1024,8192,8192 2048,57344,8192 1024,28672,4096"
for s in tensor,tensor row,row int8; do
  CHUNK=20 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-${s%%,*}.jsonl $s $odd $grid \
    2>> $o/err.log
  echo "ab $s $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
