#!/usr/bin/env bash
# A11 (session 23, H200): F3 and F5 put 10 % of the block loop's cycles on executing the scale
# copies (LDGSTS), not on waiting for them. Variant `bulka` (a11-bulka.patch): with K-major A
# scales at a 16-byte aligned address and pitch, loader 0's lane 0 copies each stage's A
# scales with one bulk copy through the TMA engine (expect_tx on the stage's full barrier);
# the B scales as before. A/B on 59 block shapes, shipped caches, two rounds each order;
# --verify on odd shapes (M a multiple of 4: the bulk path; else the loaders); then
# gpu_sm90's block tcase against bulka, as long as the budget lasts.
set -u
o=$(mktemp -d)/a11; mkdir -p $o
pk() { tar czf $OUT/a11.tgz -C $(dirname $o) a11; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
Q="16,8192,28672 32,8192,28672 16,4096,14336 32,57344,8192 64,8192,8192"
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/a11-empty.db
run() { # variant round
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1 W8A8_KERNEL_DIR=/tmp/ka11-$1 timeout 150 $b bench --json --no-cublaslt --graph $(args "$S $D $Q") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
run base 1; run bulka 1; pk; run bulka 2; run base 2; pk
W8A8_TEMPLATE_DIR=$PWD/carry/tpl/bulka W8A8_KERNEL_DIR=/tmp/ka11-bulka timeout 100 $b bench --verify --json --no-cublaslt \
  --shape 1000,2112,7168 --shape 1001,2112,7168 --shape 4096,7168,2048 --shape 2000,24576,1536 --shape 17,8192,28672 \
  --shape 516,4096,7168 --shape 128,2112,7168 --scale block > $o/verify.jsonl 2>&1
echo "verify $? $SECONDS" >> $o/summary.txt; pk
tar xJf carry/tests.tar.xz -C carry/static
( d=$(mktemp -d); cd $d; export CK_RUN_CASE=block
  W8A8_TEMPLATE_DIR=$OLDPWD/carry/tpl/bulka CK_FORK=no W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db \
  W8A8_TEST_KERNEL_DIR=$d/k W8A8_TEST_CACHE_DB=$d/t.db timeout 190 $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/block.log 2>&1
  echo "block $? $SECONDS" >> $o/summary.txt )
pk
