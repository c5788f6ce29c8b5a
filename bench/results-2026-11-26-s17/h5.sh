#!/usr/bin/env bash
# H5 (session 17): the GPU suites whose loops moved into tests/testutil.c (decode, swap,
# sm80_gemm, sm90's three tcases), each in its own process, logs packed.
set -u
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=h5 W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=290 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="decode swap sm80_gemm sm90" \
  scripts/gpu-session.sh tests
