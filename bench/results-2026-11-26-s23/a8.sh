#!/usr/bin/env bash
# A8 (session 23, H200): the next tile's first K block under this tile's epilogue (SM90_HEAD:
# cooperative promoted configs without overlap/wave/split/stagger/swap issue it into tmp
# before storing acc). Template variants of the same build (W8A8_TEMPLATE_DIR): base (HEAD's
# templates) and head. A/B on 54 block shapes (Llama M = 128/256/512, DeepSeek-V3 M = 128 ...
# 4096) and 8 promoted per-tensor ones at M = 2048, shipped caches, two rounds each order;
# --verify of head on odd shapes; gpu_sm90's block tcase against head.
set -u
o=$(mktemp -d)/a8; mkdir -p $o
pk() { tar czf $OUT/a8.tgz -C $(dirname $o) a8; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
P=""; for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do P="$P 2048,$nk"; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/a8-empty.db
run() { # variant round
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1 W8A8_KERNEL_DIR=/tmp/ka8-$1 timeout 150 $b bench --json --no-cublaslt --graph $(args "$S $D") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1 W8A8_KERNEL_DIR=/tmp/ka8-$1 timeout 100 $b bench --json --no-cublaslt --graph $(args "$P") --scale tensor --accum promoted \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
run base 1; run head 1; pk; run head 2; run base 2; pk
W8A8_TEMPLATE_DIR=$PWD/carry/tpl/head W8A8_KERNEL_DIR=/tmp/ka8-head timeout 100 $b bench --verify --json --no-cublaslt \
  --shape 1001,2112,7168 --shape 4099,7168,2048 --shape 2000,24576,1536 --shape 1500,32768,512 --scale block > $o/verify.jsonl 2>&1
echo "verify $? $SECONDS" >> $o/summary.txt; pk
tar xJf carry/tests.tar.xz -C carry/static
cd $(mktemp -d) && W8A8_TEMPLATE_DIR=$OLDPWD/carry/tpl/head CK_RUN_CASE=block CK_FORK=no W8A8_KERNEL_DIR=$PWD/k W8A8_CACHE_DB=$PWD/t.db \
  W8A8_TEST_KERNEL_DIR=$PWD/k W8A8_TEST_CACHE_DB=$PWD/t.db timeout 280 $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/block-tcase.log 2>&1
echo "block tcase $? $SECONDS" >> $o/summary.txt; pk
