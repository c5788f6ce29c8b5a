#!/usr/bin/env bash
# D2 (session 25, H100): the GPU suites of the tuner and the dispatcher on the build with the
# cache seeds and the best-sampled winner rule; then D1's seeded retune for the 19 H100 rows
# bench/monotone_rows.py --device H100 lists, 4 s a key, shipped (A) against new (B), A B B A.
set -u
o=$(mktemp -d)/d2; mkdir -p $o
pk() { tar czf $OUT/d2.tgz -C $(dirname $o) d2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="tune dispatch" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 OUT=$o timeout 320 scripts/gpu-session.sh tests \
  > $o/suites.out 2>&1
echo "suites $? $SECONDS" >> $o/summary.txt; pk
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd2 W8A8_CACHE_PATH=$PWD/cache CHUNK=25
T="96,4096,4096 96,4096,14336 2,6144,4096 4,6144,4096 32,6144,4096 48,6144,4096 96,6144,4096"
R="32,4096,4096"
B="128,576,7168 192,576,7168 512,576,7168 24,1536,7168 96,1536,7168 4,4096,4096 32,4096,4096
96,4096,7168 768,4096,7168 1,4096,14336 24,24576,1536"
run() { # name dtype scale shapes
  local n; n=$(echo $4 | wc -w)
  echo "- $(echo $4)" > $o/groups-$1.txt
  DTYPE=$2 BUDGET=$((4 * n)) bash bench/sweep_rows.sh $o/groups-$1.txt $3 fast $o/$1 /tmp/d2-$1.db
  $W8A8 cache --db /tmp/d2-$1.db export $o/$1/new.sql --winners 2>> $o/err.log
  echo "$1 $SECONDS" >> $o/summary.txt; pk
}
run tensor e4m3 tensor "$T"
run row e4m3 row "$R"
run block e4m3 block "$B"
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
pk
