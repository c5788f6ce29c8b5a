#!/usr/bin/env bash
# D1 (H200): sm90_gemm's last tile moved back inside M / N (sm90_tile_start) instead of
# zero-filling the rows past them. The GPU suites that run sm90_gemm on the new build; then the
# previous build (A, carry/old) against the new one (B) through the shipped cache, graph
# replays, A B B A (bench/bin_ab.sh): M inside buckets (last tile partly past M) and the Llama
# grid's M = 128...2048 (tiles partly past N where block_n does not divide N), every
# granularity. One tarball.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="jit sm90-plan tune dispatch swap sm90 sm90-block" W8A8_BIN=carry/static W8A8_PACK=1 \
  W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests
echo "suites $SECONDS" >> $o/gpu.txt
shapes=""
for nk in 4096,4096 8192,8192 4096,14336 28672,4096; do
  for m in 100 129 200 333 520 1000 1500 3000; do shapes="$shapes $m,$nk"; done
done
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 128 256 512 1024 2048; do shapes="$shapes $m,$nk"; done
done
for s in tensor,tensor row,row int8 block,block; do
  CHUNK=24 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab-${s%%,*}.jsonl $s $shapes \
    2>> $o/err.log
  echo "ab $s $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
