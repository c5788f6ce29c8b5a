#!/usr/bin/env bash
# session 8, device call D (H200): after the review mend (f93f003): all 8 GPU suites at once
# (sm90 whole: both tcases), then the llama3 grid at every M with the shipped caches only,
# FP8 per-tensor and per-row (fast accumulation) beside torch.tensor.fast / torch.row.fast and
# the promoted kernels beside torch.tensor / torch.row. Packed into $OUT/callD.tgz.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/D; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callD.tgz" -C $R logs; }
root=$PWD T0=$SECONDS
for t in carry/static/tests/check_gpu_*; do
  n=$(basename $t)
  ( mkdir -p $R/$n && cd $R/$n && s=$SECONDS && W8A8_KERNEL_DIR=$R/$n/k W8A8_CACHE_DB=$R/$n/t.db \
      W8A8_TEST_CACHE_DB=$R/$n/t.db W8A8_TEST_KERNEL_DIR=$R/$n/k CK_FORK=no timeout 330 \
      $root/$t > $L/$n.log 2>&1; echo "$n exit $? $((SECONDS - s)) s" >> $L/summary.txt ) &
done
while [ -n "$(jobs -r)" ] && [ $((SECONDS - T0)) -lt 335 ]; do sleep 15; pk; done
wait; pk
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$R/empty.db W8A8_CACHE_PATH=$PWD/cache
B=$PWD/carry/static/w8a8
timeout 130 python3 bench/compare.py --grid llama3 --scale tensor --scale row --bin $B \
    --no-cublaslt --save $L/llama-fast > $L/compare-llama-fast.txt 2>&1
echo "compare fast exit $?" >> $L/summary.txt; pk
timeout 75 python3 bench/compare.py --grid llama3 --min-m 512 --scale tensor --scale row \
    --promoted --bin $B --no-cublaslt --save $L/llama-promoted > $L/compare-llama-promoted.txt 2>&1
echo "compare promoted exit $?" >> $L/summary.txt; pk
