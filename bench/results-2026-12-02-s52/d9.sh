#!/usr/bin/env bash
# D9 (H200, session 52): check_gpu_dispatch, _jit and _decode of HEAD's static build (the
# cache lookup's epilogue lending), started by hand (no CK_FORK in the environment: the suites
# now set it themselves).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH W8A8_KERNEL_DIR=/tmp/k
mkdir -p $OUT/d9
for t in dispatch jit decode; do
  timeout 150 carry/static/tests/check_gpu_$t > $OUT/d9/$t.log 2>&1; echo "$t $?" >> $OUT/d9/rc.txt
done
tar czf $OUT/d9.tgz -C $OUT d9
