#!/usr/bin/env bash
# D2 (H200): sm90_gemm with the tile origins worked out once a tile (the producers in
# sm90_ring_fill; the consumers at the tile's start, or after the main loop with promoted
# sums), sm90_tile_start as selects, and no moved tiles in swap-AB (session 27's swap code
# again), against session 28's final build (carry/old), same shipped cache. The GPU suites
# that run sm90_gemm; then A B B A graph replays (bench/bin_ab.sh): the decode grid every
# granularity, and DeepSeek-V3 block at M = 512...4096. One tarball.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="tune dispatch swap sm90" W8A8_BIN=carry/static W8A8_PACK=1 \
  W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=330 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do shapes="$shapes $m,$nk"; done
done
for s in int8 tensor,tensor row,row block,block; do
  CHUNK=30 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-${s%%,*}.jsonl $s $shapes \
    2>> $o/err.log
  echo "ab $s $SECONDS" >> $o/gpu.txt
done
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 512 1024 2048 4096; do shapes="$shapes $m,$nk"; done
done
CHUNK=24 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-dsv3.jsonl block,block $shapes \
  2>> $o/err.log
echo "ab dsv3 $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
