#!/usr/bin/env bash
# D6 (session 25, H200): every GPU suite on the final build (the tuner's cache seeds, the
# best-sampled winner rule); then the DeepSeek-V3 block grid on the shipped caches as committed,
# beside peers.py (torch.block).
set -u
o=$(mktemp -d)/d6; mkdir -p $o
pk() { tar czf $OUT/d6.tgz -C $(dirname $o) d6; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS" >> $o/summary.txt; pk
( export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kg
  export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_SCALES="block,block"
  W8A8_PACK_NAME=grid-dsv3 OUT=$o timeout 120 scripts/gpu-session.sh bench-grid:dsv3 > $o/grid-dsv3.out 2>&1
  echo "dsv3 $? $SECONDS" >> $o/summary.txt ); pk
