#!/usr/bin/env bash
# D6 (H200): swap-AB with a cluster of 2 (two 64-row weight tiles sharing one multicast token
# tile, as cuBLASLt's nvjet 64x32 2x1 kernel does; the template builds it, sm90_swap.lua does
# not offer it), on the per-tensor decode keys where we trail (D1: our 32x8192x28672 kernel 4 %
# slower alone). Candidate rows carry/v/{c1,c2,s16}.sql (c1: 1 consumer, 16 stages, cluster 2;
# c2: 2 ping-pong consumers, cluster 2; s16: 16 stages, cluster 1, the control) as user
# databases (B) against the shipped rows (A), A B B A graph replays (bench/bin_ab.sh), each
# first verified against the reference (w8a8 bench --verify) at M in the bucket and odd M.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k6
shapes="16,8192,28672 32,8192,28672 16,57344,8192 32,57344,8192 16,28672,4096 32,28672,4096"
odd="--shape 13,8192,28672 --shape 29,8192,28672 --shape 11,57344,8192 --shape 27,28672,4096"
for v in c1 c2 s16; do
  carry/static/w8a8 cache --db /tmp/$v.db import carry/v/$v.sql >> $o/import.log 2>&1
  W8A8_CACHE_DB=/tmp/$v.db W8A8_TUNE=off timeout 120 carry/static/w8a8 bench --verify --json --no-cublaslt \
    --scale tensor,tensor $(for s in $shapes; do printf -- '--shape %s ' $s; done) $odd > $o/verify-$v.jsonl 2>&1
  echo "verify $v exit $? $SECONDS" >> $o/gpu.txt
  B_DB=/tmp/$v.db CHUNK=6 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-$v.jsonl tensor,tensor $shapes 2>> $o/ab.err
  echo "ab $v $SECONDS" >> $o/gpu.txt
done
timeout 60 python3 carry/peers.py --shape 16,8192,28672 --shape 32,8192,28672 --shape 16,57344,8192 \
  --shape 32,57344,8192 --shape 16,28672,4096 --shape 32,28672,4096 --providers torch.tensor.fast \
  --out $o/peers.jsonl > $o/peers.log 2>&1
echo "peers $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
