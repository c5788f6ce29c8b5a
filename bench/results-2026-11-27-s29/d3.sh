#!/usr/bin/env bash
# D3 (H200): L2 prefetch-size hints, A (carry/v10: the committed build) against B
# (carry/static: the same with sm80_decode's weight loads .L2::256B and common/sm80.cuh's
# cp.async .L2::128B): A B B A graph replays over the decode grid's M = 1...8 every
# granularity (sm80_decode's rows), then bench/sm80_ab.sh (sm80_gemm's large-tile INT8 configs
# timed by each build's tuner at 4096^3 and 4096x28672x4096, two rounds). SM clock and power
# sampled all along. One tarball.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 100 \
  > $o/clocks.csv 2>&1 &
smi=$!
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8; do shapes="$shapes $m,$nk"; done
done
for s in tensor,tensor row,row int8 block,block; do
  CHUNK=20 bash bench/bin_ab.sh carry/v10/w8a8 carry/static/w8a8 $o/ab-${s%%,*}.jsonl $s $shapes \
    2>> $o/err.log
  echo "ab $s $SECONDS" >> $o/gpu.txt
done
OUT=$o timeout 420 bash bench/sm80_ab.sh carry/v10 carry/static > $o/sm80-ab.log 2>&1
echo "sm80-ab $SECONDS" >> $o/gpu.txt
kill $smi
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
