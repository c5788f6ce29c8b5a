#!/usr/bin/env bash
# D5 (H200): the final build (tail=2; rank() with the wave factor) and the shipped cache (this
# session's 6 new DeepSeek-V3 rows): the decode grid and the Llama grid at M <= 512 in every
# granularity and the DeepSeek-V3 grid (block), graph replays beside peers.py (every torch
# provider) in the same call; then the GPU suites that run sm90_gemm (sm90's five tcases,
# swap, dispatch, tune). A tarball after each part. (D5 ran the grids' lines inline, as
# commit 53b9ff5 has them; bench/grids_beside_peers.sh holds the same lines since.)
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
bench/grids_beside_peers.sh $o
echo "grids $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5-grids.tgz -C $OUT d5
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm90 swap dispatch tune" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=$((560 - SECONDS)) W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
