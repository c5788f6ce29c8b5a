#!/usr/bin/env bash
# A10 (session 23, H200): F4 saw the first wgmma of each K block stall twice as often with the
# scale copies as without: a wgmma fence waits for the shared-memory loads before it, and the
# consumers read their scales right before their wgmmas. Variant `late` (a10-late.patch):
# the scales are read after the K block's wgmmas are issued (plain, overlap, wave and swap
# loops). Template variants of the same build: base (HEAD) and late. A/B on 59 block shapes
# and 8 promoted per-tensor ones, shipped caches, two rounds each order; --verify on odd
# shapes; then gpu_sm90's block tcase and check_gpu_swap against late.
set -u
o=$(mktemp -d)/a10; mkdir -p $o
pk() { tar czf $OUT/a10.tgz -C $(dirname $o) a10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
Q="16,8192,28672 32,8192,28672 16,4096,14336 32,57344,8192 64,8192,8192"
P=""; for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do P="$P 2048,$nk"; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/a10-empty.db
run() { # variant round
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1 W8A8_KERNEL_DIR=/tmp/ka10-$1 timeout 150 $b bench --json --no-cublaslt --graph $(args "$S $D $Q") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1 W8A8_KERNEL_DIR=/tmp/ka10-$1 timeout 100 $b bench --json --no-cublaslt --graph $(args "$P") --scale tensor --accum promoted \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
run base 1; run late 1; pk; run late 2; run base 2; pk
W8A8_TEMPLATE_DIR=$PWD/carry/tpl/late W8A8_KERNEL_DIR=/tmp/ka10-late timeout 100 $b bench --verify --json --no-cublaslt \
  --shape 1001,2112,7168 --shape 4099,7168,2048 --shape 2000,24576,1536 --shape 17,8192,28672 --shape 511,4096,7168 --scale block > $o/verify.jsonl 2>&1
echo "verify $? $SECONDS" >> $o/summary.txt; pk
tar xJf carry/tests.tar.xz -C carry/static
t() { # name binary [tcase]
  ( d=$(mktemp -d); cd $d; [ -n "${3:-}" ] && export CK_RUN_CASE=$3
    W8A8_TEMPLATE_DIR=$OLDPWD/carry/tpl/late CK_FORK=no W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db \
    W8A8_TEST_KERNEL_DIR=$d/k W8A8_TEST_CACHE_DB=$d/t.db timeout 330 $OLDPWD/carry/static/tests/$2 > $o/$1.log 2>&1
    echo "$1 $? $SECONDS" >> $o/summary.txt ) &
}
t block check_gpu_sm90 block; t swap check_gpu_swap; wait
pk
