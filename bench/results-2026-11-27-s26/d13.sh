# D13 (H200): the sm80_gemm suite on the final build (after D11: block-scaled sm80_gemm kernels
# declare at least one CTA an SM in their launch bounds).
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm80_gemm" OUT=$o \
  scripts/gpu-session.sh tests
ls -la $o
