#!/usr/bin/env bash
# D4 (H200): the Llama shapes at M <= 512 that ran below their torch peer in session 29's D4
# (compute-bound per-tensor / per-row / block; the memory-bound decode rows left out), each
# tuned over the whole named space sm90_gemm (split, stagger, every overlap at every M),
# seeded with nothing but timed beside the shipped row afterwards: bench/sweep_rows.sh (tune,
# then shipped rows A against the tune's winners B, graph replays A B B A).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k4
nvidia-smi -L > $o/gpu.txt
echo "sm90_gemm 64,4096,14336 256,4096,14336 512,4096,14336 256,6144,4096 256,8192,8192 64,8192,28672 128,8192,28672 256,8192,28672" > $o/g-tensor.txt
echo "sm90_gemm 256,8192,8192 256,4096,14336 512,4096,14336" > $o/g-row.txt
echo "sm90_gemm 256,8192,8192 512,4096,14336 256,4096,14336" > $o/g-block.txt
BUDGET=150 bench/sweep_rows.sh $o/g-tensor.txt tensor fast $o/tensor /tmp/d4-tensor.db
echo "tensor $SECONDS" >> $o/gpu.txt
BUDGET=70 bench/sweep_rows.sh $o/g-row.txt row fast $o/row /tmp/d4-row.db
echo "row $SECONDS" >> $o/gpu.txt
BUDGET=70 bench/sweep_rows.sh $o/g-block.txt block fast $o/block /tmp/d4-block.db
echo "block $SECONDS" >> $o/gpu.txt
for s in tensor row block; do gzip -c /tmp/d4-$s.db > $o/$s/tune.db.gz; done
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
