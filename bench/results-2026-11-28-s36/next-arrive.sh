#!/usr/bin/env bash
# PREPARED FOR THE NEXT SESSION, NOT RUN (no device time was left in session 36).
# Block scales' transport cost 6-7 % of a K block (D2: the loaders arriving without copying ran
# 1.06-1.07x). In the bulk path (K-major, aligned A scales) all 64 loader lanes arrive on every
# full barrier though 1 + SM90_SB_COUNT copy: arrive-few.patch has only the copying lanes of the
# last loader run the ring (2 + SM90_SB_COUNT arrivals). Setup on the host:
#   mkdir -p carry/tpl/arrive && cp -r templates carry/tpl/arrive/ &&
#   (cd carry/tpl/arrive && patch -p0 templates/sm90_gemm.cuh < ../../../bench/results-2026-11-28-s36/arrive-few.patch)
#   mkdir -p carry/tpl/base && cp -r templates carry/tpl/base/
# (the patch is a diff of templates/sm90_gemm.cuh at commit 936af81). Then on the device:
# D2's harness (tune once, bench each template dir, 3 rounds), and check_gpu_sm90's block tcase
# against the patched templates (W8A8_TEMPLATE_DIR reaches the library's JIT in the tests too).
o=$OUT/arrive; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
B=$PWD/carry/static/w8a8
cfg() { echo "block_m=128,block_n=$1,stages=$2,consumers=2,pingpong=0,raster=0,group=$3,cluster=1,epilogue=$4,split=1,specialize=1,overlap=$5,stagger=0,wave=0,tail=1"; }
tune1() {
  python3 bench/narrow_space.py scripts/sm90_gemm.lua "$2" > /tmp/sp.lua
  W8A8_CACHE_PATH= W8A8_CACHE_DB=$1 W8A8_KERNEL_DIR=/tmp/k-tune $B tune --space /tmp/sp.lua \
    --shape $3 --scale block,block --json >> $o/tune.jsonl 2>> $o/err.log
}
tune1 /tmp/A.db "$(cfg 176 4 8 1 0)" 2048,8192,8192
tune1 /tmp/A.db "$(cfg 128 5 16 1 3)" 512,8192,8192
tune1 /tmp/B.db "$(cfg 128 5 16 2 3)" 4096,4096,7168
for r in 1 2 3; do for v in base arrive; do for db in A B; do
  W8A8_TUNE=off W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/$db.db W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v/templates \
    W8A8_KERNEL_DIR=/tmp/k-$v timeout 60 $B bench --json --no-cublaslt --graph --scale block,block \
    --shape 2048,8192,8192 --shape 512,8192,8192 --shape 4096,4096,7168 \
    | sed "s/^{/{\"variant\": \"$v\", \"round\": $r, /" >> $o/bench.jsonl 2>> $o/err.log
done; done; done
d=$(mktemp -d)
(cd $d && CK_RUN_CASE=block W8A8_TEMPLATE_DIR=$OLDPWD/carry/tpl/arrive/templates W8A8_KERNEL_DIR=$d/k \
   W8A8_CACHE_DB=$d/t.db W8A8_TEST_KERNEL_DIR=$d/k W8A8_TEST_CACHE_DB=$d/t.db CK_FORK=no timeout 420 \
   $OLDPWD/carry/static/tests/check_gpu_sm90 > $o/sm90-block.log 2>&1; echo "block exit $?" >> $o/gpu.txt)
tar czf $OUT/arrive.tgz -C $OUT arrive
