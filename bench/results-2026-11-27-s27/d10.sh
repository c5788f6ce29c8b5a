#!/usr/bin/env bash
# D10 (H200): A_ROWS extended to M <= 96 (64 or 96 rows of 128-row tiles): the sm90, dispatch,
# swap and tune GPU suites on the new build, then the D8/D9 build (A, carry/old) against it (B)
# at M = 80 and 96 on the (N, K) whose shipped M-96 rows use 128-row tiles, per granularity,
# A B B A (bench/bin_ab.sh), and M = 16 / 48 controls.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm90 dispatch swap tune" OUT=$o \
  scripts/gpu-session.sh tests
echo "suites $SECONDS" >> $o/gpu.txt
mkdir -p $o/ab
ab() { # granularity (N,K)...
  local g=$1 s=""; shift
  for nk in "$@"; do s="$s 80,$nk 96,$nk"; done
  s="$s 16,10240,8192 48,8192,8192"
  CHUNK=30 bash bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 $o/ab/ab-${g%%,*}.jsonl $g $s \
    2>> $o/ab/err.log
  echo "ab $g $SECONDS" >> $o/gpu.txt
}
ab block,block 24576,1536 32768,512 36864,7168 4096,14336 8192,28672 10240,8192
ab row,row 4096,4096 8192,28672 28672,4096 57344,8192
ab tensor,tensor 28672,4096
ab int8 8192,28672 28672,4096 57344,8192
tar czf $o/ab.tgz -C $o ab && rm -rf $o/ab
