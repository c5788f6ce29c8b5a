#!/usr/bin/env bash
# Installs the Debian packages w8a8jit builds with, if any is missing, and checks for the CUDA
# toolkit (NVRTC and cuda.h), which comes from NVIDIA's packages, not Debian's. (tcl, curl and
# xz-utils: scripts/fetch-deps.sh, the static SQLite/Lua of the Python package.)
# With W8A8_SETUP_PYTHON=1 it also makes python/.venv, the Python package's test environment.
set -euo pipefail

packages=(cmake pkg-config libsqlite3-dev liblua5.4-dev check tcl curl xz-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cuda_root="${CUDAToolkit_ROOT:-${CUDA_HOME:-/usr/local/cuda}}"
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x "$cuda_root/bin/nvcc" ]; then
  echo "setup: the CUDA toolkit is missing: install NVIDIA's cuda-toolkit package" >&2
  echo "       (e.g. cuda-toolkit-13-0) and put its bin/ on PATH, or set CUDAToolkit_ROOT" >&2
  exit 1
fi
if ! command -v nvcc >/dev/null 2>&1; then
  export PATH="$cuda_root/bin:$PATH"
fi

# python/.venv: torch (the CPU wheel when download.pytorch.org answers — about 200 MB; else
# PyPI's default wheel, which pulls the CUDA libraries, about 3 GB and 2–3 minutes), plus
# scikit-build-core and pytest. Made once; later runs only check it.
if [ "${W8A8_SETUP_PYTHON:-0}" = 1 ]; then
  venv=python/.venv
  if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating $venv"
    python3 -m venv "$venv"
  fi
  if ! "$venv/bin/python" -c "import torch, scikit_build_core, pytest" 2>/dev/null; then
    echo "setup: installing torch, scikit-build-core and pytest into $venv"
    "$venv/bin/pip" install -q --upgrade pip >/dev/null
    "$venv/bin/pip" install -q --index-url https://download.pytorch.org/whl/cpu torch \
      2>/dev/null || "$venv/bin/pip" install -q torch
    "$venv/bin/pip" install -q scikit-build-core pytest numpy
  fi
fi
