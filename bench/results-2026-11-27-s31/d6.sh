#!/usr/bin/env bash
# D6 (H200): the tail tcase of the final test source (after the review's mend of the test:
# its configs indexed by kind; the same runs as in D5).
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
tar xJf carry/tests.tar.xz -C carry/static
(cd /tmp && CK_RUN_CASE=tail W8A8_KERNEL_DIR=/tmp/k6 timeout 120 \
  $OLDPWD/carry/static/tests/check_gpu_sm90) > $o/sm90-tail.log 2>&1
echo "sm90-tail exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
