#!/usr/bin/env bash
# X6 (session 20): bulk-copied block scales (K-major A scales: one bulk copy a stage by one
# thread instead of the loader warps' cp.asyncs) against HEAD's build (carry/a): (1) both
# builds time one narrowed named space on 9 block keys, old new old new; (2) the shipped rows
# on the dsv3 grid at M >= 64 through each build, old new / peers / old new; (3) the sm90
# suite's block tcase (with the new bulk/loader test) from the new build.
set -u
o=$(mktemp -d)/x6; mkdir -p $o
pk() { tar czf $OUT/x6.tgz -C $(dirname $o) x6; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
nvidia-smi -L > $o/gpu.txt
python3 bench/narrow_space.py scripts/sm90_gemm.lua \
  block_m=128,block_n=112/128,stages=4/5,consumers=2,pingpong=0,raster=0,group=8,cluster=1,epilogue=1,split=1,specialize=1,overlap=0/1/2/3,stagger=0/1 \
  > /tmp/sm90_gemm.lua
B="512,7168,16384"; for m in 2048 4096; do for nk in 4096,7168 7168,16384 24576,1536 7168,2048; do B="$B $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
for r in 1 2; do for v in a static; do
  W8A8_KERNEL_DIR=/tmp/k-$v W8A8_CACHE_DB=/tmp/$v$r.db timeout 120 carry/$v/w8a8 tune --budget 100 --max-candidates 3000 --space /tmp/sm90_gemm.lua \
    --scale block --json $(args "$B") > $o/tune-$v$r.jsonl 2> $o/tune-$v$r.log
  echo "tune $v $r $? $SECONDS s" >> $o/summary.txt; pk
done; done
G=""; for m in 64 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do G="$G $m,$nk"; done; done
round() { for v in a static; do
  W8A8_KERNEL_DIR=/tmp/k-$v W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db timeout 60 carry/$v/w8a8 bench --json --no-cublaslt --graph $(args "$G") --scale block > $o/$v$1.jsonl 2>>$o/err.log
  done; echo "round $1 $SECONDS s" >> $o/summary.txt; }
round 1
timeout 100 python3 carry/peers.py $(args "$G") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS s" >> $o/summary.txt
round 2; pk
tar xJf carry/tests.tar.xz -C carry/static
CK_RUN_CASE=block W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/k-t timeout 250 carry/static/tests/check_gpu_sm90 > $o/sm90-block.log 2>&1
echo "sm90 block $? $SECONDS s" >> $o/summary.txt
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; pk
