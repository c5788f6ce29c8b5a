#!/usr/bin/env bash
# C2 (session 24, H200): the B block scales read by the consumers straight from global memory
# (one broadcast __ldg a K block, issued before the wgmmas) instead of copied by the scale
# loaders, so with the bulk-copied A scales only loader 0's lane 0 walks the ring and a
# stage's full barrier takes 2 arrivals (carry/tpl/gb), against HEAD (carry/tpl/base).
# Session 20 saw overlap 1 beat overlap 0 once the loaders were cut out: (1) a narrowed tune
# per variant (carry/c2.lua: 128x128, two consumers, 4/5 stages, overlap 0-3, stagger 0/1;
# every candidate verified by the tuner) on 8 block keys; (2) each variant's winners and
# the shipped rows timed as graph replays, 2 rounds alternating, torch.block beside;
# (3) gb against the reference on odd shapes (bench --verify, shipped configs) and the
# block tcase of check_gpu_sm90 on gb's templates.
# Set up before the call: carry/tpl/base = HEAD's templates, carry/tpl/gb = the same with
# tpl/c2-gb.patch applied, and
#   bench/narrow_space.py scripts/sm90_gemm.lua block_m=128,block_n=128,stages=4/5,consumers=2,\
#     pingpong=0,raster=0,group=8,cluster=1,epilogue=1,split=1,specialize=0,overlap=0/1/2/3,\
#     stagger=0/1,wave=0 > carry/c2.lua
set -u
o=$(mktemp -d)/c2; mkdir -p $o
pk() { tar czf $OUT/c2.tgz -C $(dirname $o) c2; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
K="512,4096,7168 512,4096,14336 512,4096,4096 256,8192,8192 4096,4096,7168 2048,7168,2048 1024,24576,1536 512,57344,8192"
args() { for s in $1; do printf ' --shape %s' $s; done; }
for v in base gb; do
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kc2-$v W8A8_CACHE_DB=/tmp/c2-$v.db timeout 150 $b tune \
    --space carry/c2.lua --scale block $(args "$K") --max-candidates 100 --budget 140 --json > $o/tune-$v.jsonl 2> $o/tune-$v.log
  echo "tune $v $? $SECONDS" >> $o/summary.txt; pk
done
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
run() { # name templates db round
  W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$2 W8A8_KERNEL_DIR=/tmp/kc2-$2 W8A8_CACHE_DB=$3 timeout 60 $b bench --json --no-cublaslt --graph \
    $(args "$K") --scale block | sed "s/^{/{\"build\": \"$1\", \"round\": $4, /" >> $o/ab.jsonl 2>>$o/err.log
}
for r in 1 2; do
  run shipped base /tmp/c2-empty.db $r; run base base /tmp/c2-base.db $r; run gb gb /tmp/c2-gb.db $r
  run gb-shipped gb /tmp/c2-empty.db $r
done
echo "ab $SECONDS" >> $o/summary.txt; pk
timeout 60 python3 carry/peers.py $(args "$K") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt; pk
W8A8_TEMPLATE_DIR=$PWD/carry/tpl/gb W8A8_KERNEL_DIR=/tmp/kc2-gb W8A8_CACHE_DB=/tmp/c2-empty.db timeout 60 $b bench --verify --json --no-cublaslt \
  --shape 1000,2112,7168 --shape 1001,2112,7168 --shape 128,2112,7168 --shape 516,4096,7168 --shape 3,24576,1536 \
  --shape 77,7168,2048 --shape 2049,4096,7168 --scale block > $o/verify.jsonl 2>&1
echo "verify $? $SECONDS" >> $o/summary.txt; pk
tar xJf carry/tests.tar.xz -C carry/static
( d=$(mktemp -d); cd $d; export CK_RUN_CASE=block
  W8A8_TEMPLATE_DIR=$OLDPWD/carry/tpl/gb CK_FORK=no W8A8_KERNEL_DIR=$d/k W8A8_CACHE_DB=$d/t.db \
  W8A8_TEST_KERNEL_DIR=$d/k W8A8_TEST_CACHE_DB=$d/t.db timeout 240 $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/block.log 2>&1
  echo "block $? $SECONDS" >> $o/summary.txt )
pk
