#!/usr/bin/env bash
# D8 (H200): A_ROWS (sm90_gemm stages hold only the rows of A that M <= 48 needs; D7's probe
# made a feature). Every GPU suite on the new build; then the previous build (A, carry/old)
# against the new one (B) through the shipped cache, graph replays, A B B A (bench/bin_ab.sh):
# the decode grid and the Llama grid at M <= 64, per-tensor, per-row, INT8 and block.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests
echo "suites $SECONDS" >> $o/gpu.txt
mkdir -p $o/ab
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do shapes="$shapes $m,$nk"; done
done
for nk in 6144,4096 4096,4096 10240,8192; do
  for m in 1 16 48 64; do shapes="$shapes $m,$nk"; done
done
for nk in 28672,4096 4096,14336 8192,8192 57344,8192 8192,28672; do shapes="$shapes 48,$nk 64,$nk"; done
for s in tensor,tensor row,row int8 block,block; do
  CHUNK=30 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab/ab-${s%%,*}.jsonl $s $shapes \
    2>> $o/ab/err.log
  echo "ab $s $SECONDS" >> $o/gpu.txt
done
tar czf $o/ab.tgz -C $o ab && rm -rf $o/ab
ls -la $o
