#!/usr/bin/env bash
# Z10 (session 22, H200): after the review mend (one sm90_promote; the padding test's helper):
# gpu_sm90's block tcase (every block config, the padding test, promoted accumulation) and the
# plan tcase.
set -u
o=$(mktemp -d)/z10; mkdir -p $o
pk() { tar czf $OUT/z10.tgz -C $(dirname $o) z10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
for t in block plan; do
  CK_RUN_CASE=$t W8A8_KERNEL_DIR=/tmp/tk10 timeout 400 carry/static/tests/check_gpu_sm90 > $o/sm90-$t.log 2>&1
  echo "$t $? $SECONDS" >> $o/summary.txt; pk
done
