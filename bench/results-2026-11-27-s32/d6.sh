#!/usr/bin/env bash
# D6 (H200): the final build (the walk's skips, sm80_gemm's hoisted epilogue terms) and the
# shipped cache (this session's 3 DeepSeek-V3 rows): the decode grid and the Llama grid at
# M <= 512 in every granularity and the DeepSeek-V3 grid (block), graph replays beside
# peers.py (every torch provider) in the same call (bench/grids_beside_peers.sh); then the GPU
# suites that run sm90_gemm and the tuner (sm90's five tcases, swap, dispatch, tune;
# sm80_gemm's passed in D4 on the same kernels: its template changed in comments since). A
# tarball after each part.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
bench/grids_beside_peers.sh $o
echo "grids $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6-grids.tgz -C $OUT d6
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm90 swap dispatch tune" W8A8_BIN=carry/static W8A8_PACK=1 \
  W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=$((570 - SECONDS)) \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests \
  > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
