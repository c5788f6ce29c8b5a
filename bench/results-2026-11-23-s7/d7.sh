#!/usr/bin/env bash
# session 7, device call D (H100): every GPU suite at once from the final static build (each
# its own kernel store, run from outside the source and build trees), then the DeepSeek-V3
# grid with the shipped caches only (cache/h100-dsv3.sql layered) beside torch.block, and
# `w8a8 cache explain` of every dsv3 key there.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
L=/tmp/D/logs; mkdir -p $L
pk() { tar czf "$OUT/callD.tgz" -C /tmp/D logs; }
T0=$SECONDS
cp -r carry/static /tmp/D/bin
( cd /tmp/D
  for t in /tmp/D/bin/tests/check_gpu_*; do
    n=$(basename $t)
    ( s=$SECONDS; W8A8_KERNEL_DIR=/tmp/D/k-$n CK_FORK=no timeout 330 $t > $L/$n.log 2>&1; rc=$?
      echo "$n exit $rc $((SECONDS - s)) s" >> $L/summary.txt ) &
  done
  while [ -n "$(jobs -r)" ] && [ $((SECONDS - T0)) -lt 340 ]; do sleep 15; pk; done
  wait )
pk
B=$PWD/carry/static/w8a8
export W8A8_KERNEL_DIR=/tmp/D/k W8A8_CACHE_DB=/tmp/D/empty.db W8A8_CACHE_PATH=$PWD/cache
timeout 150 python3 bench/compare.py --grid dsv3 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3-shipped > $L/compare-dsv3-shipped.txt 2>&1
echo "compare exit $? at $((SECONDS - T0)) s" >> $L/summary.txt
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 1 16 64 128 512 1024 2048 4096; do
    $B cache explain $m,$nk --scale block,block 2>&1
  done
done > $L/explain-dsv3.txt
pk
