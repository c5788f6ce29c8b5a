#!/usr/bin/env bash
# D10 (H200): D9's tune again after the final pass changed to time each variant next to its
# finalist (alternating which goes first): the same keys, no shipped rows, an empty database;
# then check_gpu_tune (its rerun assertion failed in D9: the rerun tried the default's variant).
o=$OUT/d10; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
W=carry/static/w8a8
one() { # tag db [tune args]
  local tag=$1 db=$2; shift 2
  W8A8_CACHE_PATH= W8A8_KERNEL_DIR=/tmp/k10 $W tune --shape 256,6144,4096 --shape 256,4096,14336 \
    --shape 256,28672,4096 --shape 256,8192,8192 --shape 512,4096,4096 --shape 128,6144,4096 \
    --db $db --budget 120 --json "$@" > $o/tune-$tag-tensor.jsonl 2> $o/tune-$tag.err
  W8A8_CACHE_PATH= W8A8_KERNEL_DIR=/tmp/k10 $W tune --shape 256,4096,14336 --shape 256,8192,8192 \
    --shape 512,28672,4096 --shape 128,6144,4096 --dtype int8 --db $db --budget 80 --json "$@" \
    > $o/tune-$tag-int8.jsonl 2>> $o/tune-$tag.err
  echo "tune $tag exit $? at $SECONDS s" >> $o/gpu.txt
}
one plain /tmp/t10.db
tar czf $OUT/d10.tgz -C $OUT d10
one settle /tmp/t10s.db --settle 100
tar czf $OUT/d10.tgz -C $OUT d10
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="tune" \
  scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? at $SECONDS s" >> $o/gpu.txt
tar czf $OUT/d10.tgz -C $OUT d10 && rm -rf $o
