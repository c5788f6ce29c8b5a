#!/usr/bin/env bash
# D2 (H200): where the cycles go, Nsight Compute (--set full, no clock control), ours beside
# the peer on the same shape:
#   INT8 (issue 14): sm80_gemm's session-34 winner at 2048x4096x4096 (256x128, 3 stages,
#     prefetch 1; 65.5 % of the mma.sync peak) against torch._int_mm's CUTLASS kernel (68.8 %);
#     and the same config at 2048x4096x14336 (75.5 %), to see what a short K costs;
#   per-tensor FP8 fast accumulation (issue 10): our shipped row at 256x4096x14336 (0.978x)
#     against torch.tensor.fast's cuBLASLt kernel.
# Then a retune of the block key 128x28672x4096 (issue 10; 0.964x in session 36's D5) over a
# narrowed space, and that shape's bench beside torch.block.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
B=$PWD/carry/static/w8a8
N="ncu --clock-control none --set full --import-source no"
rep() { # NAME: the report's details and SASS source pages as CSV, gzipped
  ncu --import $o/$1.ncu-rep --page details --csv 2>&1 | gzip > $o/$1-details.csv.gz
  ncu --import $o/$1.ncu-rep --page source --print-source sass --csv 2>&1 | gzip > $o/$1-src.csv.gz
  rm -f $o/$1.ncu-rep
}
c="block_m=256,block_n=128,block_k=128,stages=3,warps_m=4,warps_n=2,slice_k=1,group=8,prefetch=1,epilogue=1"
python3 bench/narrow_space.py scripts/sm80_gemm.lua "$c" > /tmp/one80.lua
for s in 2048,4096,4096 2048,4096,14336; do
  nm=int8-${s//,/x}
  W8A8_CACHE_PATH= W8A8_KERNEL_DIR=/tmp/k2 W8A8_CACHE_DB=/tmp/one80-$nm.db timeout 120 $N \
    -k regex:w8a8_sm80_gemm --launch-skip 3 -c 1 -o $o/$nm $B tune --space /tmp/one80.lua \
    --dtype int8 --scale row --shape $s > $o/$nm.log 2>&1
  echo "$nm exit $? $SECONDS" >> $o/gpu.txt; rep $nm
done
timeout 120 $N -k regex:"Kernel2|gemm|cutlass" --launch-skip 3 -c 1 -o $o/intmm-2048x4096x4096 \
  python3 carry/peers.py --shape 2048,4096,4096 --providers torch.int8 > $o/intmm.log 2>&1
echo "int_mm exit $? $SECONDS" >> $o/gpu.txt; rep intmm-2048x4096x4096
tar czf $OUT/d2.tgz -C $OUT d2
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/k2 \
  timeout 120 $N -k regex:w8a8_sm90 --launch-skip 2 -c 1 -o $o/tensor-256x4096x14336 $B bench \
  --scale tensor,tensor --shape 256,4096,14336 > $o/tensor.log 2>&1
echo "tensor exit $? $SECONDS" >> $o/gpu.txt; rep tensor-256x4096x14336
timeout 120 $N -k regex:"nvjet|gemm|xmma|cutlass" --launch-skip 3 -c 1 -o $o/cublas-256x4096x14336 \
  python3 carry/peers.py --shape 256,4096,14336 --providers torch.tensor.fast > $o/cublas.log 2>&1
echo "cublas exit $? $SECONDS" >> $o/gpu.txt; rep cublas-256x4096x14336
tar czf $OUT/d2.tgz -C $OUT d2
sp="block_m=128,block_n=96/112/128/160/176,stages=4/5/6,consumers=2,pingpong=0,raster=0,group=8,cluster=1/2,epilogue=1,split=1,specialize=1,overlap=0/1/3,stagger=0,wave=0,tail=1"
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$sp" > /tmp/sp.lua
W8A8_CACHE_PATH= W8A8_CACHE_DB=/tmp/r.db W8A8_KERNEL_DIR=/tmp/k2 timeout 150 $B tune --space /tmp/sp.lua \
  --seed --settle 100 --shape 128,28672,4096 --scale block,block --json > $o/tune.jsonl 2>> $o/err.log
echo "tune exit $? $SECONDS" >> $o/gpu.txt
for r in 1 2; do
  W8A8_CACHE_PATH= W8A8_TUNE=off W8A8_CACHE_DB=/tmp/r.db W8A8_KERNEL_DIR=/tmp/k2 timeout 60 $B bench \
    --json --graph --no-cublaslt --scale block,block --shape 128,28672,4096 >> $o/ours-r.jsonl 2>> $o/err.log
  W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/k2 timeout 60 \
    $B bench --json --graph --no-cublaslt --scale block,block --shape 128,28672,4096 >> $o/ours-shipped.jsonl 2>> $o/err.log
  timeout 60 python3 carry/peers.py --shape 128,28672,4096 --providers torch.block >> $o/peers.jsonl 2>> $o/err.log
done
echo "bench exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
