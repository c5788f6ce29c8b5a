#!/usr/bin/env bash
# D5 (H200): the new tcase of check_gpu_sm90 (moved_tiles_store_the_same_bits: a problem's
# leading corner, whose last tiles move back inside M and N, against the whole problem, byte
# for byte, on every config and block config), the final build.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
tar xJf carry/tests.tar.xz -C carry/static
d=$(mktemp -d)
( cd $d && CK_RUN_CASE=shift CK_FORK=no W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db \
    W8A8_TEST_KERNEL_DIR=$d/k W8A8_TEST_CACHE_DB=$d/t.db timeout 200 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/check_gpu_sm90-shift.log 2>&1
  echo "exit $? $SECONDS s" >> $o/check_gpu_sm90-shift.log )
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
