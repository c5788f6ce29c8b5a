#!/usr/bin/env bash
# The closing figures' grids, on a GPU host: ours on the shipped cache (W8A8_TUNE=off, an empty
# user database) as graph replays beside peers.py in the same call: the decode grid and the
# Llama grid at M <= 512 in every granularity (tensor, row, INT8, block) with every torch
# provider, and the DeepSeek-V3 grid (block) with torch.block, each through
# scripts/gpu-session.sh bench-grid into OUT (ours-GRID-S.jsonl, peers-GRID.jsonl,
# summary.txt). ../shared/bench/ratio.py and bench/decode_table.py read them.
#   bench/grids_beside_peers.sh OUT
# Environment: W8A8_BIN (default carry/static), W8A8_PEERS (default carry/peers.py).
# The same lines as the closing calls of sessions 27-31 ran inline (session 31's D5:
# bench/results-2026-11-27-s31/d5.sh at commit 53b9ff5): about 140 s on an H200.
set -uo pipefail
[ $# -eq 1 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
o=$1
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db \
  W8A8_BIN=${W8A8_BIN:-carry/static} W8A8_PEERS=${W8A8_PEERS:-carry/peers.py}
P=torch.tensor,torch.row,torch.tensor.fast,torch.row.fast,torch.block,torch.int8,torch.bf16
for g in decode llama3-small; do
  W8A8_PROVIDERS=$P W8A8_SCALES="tensor,tensor row,row int8 block,block" OUT=$o \
    scripts/gpu-session.sh bench-grid:$g
done
W8A8_PROVIDERS=torch.block W8A8_SCALES="block,block" OUT=$o scripts/gpu-session.sh bench-grid:dsv3
