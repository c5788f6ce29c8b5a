#!/usr/bin/env bash
# J5 (session 18, H100): the shipped caches as committed (J2's 20 kept rows in), promoted
# per-tensor / per-row Llama M = 512…8192 and block 2112x7168, graph replays: ours, the peers
# (cuBLASLt's accurate paths), ours again.
set -u
o=$(mktemp -d)/j5; mkdir -p $o
pk() { tar czf $OUT/j5.tgz -C $(dirname $o) j5; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kj5
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
s=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do s="$s --shape $m,$nk"; done; done
d=""; for m in 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192; do d="$d --shape $m,2112,7168"; done
ours() { for g in tensor row; do
    timeout 60 $b bench --json --no-cublaslt --graph --accum promoted --scale $g $s > $o/ours$1-$g.jsonl 2>>$o/err.log
  done
  timeout 40 $b bench --json --no-cublaslt --graph --scale block $d > $o/ours$1-block.jsonl 2>>$o/err.log; }
ours 1; echo "ours 1 $SECONDS s" >> $o/summary.txt; pk
timeout 100 python3 carry/peers.py $s --providers torch.tensor,torch.row --budget 90 --out $o/peers.jsonl > $o/peers.out 2>&1
echo "peers $SECONDS s" >> $o/summary.txt; pk
ours 2; echo "ours 2 $SECONDS s" >> $o/summary.txt; pk
