#!/usr/bin/env bash
# D1 (H200): sm80_decode's weight loads in whole 32-byte sectors (the K permutation: a row's
# four lanes read 64 contiguous bytes a load) and sm90_gemm's consumer origins at the tile's
# start, against session 28's final build (carry/old), same shipped cache: the decode and swap
# GPU suites, then A B B A graph replays over the decode grid and 16 x {10240x8192,
# 6144x4096, 4096x4096} every granularity (bench/bin_ab.sh), then the decode grid beside
# peers.py. One tarball.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="decode swap" OUT=$o \
  scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
shapes="16,10240,8192 16,6144,4096 16,4096,4096"
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do shapes="$shapes $m,$nk"; done
done
for s in tensor,tensor row,row int8 block,block; do
  CHUNK=33 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-${s%%,*}.jsonl $s $shapes \
    2>> $o/err.log
  echo "ab $s $SECONDS" >> $o/gpu.txt
done
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=grid W8A8_PEERS=carry/peers.py OUT=$o \
  scripts/gpu-session.sh bench-grid:decode > $o/grid.log 2>&1
echo "grid $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
