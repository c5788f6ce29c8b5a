#!/usr/bin/env bash
# P1 (H200): where the HBM read ceiling lies. bench/stream_probe.cu (built here as
# carry/stream_probe) times pure reads of a weight matrix in the access patterns of our
# kernels and of cuBLASLt's, twice, beside peers.py (torch.tensor.fast, torch.bf16) and our
# shipped rows on the per-tensor decode shapes that lost in session 44's closing call.
o=$OUT/p1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,clocks.mem,power.limit --format=csv > $o/gpu.txt 2>&1
sh="--shape 2,57344,8192 --shape 16,57344,8192 --shape 16,8192,28672 --shape 1,8192,28672"
timeout 150 carry/stream_probe > $o/probe1.jsonl 2> $o/probe.err
echo "probe1 $? $SECONDS" >> $o/gpu.txt
timeout 120 python3 carry/peers.py $sh --providers torch.tensor.fast,torch.bf16 --out $o/peers.jsonl > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db timeout 120 \
  carry/static/w8a8 bench --json --no-cublaslt --graph --scale tensor,tensor $sh > $o/ours.jsonl 2> $o/ours.err
echo "ours $? $SECONDS" >> $o/gpu.txt
timeout 150 carry/stream_probe > $o/probe2.jsonl 2>> $o/probe.err
echo "probe2 $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/p1.tgz -C $OUT p1
