#!/usr/bin/env bash
# Z1 (session 22, H200): three experiments in one call.
#  a) sm80_gemm (issue 14): the first wave's second CTA per SM started D ns late (templates in
#     carry/tpl/dD, W8A8_TEMPLATE_DIR; a globaltimer wait before the main loop), D = 5, 11,
#     22, 33 µs, against the embedded template: the 2-CTA 128x128 configs (carry/z1-sm80.lua:
#     bench/narrow_space.py scripts/sm80_gemm.lua "block_m=128,block_n=128,block_k=64/128,
#     stages=3/4,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=0,epilogue=0/1") at
#     4096x{4096,28672}x4096, INT8 per-row, two rounds (the second in reverse order).
#  b) bench/wgmma_ffma.cu: does a promotion's FFMA work take time from the tensor cores?
#  c) 16 and 1 x 10240x8192 (per-tensor, per-row, block): the shipped rows (A) against rows
#     naming the M = 64 bucket's configs (B, carry/z1-rows.sql: the M = 64 rows of the H200
#     caches with m_bucket 1 / 16 and median 1.0), A B per shape, 3 rounds, peers.
#  d) block 128 x 2112x7168 and 128 x 7168x2048 (DeepGEMM's published 352 / 510 TFLOP/s):
#     the named sm90_gemm space, 400 configs, settle 100 ms; A/B as in c.
set -u
o=$(mktemp -d)/z1; mkdir -p $o
pk() { tar czf $OUT/z1.tgz -C $(dirname $o) z1; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 > $o/smi.csv 2>/dev/null &
smi=$!
# b) the microbenchmark first (10 s)
nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o /tmp/wf bench/wgmma_ffma.cu > $o/wf-build.log 2>&1 &&
  timeout 60 /tmp/wf 100000 > $o/wgmma_ffma.jsonl 2>> $o/wf-build.log
echo "wf $? $SECONDS" >> $o/summary.txt; pk
# a) desync
V="base d5000 d11000 d22000 d33000"
for r in 1 2; do
  order=$V; [ $r = 2 ] && order=$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')
  for v in $order; do
    td=""; [ $v != base ] && td="W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v"
    env $td W8A8_CACHE_DB=/tmp/z1-$v-$r.db W8A8_KERNEL_DIR=/tmp/kz1-$v timeout 100 $b tune \
      --space carry/z1-sm80.lua --dtype int8 --scale row --shape 4096,4096,4096 --shape 4096,28672,4096 \
      --max-candidates 64 --budget 80 --json > $o/sm80-$v-$r.jsonl 2> $o/sm80-$v-$r.err
    echo "sm80 $v $r $? $SECONDS" >> $o/summary.txt
  done; pk
done
# c) rows of 10240x8192
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/kz1
rm -f /tmp/z1-new.db; W8A8_CACHE_DB=/tmp/z1-new.db $b cache import carry/z1-rows.sql >> $o/err.log 2>&1
for s in 16,10240,8192 1,10240,8192; do for g in tensor row block; do for r in 1 2 3; do
  for v in A B; do db=/tmp/z1-empty.db; [ $v = B ] && db=/tmp/z1-new.db
    W8A8_CACHE_DB=$db timeout 30 $b bench --json --no-cublaslt --graph --shape $s --scale $g >> $o/rows-$v$r.jsonl 2>>$o/err.log
  done; done; done; done
echo "rows $SECONDS" >> $o/summary.txt; pk
# d) the DeepGEMM keys
unset W8A8_TUNE
W8A8_CACHE_DB=/tmp/z1-dg.db timeout 150 $b tune --space scripts/sm90_gemm.lua --max-candidates 400 --budget 130 \
  --settle 100 --scale block --shape 128,2112,7168 --shape 128,7168,2048 --json > $o/dg-tune.jsonl 2> $o/dg-tune.log
echo "dg tune $? $SECONDS" >> $o/summary.txt; pk
export W8A8_TUNE=off
for s in 128,2112,7168 128,7168,2048; do for r in 1 2 3; do for v in A B; do db=/tmp/z1-empty.db; [ $v = B ] && db=/tmp/z1-dg.db
  W8A8_CACHE_DB=$db timeout 30 $b bench --json --no-cublaslt --graph --shape $s --scale block >> $o/dg-$v$r.jsonl 2>>$o/err.log
done; done; done
echo "dg ab $SECONDS" >> $o/summary.txt; pk
args() { for s in $1; do printf ' --shape %s' $s; done; }
timeout 100 python3 carry/peers.py $(args "16,10240,8192 1,10240,8192 128,2112,7168 128,7168,2048") \
  --providers torch.tensor.fast,torch.row.fast,torch.block,torch.bf16 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $SECONDS" >> $o/summary.txt
$b cache --db /tmp/z1-dg.db export $o/dg-new.sql --winners 2>>$o/err.log
gzip $o/dg-tune.jsonl
kill $smi; gzip $o/smi.csv; pk
