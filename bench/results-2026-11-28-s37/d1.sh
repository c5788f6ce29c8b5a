#!/usr/bin/env bash
# D1 (H200; the first try died on a syntax error after the suites, whose block tcase ran past
# 330 s: the tests now compile ahead on every CPU, test_prewarm): every GPU suite (scripts/gpu-session.sh tests, incl. check_gpu_sm90's new
# `promoted` tcase), then three template dirs on the shipped cache, 3 interleaved rounds:
#   base    HEAD's templates
#   arrive  session 36's arrive-few.patch (only the copying loader lanes arrive on a block
#           stage's full barrier: 2 + SM90_SB_COUNT arrivals instead of 1 + 64)
#   offlo   SM90_OFF_CONST also requires overlap < 2 (overlap-3 straddling tiles back on the
#           per-K-block run-time offset; 128x28672x4096's row lost 4.4 % to the per-tile loop)
# Host setup: carry/tpl/{base,arrive,offlo}/templates (see NOTE.md).
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
s="256,6144,4096 128,10240,8192 128,28672,4096 768,2112,7168 384,4096,7168 384,4096,4096
   2048,8192,8192 512,8192,8192 4096,4096,7168 1024,10240,8192 256,8192,8192 4096,2112,7168"
a=(); for x in $s; do a+=(--shape $x); done
for r in 1 2 3; do for v in base arrive offlo; do
  W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db \
    W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v/templates W8A8_KERNEL_DIR=/tmp/k-$v \
    timeout 90 carry/static/w8a8 bench --json --graph --no-cublaslt --scale block,block "${a[@]}" \
    | sed "s/^{/{\"variant\": \"$v\", \"round\": $r, /" >> $o/ab.jsonl 2>> $o/err.log
done; done
echo "ab exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 330 scripts/gpu-session.sh tests \
  > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
