#!/usr/bin/env bash
# session 8, device call A (H200): promoted accumulation (accum promoted) — the block tcase of
# check_gpu_sm90 (block scales + the promoted tests), bench/accuracy.py (float64 reference),
# then cold tunes of the promoted per-tensor and per-row keys of the llama3 grid at M >= 512,
# packed into $OUT/callA.tgz after every step
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/A; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callA.tgz" -C $R logs; }
nvidia-smi -L > $L/device.txt 2>&1
( cd $R && W8A8_KERNEL_DIR=$R/k-test CK_FORK=no CK_RUN_CASE=block timeout 240 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90-block.log 2>&1 )
echo "test exit $?" >> $L/summary.txt; pk
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$L/tune-promoted.db W8A8_CACHE_PATH=$PWD/cache
PYTHONPATH=$PWD/python W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so timeout 150 \
    python3 bench/accuracy.py --json $L/accuracy.jsonl > $L/accuracy.txt 2>&1
echo "accuracy exit $?" >> $L/summary.txt; pk
shapes=$(python3 -c "
import sys; sys.path.insert(0, 'bench'); import peers
nk, ms = peers.GRIDS['llama3']
print(' '.join(f'--shape {m},{n},{k}' for n, k in nk for m in ms if m >= 512))")
for s in tensor row; do
  /usr/bin/time -v timeout 200 carry/static/w8a8 tune $shapes --scale $s --accum promoted \
      --budget 140 > $L/tune-$s.log 2> $L/tune-$s.err
  echo "tune $s exit $?" >> $L/summary.txt; pk
done
