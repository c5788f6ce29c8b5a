#!/usr/bin/env bash
# Y4 (session 21, H200): each tile's K loop rotated (the producer starts tile u at K block
# (37u) mod k_blocks and wraps), so that the CTAs do not all read the same column offset of
# rows K bytes apart at once, against HEAD: template copy with W8A8_ROTATE 1 (carry/trot)
# through W8A8_TEMPLATE_DIR. Decode grid, shipped rows, per-tensor / per-row / block, rounds
# A rot twice; peers between; --verify of rot first.
set -u
o=$(mktemp -d)/y4; mkdir -p $o
pk() { tar czf $OUT/y4.tgz -C $(dirname $o) y4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
tdir() { [ $1 = A ] || echo $PWD/carry/t$1; }
for g in tensor block; do
  W8A8_TEMPLATE_DIR=$(tdir rot) W8A8_KERNEL_DIR=/tmp/k-rot timeout 100 $b bench --verify --no-cublaslt --grid decode --scale $g > $o/verify-rot-$g.txt 2>&1
  echo "verify rot $g rc=$? $SECONDS s" >> $o/summary.txt
done; pk
for r in 1 2; do for v in A rot; do for g in tensor row block; do
  W8A8_TEMPLATE_DIR=$(tdir $v) W8A8_KERNEL_DIR=/tmp/k-$v timeout 60 $b bench --json --no-cublaslt --graph --grid decode --scale $g > $o/$v$r-$g.jsonl 2>>$o/err.log
done; done; echo "round $r $SECONDS s" >> $o/summary.txt; pk
[ $r = 1 ] && timeout 150 python3 carry/peers.py --grid decode --providers torch.tensor.fast,torch.row.fast,torch.block,torch.bf16 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
done
echo "all $SECONDS s" >> $o/summary.txt; pk
