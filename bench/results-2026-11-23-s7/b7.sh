#!/usr/bin/env bash
# session 7, device call B (H100): issue 11's staggered consumers (stagger=1) beside overlap=1:
# the block tcase of check_gpu_sm90, a cold tune of the DeepSeek-V3 block keys at M >= 64,
# compare.py --grid dsv3 beside torch.block, and what each parameter is worth per key.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
L=/tmp/B/logs; mkdir -p $L
pk() { tar czf "$OUT/callB.tgz" -C /tmp/B logs; }
B=$PWD/carry/static/w8a8
T0=$SECONDS
note() { echo "$1 exit $2 at $((SECONDS - T0)) s" >> $L/summary.txt; pk; }
( cd /tmp/B && W8A8_KERNEL_DIR=/tmp/B/k-test CK_FORK=no CK_RUN_CASE=block timeout 170 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90-block.log 2>&1 ); note test $?
export W8A8_KERNEL_DIR=/tmp/B/k W8A8_CACHE_DB=$L/dsv3.db W8A8_CACHE_PATH=$PWD/cache
timeout 280 $B tune --model deepseek-v3 --m 64,128,512,1024,2048,4096 --budget 240 \
    > $L/tune-dsv3.log 2>&1; note tune $?
timeout 120 python3 bench/compare.py --grid dsv3 --min-m 64 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3 > $L/compare-dsv3.txt 2>&1; note compare $?
for p in stagger overlap specialize; do
  python3 bench/param_wins.py $L/dsv3.db $p 1 > $L/$p-wins.txt 2>&1
done
pk
