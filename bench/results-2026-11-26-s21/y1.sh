#!/usr/bin/env bash
# Y1 (session 21): the yield hint on the block-scaled kernels' promotion FFMAs, patched into
# the stored cubins (bench/ffma_yield.py): HEAD's cubins (A) against the first 9/16 of each
# FFMA run patched (half) and every FFMA of each run patched (all), on the dsv3 grid with the
# shipped rows; --verify of each patched set; peers.py's torch.block in the same call.
set -u
o=$(mktemp -d)/y1; mkdir -p $o
pk() { tar czf $OUT/y1.tgz -C $(dirname $o) y1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
export PATH=$PATH:/usr/local/cuda/bin
B=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
W8A8_KERNEL_DIR=/tmp/kA timeout 200 $B bench --json --no-cublaslt --graph --grid dsv3 > $o/a0.jsonl 2>>$o/err.log
echo "populate $SECONDS s, $(ls /tmp/kA/*.cubin | wc -l) cubins" >> $o/summary.txt
for m in half all; do
  cp -r /tmp/kA /tmp/k$m
  python3 bench/ffma_yield.py --mode $m /tmp/k$m/*.cubin > $o/patch-$m.txt 2>&1
done
mkdir -p $o/sass
for f in $(ls /tmp/kA/*.cubin | head -40); do b=$(basename $f .cubin)
  cuobjdump -sass $f > $o/sass/$b-A.sass 2>&1; cuobjdump -sass /tmp/khalf/$b.cubin > $o/sass/$b-half.sass 2>&1; done
pk
for m in half all; do
  W8A8_KERNEL_DIR=/tmp/k$m timeout 150 $B bench --verify --no-cublaslt --grid dsv3 > $o/verify-$m.txt 2>&1
  echo "verify $m rc=$? $SECONDS s" >> $o/summary.txt
done
pk
for r in 1 2; do for v in A half all; do
  W8A8_KERNEL_DIR=/tmp/k$v timeout 100 $B bench --json --no-cublaslt --graph --grid dsv3 > $o/$v$r.jsonl 2>>$o/err.log
done; echo "round $r $SECONDS s" >> $o/summary.txt; pk
[ $r = 1 ] && timeout 120 python3 carry/peers.py --grid dsv3 --providers torch.block --out $o/peers.jsonl > $o/peers.log 2>&1
done
pk
