#!/usr/bin/env bash
# session 9, device call A (H200): block scales carried in the ring (cp.async loader warp).
# (1) check_gpu_sm90's block tcase on the new build; (2) the dsv3 grid with the shipped caches:
# the old build (6fb8b94, carry/old) and the new one, beside torch.block (compare.py, new);
# (3) ncu of the new 4096x4096x7168 kernel (stall reasons). Packed into $OUT/callA.tgz.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/A; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callA.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $L/device.txt 2>&1
( cd $R && W8A8_KERNEL_DIR=$R/k-test W8A8_CACHE_DB=$R/t.db W8A8_TEST_CACHE_DB=$R/t.db \
    W8A8_TEST_KERNEL_DIR=$R/k-test CK_FORK=no CK_RUN_CASE=block timeout 200 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90-block.log 2>&1 ); note test $?
export W8A8_CACHE_DB=$R/empty.db W8A8_CACHE_PATH=$PWD/cache
W8A8_KERNEL_DIR=$R/k-old timeout 100 carry/old/w8a8 bench --json --dtype e4m3 --scale block,block \
    --grid dsv3 --no-cublaslt > $L/old-dsv3.jsonl 2> $L/old-dsv3.err; note old $?
export W8A8_KERNEL_DIR=$R/k
B=$PWD/carry/static/w8a8
timeout 150 python3 bench/compare.py --grid dsv3 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3 > $L/compare-dsv3.txt 2>&1; note compare $?
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
  timeout 120 $NCU --clock-control none -k regex:w8a8_sm90 -c 1 --set full --import-source no \
      -o $R/ncu $B bench --shape 4096,4096,7168 --scale block,block --no-cublaslt --samples 1 \
      > $L/ncu-run.txt 2>&1; note ncu $?
  $NCU -i $R/ncu.ncu-rep --print-details all > $L/ncu-details.txt 2>&1
  $NCU -i $R/ncu.ncu-rep --page raw --csv > $L/ncu-raw.csv 2>&1
  $NCU -i $R/ncu.ncu-rep --page source --print-source sass --csv > $L/ncu-sass.csv 2>&1
  note ncu-print $?
fi
