#!/usr/bin/env bash
# J3 (session 18, H100): the decode suite (check_gpu_decode: test_family_block_shapes and the
# other loops moved into tests/testutil.c in session 17, not yet run on a GPU), then a second
# A/B round of J2's rows (carry/j2.sql: A = shipped caches, B = J2's rows over them), interleaved,
# beside cuBLASLt's accurate paths and torch.block.
set -u
o=$(mktemp -d)/j3; mkdir -p $o
pk() { tar czf $OUT/j3.tgz -C $(dirname $o) j3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=250 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="decode" OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_KERNEL_DIR=/tmp/kj3
s=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do s="$s --shape $m,$nk"; done; done
d=""; for m in 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192; do d="$d --shape $m,2112,7168"; done
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
$b cache --db /tmp/j2.db import carry/j2.sql >> $o/err.log 2>&1
for r in 1 2; do for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=/tmp/j2.db
  for g in tensor row; do
    W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph --accum promoted --scale $g $s > $o/$v$r-$g.jsonl 2>>$o/err.log
  done
  W8A8_CACHE_DB=$db timeout 40 $b bench --json --no-cublaslt --graph --scale block $d > $o/$v$r-block.jsonl 2>>$o/err.log
done; done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 100 python3 carry/peers.py $s --providers torch.tensor,torch.row --budget 90 --out $o/peers.jsonl > $o/peers.out 2>&1
timeout 60 python3 carry/peers.py $d --providers torch.block --budget 50 --out $o/peers-block.jsonl > $o/peers-block.out 2>&1
echo "all $SECONDS s" >> $o/summary.txt; pk
