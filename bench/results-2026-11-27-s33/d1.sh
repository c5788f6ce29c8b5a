#!/usr/bin/env bash
# D1 (H200): (1) Nsight Compute of our dispatched kernel and of cuBLASLt's (torch.tensor.fast)
# on three per-tensor decode shapes where we trail it (1x57344x8192: sm80_decode; 16x57344x8192,
# 32x8192x28672: sm90_gemm swap-AB), memory sections and DRAM/L2/L1 byte counts;
# (2) the swap-AB epilogue with the tokens' scales loaded before the first store (this tree)
# against HEAD's templates through the same build (carry/old-w8a8, carry/new-w8a8), decode grid,
# A B B A graph replays (bench/bin_ab.sh).
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty1.db
metrics=dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum,sm__cycles_active.avg,smsp__warps_active.avg.pct_of_peak_sustained_active
secs="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section WarpStateStats"
for s in 1,57344,8192 16,57344,8192 32,8192,28672; do
  timeout 150 ncu --clock-control none --kernel-name regex:w8a8_sm --launch-skip 5 --launch-count 1 \
    $secs --metrics $metrics carry/static/w8a8 bench --shape $s --scale tensor,tensor --no-cublaslt \
    > $o/ncu-ours-$s.txt 2>&1
  echo "ncu ours $s exit $? $SECONDS" >> $o/gpu.txt
  timeout 150 ncu --clock-control none --kernel-name 'regex:^(?!.*(fill|distribution|copy|elementwise|reduce|unrolled|vectorized|rand)).*' \
    --launch-skip 6 --launch-count 2 $secs --metrics $metrics \
    python3 carry/peers.py --shape $s --providers torch.tensor.fast --budget 20 \
    > $o/ncu-torch-$s.txt 2>&1
  echo "ncu torch $s exit $? $SECONDS" >> $o/gpu.txt
done
shapes=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 8 16 32; do shapes="$shapes $m,$nk"; done
done
for g in tensor,tensor row,row int8; do
  CHUNK=15 bench/bin_ab.sh carry/old-w8a8 carry/new-w8a8 $o/ab-${g%%,*}.jsonl $g $shapes 2>> $o/ab.err
  echo "ab $g $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
