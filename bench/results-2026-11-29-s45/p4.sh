#!/usr/bin/env bash
# P4 (H200): stream_probe with sm80_decode's layout whose unrolled chunks are neighbours (dec,
# consecutive 1) beside P3's patterns, on the
# four weight shapes of the per-tensor decode grid, twice.
o=$OUT/p4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,clocks.mem,power.limit --format=csv > $o/gpu.txt 2>&1
for r in 1 2; do
  timeout 200 carry/stream_probe 57344 8192 8192 28672 28672 4096 4096 14336 > $o/probe$r.jsonl 2>> $o/probe.err
  echo "probe$r $? $SECONDS" >> $o/gpu.txt
done
tar czf $OUT/p4.tgz -C $OUT p4
