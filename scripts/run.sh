#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on its defaults:
#   with a GPU: w8a8 info, check (reference vs CPU), tune the Llama-3.1-8B shapes, bench;
#   without one: w8a8 info, then compile every template for every arch (what can be done).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
preset="${W8A8_PRESET:-default}"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
bin="build/$([ "$preset" = static-deps ] && echo static || echo "$preset")/w8a8"

"$bin" info
if "$bin" info --json | grep -q '"has_device": true'; then
  "$bin" check
  "$bin" tune --model llama3-8b --budget "${W8A8_BUDGET:-300}"
  "$bin" bench --model llama3-8b
else
  echo "run: no CUDA device here: compiling every template for every arch instead"
  for arch in sm_80 sm_86 sm_89 sm_90 sm_90a; do
    "$bin" compile --arch "$arch" --all >/dev/null
  done
  echo "run: every template compiled for sm_80, sm_86, sm_89, sm_90 and sm_90a"
fi
