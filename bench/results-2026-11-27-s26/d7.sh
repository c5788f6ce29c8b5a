# D7 (H200): issue 14's acceptance 2 on the new main loop (FAST instance, rank() favouring 8-warp
# prefetch-1 tiles): the sm80_gemm suite, then sm80-peak + sm80-tune for INT8 (beside torch._int_mm)
# and e4m3 per-tensor over the whole Llama grid (8 (N, K) x M 1 8 16 2048 4096 8192), 32 candidates
# a key.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm80_gemm" OUT=$o \
  scripts/gpu-session.sh tests
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PEERS=carry/peers.py \
  W8A8_BUDGET=300 W8A8_SM80_CANDIDATES=32 W8A8_PACK_NAME=sm80 OUT=$o \
  scripts/gpu-session.sh sm80-peak+sm80-tune:int8+sm80-tune:e4m3
ls -la $o
