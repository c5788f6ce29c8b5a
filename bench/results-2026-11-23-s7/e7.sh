#!/usr/bin/env bash
# session 7, device call E (H100): after the review mend (overlap's second stage via
# sm90_ring_next): the block tcase of check_gpu_sm90, then the dsv3 grid (shipped caches)
# beside torch.block, packed into $OUT/callE.tgz
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
L=/tmp/E/logs; mkdir -p $L
pk() { tar czf "$OUT/callE.tgz" -C /tmp/E logs; }
( cd /tmp/E && W8A8_KERNEL_DIR=/tmp/E/k-test CK_FORK=no CK_RUN_CASE=block timeout 200 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90-block.log 2>&1 )
echo "test exit $?" >> $L/summary.txt; pk
export W8A8_KERNEL_DIR=/tmp/E/k W8A8_CACHE_DB=/tmp/E/empty.db W8A8_CACHE_PATH=$PWD/cache
timeout 150 python3 bench/compare.py --grid dsv3 --scale block --bin $PWD/carry/static/w8a8 \
    --no-cublaslt --save $L/dsv3 > $L/compare-dsv3.txt 2>&1
echo "compare exit $?" >> $L/summary.txt; pk
