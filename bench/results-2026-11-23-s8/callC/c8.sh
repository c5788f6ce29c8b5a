#!/usr/bin/env bash
# session 8, device call C (H200): the final static build (promoted accumulation + the tuner's
# watchdog): all 8 GPU suites in parallel, then cold fast-accumulation tunes of the llama3
# grid (per-tensor, per-row; M = 16, 512, 2048, 8192) whose own measurements say where
# specialize=1 wins (bench/param_wins.py). Packed into $OUT/callC.tgz after every step.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/C; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callC.tgz" -C $R logs; }
root=$PWD
for t in carry/static/tests/check_gpu_*; do
  n=$(basename $t)
  case=""; [ $n = check_gpu_sm90 ] && case=gpu_sm90  # its block tcase ran in call A (same code)
  ( mkdir -p $R/$n && cd $R/$n && W8A8_KERNEL_DIR=$R/$n/k W8A8_CACHE_DB=$R/$n/t.db \
      W8A8_TEST_CACHE_DB=$R/$n/t.db W8A8_TEST_KERNEL_DIR=$R/$n/k CK_FORK=no env ${case:+CK_RUN_CASE=$case} timeout 320 \
      $root/$t > $L/$n.log 2>&1; echo "$n exit $?" >> $L/summary.txt ) &
done
wait; pk
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$L/tune-fast.db W8A8_CACHE_PATH=$PWD/cache
shapes=$(python3 -c "
import sys; sys.path.insert(0, 'bench'); import peers
nk, ms = peers.GRIDS['llama3']
print(' '.join(f'--shape {m},{n},{k}' for n, k in nk for m in (16, 512, 2048, 8192)))")
for s in tensor row; do
  timeout 95 carry/static/w8a8 tune $shapes --scale $s --budget 75 > $L/tune-$s.log 2>&1
  echo "tune $s exit $?" >> $L/summary.txt; pk
done
for s in tensor row; do
  python3 bench/param_wins.py $L/tune-fast.db specialize 1 --scale $s > $L/specialize-$s.txt 2>&1
done
pk
