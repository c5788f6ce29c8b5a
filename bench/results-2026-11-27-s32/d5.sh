#!/usr/bin/env bash
# D5 (H200): issue 14's acceptance 2 after the epilogue change (D4): sm80-peak (mma.sync peak,
# copy bandwidth) and sm80-tune for INT8 per-row over the Llama grid (M 1 8 16 2048 4096 8192,
# 32 candidates a key) beside torch._int_mm (scripts/gpu-session.sh; scripts/sm80_summary.py).
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=300 W8A8_SM80_CANDIDATES=32 W8A8_PACK_NAME=sm80 OUT=$o \
  scripts/gpu-session.sh sm80-peak+sm80-tune:int8
ls -la $o
