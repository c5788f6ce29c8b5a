#!/usr/bin/env bash
# D12 (H200), a probe: is D11's slow partial last M tile the tensor map's L2 promotion or its
# out-of-bounds fill? carry/hack reads W8A8_EXP_PROMO (0 none, 1 64B, 2 128B, 3 256B: the
# default) and W8A8_EXP_OOB (1: NaN-request-zero-FMA) for every TMA map of sm90_gemm (a build
# not in the tree); per-row, D11's shapes, two rounds.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/none.db W8A8_KERNEL_DIR=/tmp/kd12
s=""
for m in 129 192 200 256; do s="$s --shape $m,4096,4096"; done
for m in 200 256 900 1024; do s="$s --shape $m,8192,8192"; done
for r in 1 2; do
  for v in 3: 0: 1: 2: 3:1; do
    W8A8_EXP_PROMO=${v%%:*} W8A8_EXP_OOB=${v##*:} carry/hack/w8a8 bench --json --graph \
      --no-cublaslt --scale row,row $s | sed "s/^{/{\"v\": \"$v\", \"r\": $r, /" >> $o/probe.jsonl \
      2>> $o/err.log
  done
done
