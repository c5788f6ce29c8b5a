#!/usr/bin/env bash
# D13 (H200): the closing call on the final build: the sm80_gemm suite (its block loop now one
# helper), then the closing grids beside peers.py (bench/grids_beside_peers.sh: decode and
# Llama M <= 512 in every granularity with every torch provider, DeepSeek-V3 block), all in
# one tarball.
o=$OUT/d13; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o timeout 220 scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d13.tgz -C $OUT d13
timeout 300 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d13.tgz -C $OUT d13 && rm -rf $o
