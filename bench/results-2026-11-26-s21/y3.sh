#!/usr/bin/env bash
# Y3 (session 21, H200): the producer issuing K blocks in batches (wait for 2 or 4 free stages,
# then load them back to back: each weight row's 256 / 512 contiguous bytes requested together)
# against HEAD, through W8A8_TEMPLATE_DIR copies with W8A8_FILL_BATCH 2 / 4 (carry/tb2, tb4).
# Decode grid, shipped rows, per-tensor / per-row / block, rounds A b2 b4 twice; peers between;
# --verify of b4 on the decode grid first.
set -u
o=$(mktemp -d)/y3; mkdir -p $o
pk() { tar czf $OUT/y3.tgz -C $(dirname $o) y3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
tdir() { [ $1 = A ] || echo $PWD/carry/t$1; }
for g in tensor block; do
  W8A8_TEMPLATE_DIR=$(tdir b4) W8A8_KERNEL_DIR=/tmp/k-b4 timeout 100 $b bench --verify --no-cublaslt --grid decode --scale $g > $o/verify-b4-$g.txt 2>&1
  echo "verify b4 $g rc=$? $SECONDS s" >> $o/summary.txt
done; pk
for r in 1 2; do for v in A b2 b4; do for g in tensor row block; do
  W8A8_TEMPLATE_DIR=$(tdir $v) W8A8_KERNEL_DIR=/tmp/k-$v timeout 60 $b bench --json --no-cublaslt --graph --grid decode --scale $g > $o/$v$r-$g.jsonl 2>>$o/err.log
done; done; echo "round $r $SECONDS s" >> $o/summary.txt; pk
[ $r = 1 ] && timeout 150 python3 carry/peers.py --grid decode --providers torch.tensor.fast,torch.row.fast,torch.block,torch.bf16 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
done
echo "all $SECONDS s" >> $o/summary.txt; pk
