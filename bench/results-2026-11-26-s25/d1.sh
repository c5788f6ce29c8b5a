#!/usr/bin/env bash
# D1 (session 25): the tuner's cache seeds on the GPU (check_gpu_tune, with test_cache_seeds),
# then a plain tune (seeded from the shipped cache) of the H200 keys bench/monotone_rows.py
# lists (32: rows slower than a larger bucket's winner) and of the Llama / decode keys where
# session 21's Y9 or session 24's C5 measured us below torch (22), 4 s a key; the shipped rows
# (A) against the new winners (B) as graph replays, A B B A (bench/sweep_rows.sh).
set -u
o=$(mktemp -d)/d1; mkdir -p $o
pk() { tar czf $OUT/d1.tgz -C $(dirname $o) d1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
( cd carry/static/tests && W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk timeout 200 ./check_gpu_tune ) > $o/tune-suite.out 2>&1
echo "check_gpu_tune exit $? $SECONDS" >> $o/summary.txt; pk
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd1 W8A8_CACHE_PATH=$PWD/cache CHUNK=25
T="48,4096,4096 96,4096,4096 192,4096,4096 384,4096,4096 96,4096,14336 32,6144,4096 96,6144,4096
192,6144,4096 16,10240,8192 32,10240,8192 96,28672,4096 64,4096,14336 256,4096,14336
512,4096,14336 128,6144,4096 256,6144,4096 256,8192,8192 16,8192,28672 32,8192,28672
128,8192,28672 256,10240,8192 16,28672,4096"
R="32,4096,4096 32,6144,4096 16,10240,8192 32,10240,8192 256,8192,8192 128,28672,4096"
B="96,2112,7168 192,2112,7168 4,4096,7168 96,4096,7168 1,6144,4096 4,7168,2048 8,7168,2048
96,7168,2048 96,7168,16384 192,7168,18432 16,10240,8192 32,10240,8192 512,4096,4096
512,4096,14336 256,6144,4096 256,8192,8192 512,8192,8192 128,10240,8192 128,28672,4096
256,28672,4096 512,4096,7168"
I="2,6144,4096 4,6144,4096 32,6144,4096 16,10240,8192 32,10240,8192"
run() { # name dtype scale shapes
  local n; n=$(echo $4 | wc -w)
  echo "- $(echo $4)" > $o/groups-$1.txt
  DTYPE=$2 BUDGET=$((4 * n)) bash bench/sweep_rows.sh $o/groups-$1.txt $3 fast $o/$1 /tmp/d1-$1.db
  $W8A8 cache --db /tmp/d1-$1.db export $o/$1/new.sql --winners 2>> $o/err.log
  echo "$1 $SECONDS" >> $o/summary.txt; pk
}
run tensor e4m3 tensor "$T"
run row e4m3 row "$R"
run block e4m3 block "$B"
run int8 int8 tensor "$I"
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
pk
