#!/usr/bin/env bash
# session 9, device call B (H200): two scale-loader warps. (1) check_gpu_sm90's block tcase;
# (2) the dsv3 grid with the shipped caches, old build (6fb8b94) only (the new one's rows:
# step 4); (3) a cold tune of the DeepSeek-V3 block keys with the new build (as session 8's
# call B); (4) the dsv3 grid with that database beside torch.block; (5) ncu of 4096x4096x7168.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/B; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callB.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
( cd $R && W8A8_KERNEL_DIR=$R/k-test W8A8_CACHE_DB=$R/t.db W8A8_TEST_CACHE_DB=$R/t.db \
    W8A8_TEST_KERNEL_DIR=$R/k-test CK_FORK=no CK_RUN_CASE=block timeout 200 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90-block.log 2>&1 ); note test $?
export W8A8_CACHE_DB=$R/empty.db W8A8_CACHE_PATH=$PWD/cache
W8A8_KERNEL_DIR=$R/k-old timeout 60 carry/old/w8a8 bench --json --dtype e4m3 --scale block,block \
    --grid dsv3 --no-cublaslt > $L/old-dsv3.jsonl 2> $L/old-dsv3.err; note old $?
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$L/tune-dsv3.db
B=$PWD/carry/static/w8a8
ms=1,16,64,128,256,512,1024,2048,4096
shapes=$(for m in ${ms//,/ }; do printf -- "--shape %s,2112,7168 " $m; done)
timeout 250 $B tune --model deepseek-v3 --m $ms $shapes --scale block --budget 220 \
    > $L/tune-dsv3.log 2> $L/tune-dsv3.err; note tune $?
timeout 90 python3 bench/compare.py --grid dsv3 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3 > $L/compare-dsv3.txt 2>&1; note compare $?
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  timeout 60 $NCU --clock-control none -k regex:w8a8_sm90 -c 1 --section SpeedOfLight \
      --section WarpStateStats --section SourceCounters --import-source no -o $R/ncu \
      $B bench --shape 4096,4096,7168 --scale block,block --no-cublaslt --samples 1 \
      > $L/ncu-run.txt 2>&1; note ncu $?
  $NCU -i $R/ncu.ncu-rep --page source --print-source sass --csv > $L/ncu-sass.csv 2>&1
  $NCU -i $R/ncu.ncu-rep --print-details all > $L/ncu-details.txt 2>&1; note ncu-print $?
fi
