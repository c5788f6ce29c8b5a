# D14 (H100): D7's INT8 measurement on an H100 with the final build: sm80-peak + sm80-tune:int8
# over the whole Llama grid beside torch._int_mm, 32 candidates a key.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=300 W8A8_SM80_CANDIDATES=32 W8A8_PACK_NAME=sm80 OUT=$o \
  scripts/gpu-session.sh sm80-peak+sm80-tune:int8
ls -la $o
