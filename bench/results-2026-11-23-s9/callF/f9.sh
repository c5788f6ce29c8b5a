#!/usr/bin/env bash
# session 9, device call F (H200): all 8 GPU suites from the final build (sm90 whole: both
# tcases), after the ring-walk fold. Packed into $OUT/callF.tgz.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/F; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callF.tgz" -C $R logs; }
root=$PWD T0=$SECONDS
for t in carry/static/tests/check_gpu_*; do
  n=$(basename $t)
  ( mkdir -p $R/$n && cd $R/$n && s=$SECONDS && W8A8_KERNEL_DIR=$R/$n/k W8A8_CACHE_DB=$R/$n/t.db \
      W8A8_TEST_CACHE_DB=$R/$n/t.db W8A8_TEST_KERNEL_DIR=$R/$n/k CK_FORK=no timeout 330 \
      $root/$t > $L/$n.log 2>&1; echo "$n exit $? $((SECONDS - s)) s" >> $L/summary.txt ) &
done
while [ -n "$(jobs -r)" ] && [ $((SECONDS - T0)) -lt 335 ]; do sleep 15; pk; done
wait; pk
