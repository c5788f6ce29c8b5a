#!/usr/bin/env bash
# P2 (H200): stream_probe's second sweep (tile rows 64/128/256 in round-robin and band order,
# split-K into 1/2/4 parts, wider stages) on the four weight shapes of the per-tensor decode
# grid that lost or came close, twice.
o=$OUT/p2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,clocks.mem,power.limit --format=csv > $o/gpu.txt 2>&1
for r in 1 2; do
  timeout 200 carry/stream_probe 57344 8192 8192 28672 28672 4096 4096 14336 > $o/probe$r.jsonl 2>> $o/probe.err
  echo "probe$r $? $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/p2.tgz -C $OUT p2
