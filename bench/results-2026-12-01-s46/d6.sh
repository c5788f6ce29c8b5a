#!/usr/bin/env bash
# D6 (H200), after the review mend (host config check of block_k, the swap test's split call):
# w8a8 bench --graph on the shipped caches beside peers.py at per-tensor decode shapes (the
# block_k and cluster rows among them), then the swap suite and check_gpu_sm90's wide tcase.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
S="--shape 1,57344,8192 --shape 16,57344,8192 --shape 16,8192,8192 --shape 16,8192,28672"
S="$S --shape 32,8192,28672 --shape 64,4096,14336 --shape 16,28672,4096 --shape 8,4096,14336"
# shellcheck disable=SC2086
W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/empty6.db timeout 60 \
  carry/static/w8a8 bench $S --scale tensor,tensor --graph --json --no-cublaslt \
  > $o/ours-tensor.jsonl 2> $o/bench.err
echo "bench $? $SECONDS" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 60 python3 carry/peers.py $S --providers torch.tensor.fast,torch.bf16 --out $o/peers.jsonl \
  > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6
R=$PWD
suite() { # name binary [tcase]
  mkdir -p /tmp/s-$1
  (cd /tmp/s-$1 && env W8A8_KERNEL_DIR=/tmp/s-$1/k W8A8_CACHE_DB=/tmp/s-$1/t.db ${3:+CK_RUN_CASE=$3} \
    timeout 250 $R/carry/static/tests/$2 > $o/$1.log 2>&1; echo "$1 exit $? $SECONDS" >> $o/gpu.txt)
}
suite swap check_gpu_swap &
suite wide check_gpu_sm90 wide &
wait
tar czf $OUT/d6.tgz -C $OUT d6
