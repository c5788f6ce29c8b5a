#!/usr/bin/env bash
# X9 (session 20): a diagnostic build whose sm90_gemm loads the weights with an L2 evict-first
# policy (carry/e) against HEAD's (carry/a): the shipped rows on the decode grid (per-tensor,
# per-row, block), a b e a e a b, graph replays.
set -u
o=$(mktemp -d)/x9; mkdir -p $o
pk() { tar czf $OUT/x9.tgz -C $(dirname $o) x9; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
nvidia-smi -L > $o/gpu.txt
for r in 1 2 3; do for v in a e; do for g in tensor row block; do
  W8A8_KERNEL_DIR=/tmp/k-$v timeout 40 carry/$v/w8a8 bench --json --no-cublaslt --graph --grid decode --scale $g > $o/$v$r-$g.jsonl 2>>$o/err.log
done; done; echo "round $r $SECONDS s" >> $o/summary.txt; pk; done
