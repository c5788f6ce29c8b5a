#!/usr/bin/env bash
# D12 (H200): does sm80_gemm's rank() leave better INT8 configs out of the 32 it times at K =
# 4096 (where INT8 is 65.5–68 % of the mma.sync peak)? Every valid config of the space
# (`tune --space sm80_gemm`, no candidate cap) at four K = 4096 shapes, INT8 per-row, into a
# fresh database; the winners and their rank positions against D3's 32-candidate winners.
o=$OUT/d12; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
unset W8A8_CACHE_PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W8A8_CACHE_DB=/tmp/d12.db timeout 400 carry/static/w8a8 tune --space sm80_gemm --budget 380 \
  --dtype int8 --scale row --shape 2048,4096,4096 --shape 4096,4096,4096 \
  --shape 2048,6144,4096 --shape 2048,28672,4096 --json > $o/tune.jsonl 2> $o/tune.log
echo "tune exit $? $SECONDS" >> $o/gpu.txt
gzip $o/tune.jsonl
tar czf $OUT/d12.tgz -C $OUT d12 && rm -rf $o
