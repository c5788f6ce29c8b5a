#!/usr/bin/env bash
# session 9, device call E (H100): the scale loaders on an H100. (1) a cold tune of the
# DeepSeek-V3 block keys at M = 64…4096 (as session 7's, for cache/h100-dsv3.sql: some of its
# rows no longer fit shared memory beside the scale areas); (2) the dsv3 grid with that
# database beside torch.block; (3) check_gpu_sm90's block tcase, then its gpu_sm90 tcase.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/E; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callE.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $L/device.txt 2>&1
B=$PWD/carry/static/w8a8
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$L/tune-dsv3.db
timeout 230 $B tune --model deepseek-v3 --m 64,128,256,512,1024,2048,4096 --scale block \
    --budget 200 > $L/tune-dsv3.log 2> $L/tune-dsv3.err; note tune $?
timeout 80 python3 bench/compare.py --grid dsv3 --min-m 64 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3 > $L/compare-dsv3.txt 2>&1; note compare $?
python3 bench/param_wins.py $L/tune-dsv3.db overlap 1 > $L/overlap-wins.txt 2>&1
for c in block:120 gpu_sm90:150; do
  ( cd $R && W8A8_KERNEL_DIR=$R/k-test W8A8_CACHE_DB=$R/t.db W8A8_TEST_CACHE_DB=$R/t.db \
      W8A8_TEST_KERNEL_DIR=$R/k-test CK_FORK=no CK_RUN_CASE=${c%:*} timeout ${c#*:} \
      $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90-${c%:*}.log 2>&1 )
  note "test ${c%:*}" $?
done
