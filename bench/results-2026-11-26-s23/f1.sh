#!/usr/bin/env bash
# F1 (session 23, H200): (1) diagnostic: 128x128 two-consumer block and per-tensor kernels at
# 4096x4096x7168 and 512x4096x7168 with the loads cut after the ring's first lap (the
# producer and loaders arrive without copying; carry/tpl/noload) against the same templates
# with loads (carry/tpl/base), 3 rounds; (2) every GPU suite on the final build; (3) the
# DeepSeek-V3 grid, shipped caches, beside torch.block.
set -u
o=$(mktemp -d)/f1; mkdir -p $o
pk() { tar czf $OUT/f1.tgz -C $(dirname $o) f1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
for sc in block tensor; do
  W8A8_CACHE_DB=/tmp/f1-one.db W8A8_KERNEL_DIR=/tmp/kf1 timeout 60 $b tune --space carry/a3-one.lua --scale $sc \
    --shape 4096,4096,7168 --shape 512,4096,7168 --json > $o/tune-$sc.jsonl 2>> $o/err.log
done
for r in 1 2 3; do for v in base noload; do for sc in block tensor; do
  W8A8_TUNE=off W8A8_CACHE_DB=/tmp/f1-one.db W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v W8A8_KERNEL_DIR=/tmp/kf1-$v timeout 60 $b bench --json \
    --no-cublaslt --graph --shape 4096,4096,7168 --shape 512,4096,7168 --scale $sc | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/noload.jsonl 2>>$o/err.log
done; done; done
echo "noload $SECONDS" >> $o/summary.txt; pk
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=330 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kf1g
export W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py W8A8_PACK_NAME=grids
W8A8_SCALES="block,block" OUT=$o timeout 200 scripts/gpu-session.sh bench-grid:dsv3 > $o/grids.out 2>&1
echo "grids $? $SECONDS" >> $o/summary.txt; pk
