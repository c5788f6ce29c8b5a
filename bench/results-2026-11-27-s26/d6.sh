# D6 (H200): D4 again with the main loop instantiated twice (FAST: the tile inside M and N, K a
# multiple of BLOCK_K: unpredicated copies only; else the predicated ones) against HEAD: the sm80_gemm
# GPU suite on the new build, then bench/sm80_ab.sh (the large-tile configs, CUTLASS's
# 128x256x128, 3 stages, 2x4 warps among them, timed by each build at 4096x4096x4096 and
# 4096x28672x4096, two rounds interleaved).
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm80_gemm" OUT=$o \
  scripts/gpu-session.sh tests
OUT=$o bash bench/sm80_ab.sh carry/old carry/static
ls -la $o
