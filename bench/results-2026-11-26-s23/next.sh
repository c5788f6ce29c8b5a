#!/usr/bin/env bash
# NEXT (prepared in session 23, not run; no device time was left): after A11's bulk copy of
# the A scales, only the loader lanes that copy take part (next-arrive3.patch, compiled with
# NVRTC without spills, never run): the bulk lane arrives with mbarrier.arrive.expect_tx,
# the B scales' lanes with their cp.async arrival, so a stage's full barrier expects
# 2 + SB_COUNT arrivals instead of 65 and the other 62 loader lanes leave at once.
# Set up before the call (carry/tpl/V are copies of templates/):
#   mkdir -p carry/tpl && cp -r templates carry/tpl/base && cp -r templates carry/tpl/arrive3
#   (cd carry/tpl/arrive3 && patch -p1 < ../../../bench/results-2026-11-26-s23/next-arrive3.patch)
# then run it; keep the variant only if the block tcase passes against it and it is faster.
set -u
o=$(mktemp -d)/next; mkdir -p $o
pk() { tar czf $OUT/next.tgz -C $(dirname $o) next; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/next-empty.db
run() { # variant round
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1 W8A8_KERNEL_DIR=/tmp/knext-$1 timeout 150 $b bench --json --no-cublaslt --graph $(args "$S $D") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
run base 1; run arrive3 1; pk; run arrive3 2; run base 2; pk
W8A8_TEMPLATE_DIR=$PWD/carry/tpl/arrive3 W8A8_KERNEL_DIR=/tmp/knext-arrive3 timeout 100 $b bench --verify --json --no-cublaslt \
  --shape 1000,2112,7168 --shape 1001,2112,7168 --shape 128,2112,7168 --shape 516,4096,7168 --scale block > $o/verify.jsonl 2>&1
echo "verify $? $SECONDS" >> $o/summary.txt; pk
tar xJf carry/tests.tar.xz -C carry/static
( d=$(mktemp -d); cd $d; export CK_RUN_CASE=block
  W8A8_TEMPLATE_DIR=$OLDPWD/carry/tpl/arrive3 CK_FORK=no W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db \
  W8A8_TEST_KERNEL_DIR=$d/k W8A8_TEST_CACHE_DB=$d/t.db timeout 330 $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/block.log 2>&1
  echo "block $? $SECONDS" >> $o/summary.txt )
pk
