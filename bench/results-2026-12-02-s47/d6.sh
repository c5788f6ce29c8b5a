#!/usr/bin/env bash
# D6 (H200): after the mend of the 32x8192x8192 per-tensor row (D5 ran sm80_decode's default
# there: the row's config carried fill=0, which this build does not parse): the decode and
# Llama M <= 512 grids per-tensor beside peers.py (torch.tensor.fast, torch.bf16), as
# bench/grids_beside_peers.sh runs them.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db \
  W8A8_BIN=carry/static W8A8_PEERS=carry/peers.py
for g in decode llama3-small; do
  W8A8_PROVIDERS=torch.tensor.fast,torch.bf16 W8A8_SCALES="tensor,tensor" OUT=$o \
    timeout 100 scripts/gpu-session.sh bench-grid:$g
done
tar czf $OUT/d6.tgz -C $OUT d6
