#!/usr/bin/env bash
# D6 (H200): which kernels cuBLASLt runs where it out-streamed ours at M = 16 in dclose / D4
# (torch.tensor.fast, torch.bf16): name (tile, cluster, schedule), grid, block, registers,
# shared memory, time (bench/cublas_kernels.py); the memory clock recorded.
o=$OUT/d6; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 120 python3 bench/cublas_kernels.py --shape 16,57344,8192 --shape 16,8192,28672 \
  --shape 16,28672,4096 --shape 1,57344,8192 --providers tensor.fast,bf16 > $o/kernels.jsonl 2> $o/err.txt
echo "exit $? $SECONDS" >> $o/gpu.txt
