#!/usr/bin/env bash
# A1 (session 23, H200): which kernels cuBLASLt runs (name, grid, block) for the shapes where
# we lose: the per-tensor and block Llama shapes at 128 tiles, the dsv3 M = 512 ones, decode.
set -u
o=$OUT/a1; mkdir -p $o
nvidia-smi -L > $o/gpu.txt
S="512,4096,14336 256,8192,8192 256,8192,28672 128,4096,14336 128,8192,28672 512,4096,7168 512,8192,8192 256,28672,4096 512,4096,4096 512,7168,2048 128,2112,7168 4096,4096,7168 16,10240,8192 16,8192,28672 512,6144,4096 256,10240,8192"
args=""; for s in $S; do args="$args --shape $s"; done
timeout 300 python3 bench/cublas_kernels.py $args > $o/kernels.jsonl 2> $o/err.log
echo "rc $? $SECONDS" > $o/summary.txt
