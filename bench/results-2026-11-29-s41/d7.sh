#!/usr/bin/env bash
# D7 (H200): does our cluster=2 multicast read B from L2 once per CTA pair, as cuBLASLt's
# clusters do? L2 read sectors and bytes, DRAM reads and the L2-to-SM crossbar bytes of one
# launch at 256x8192x8192: our shipped rows (cluster 1), the same rows with cluster=2
# (cl2.sql, as D6), and cuBLASLt's kernels (torch._scaled_mm), block and per-tensor.
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k-d7
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
W8A8_CACHE_DB=/tmp/cl2.db $W cache import bench/results-2026-11-29-s41/cl2.sql >> $o/gpu.txt 2>&1
M=lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum
M=$M,l1tex__m_xbar2l1tex_read_bytes.sum,sm__ctas_launched.sum,gpu__time_duration.sum
M=$M,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
for s in block tensor; do
  for v in cl1 cl2; do
    db=/tmp/empty-d7.db; [ $v = cl2 ] && db=/tmp/cl2.db
    W8A8_CACHE_DB=$db timeout 100 ncu --clock-control none --kernel-name w8a8_sm90_gemm \
      --launch-skip 3 --launch-count 1 --metrics $M \
      $W bench --shape 256,8192,8192 --scale $s,$s --no-cublaslt --samples 5 > $o/ncu-$v-$s.txt 2>&1
    echo "ncu $v $s exit $? $SECONDS" >> $o/gpu.txt
  done
  timeout 100 ncu --clock-control none --kernel-name regex:nvjet --launch-skip 3 --launch-count 1 \
    --metrics $M python3 bench/results-2026-11-29-s41/torch_one.py 256,8192,8192 $s \
    > $o/ncu-cublas-$s.txt 2>&1
  echo "ncu cublas $s exit $? $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/d7.tgz -C $OUT d7 && rm -rf $o
