#!/usr/bin/env bash
# C1 (session 24, H200): (1) every GPU suite on HEAD's build (session 23's bulk copy of the A
# block scales never met the full suites); (2) the DeepSeek-V3 grid and the Llama M <= 512 grid,
# block scales, shipped caches, beside peers.py (torch.block); (3) session 23's prepared
# experiment: only the copying loader lanes arrive (carry/tpl/arrive3, next-arrive3.patch)
# against HEAD's templates (carry/tpl/base), 2 rounds in each order, then --verify.
set -u
o=$(mktemp -d)/c1; mkdir -p $o
pk() { tar czf $OUT/c1.tgz -C $(dirname $o) c1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS" >> $o/summary.txt; pk
( export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kg
  export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_SCALES="block,block"
  W8A8_PACK_NAME=grid-dsv3 OUT=$o timeout 100 scripts/gpu-session.sh bench-grid:dsv3 > $o/grid-dsv3.out 2>&1
  echo "dsv3 $? $SECONDS" >> $o/summary.txt
  W8A8_PACK_NAME=grid-small OUT=$o timeout 100 scripts/gpu-session.sh bench-grid:llama3-small > $o/grid-small.out 2>&1
  echo "small $? $SECONDS" >> $o/summary.txt ); pk
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/c1-empty.db
run() { # variant round
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$1 W8A8_KERNEL_DIR=/tmp/kc1-$1 timeout 65 $b bench --json --no-cublaslt --graph $(args "$S $D") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
run base 1; run arrive3 1; pk; run arrive3 2; run base 2; pk
W8A8_TEMPLATE_DIR=$PWD/carry/tpl/arrive3 W8A8_KERNEL_DIR=/tmp/kc1-arrive3 timeout 60 $b bench --verify --json --no-cublaslt \
  --shape 1000,2112,7168 --shape 1001,2112,7168 --shape 128,2112,7168 --shape 516,4096,7168 --scale block > $o/verify.jsonl 2>&1
echo "verify $? $SECONDS" >> $o/summary.txt; pk
