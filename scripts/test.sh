#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole test suite:
# the CPU suites, NVRTC compiles of every template for every arch, and the GPU suites
# (which report themselves skipped without a device); then the Python package: built and
# installed into python/.venv (pip install ./python), its CPU tests (pytest; the GPU ones
# report themselves skipped without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
export W8A8_SETUP_PYTHON="${W8A8_SETUP_PYTHON:-1}"
source scripts/setup.sh
preset="${W8A8_PRESET:-ci}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
ctest --preset "$preset" -j"$(nproc)" "$@"
if [ "$W8A8_SETUP_PYTHON" = 1 ]; then
  bash scripts/python-test.sh
fi
