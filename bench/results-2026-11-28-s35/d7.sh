#!/usr/bin/env bash
# D7 (H200): the closing grids on the final build and cache (bench/grids_beside_peers.sh:
# decode and Llama M <= 512 in every granularity with every torch provider, DeepSeek-V3 block
# with torch.block); then the SM clock the INT8 kernels run at (Nsight Compute, SpeedOfLight,
# --clock-control none): the mma.sync peak microbenchmark, sm80_gemm's D3 (session 34) winner
# at 2048x4096x4096 and torch._int_mm's kernel at the same shape.
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 330 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d7.tgz -C $OUT d7
unset W8A8_CACHE_PATH
B=carry/static/w8a8
sec="--section SpeedOfLight"
W8A8_KERNEL_DIR=/tmp/k7 timeout 60 ncu --clock-control none $sec -k regex:w8a8_mma_peak -c 2 \
  $B bench --op mma-peak > $o/ncu-peak.txt 2>&1
echo "peak exit $? $SECONDS" >> $o/gpu.txt
c="block_m=256,block_n=128,block_k=128,stages=3,warps_m=4,warps_n=2,slice_k=1,group=8,prefetch=1,epilogue=1"
python3 bench/narrow_space.py scripts/sm80_gemm.lua "$c" > /tmp/one80.lua
W8A8_KERNEL_DIR=/tmp/k7 W8A8_CACHE_DB=/tmp/one80.db timeout 60 ncu --clock-control none $sec \
  -k regex:w8a8_sm80_gemm --launch-skip 3 -c 1 $B tune --space /tmp/one80.lua --dtype int8 \
  --scale row --shape 2048,4096,4096 > $o/ncu-sm80.txt 2>&1
echo "sm80 exit $? $SECONDS" >> $o/gpu.txt
timeout 60 ncu --clock-control none $sec -k regex:"gemm|cutlass|xmma|nvjet" --launch-skip 3 -c 1 \
  python3 carry/peers.py --shape 2048,4096,4096 --providers torch.int8 > $o/ncu-int-mm.txt 2>&1
echo "int_mm exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d7.tgz -C $OUT d7 && rm -rf $o
