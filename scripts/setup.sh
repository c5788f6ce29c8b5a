#!/usr/bin/env bash
# Installs the Debian packages w8a8jit builds with, if any is missing, and checks for the CUDA
# toolkit (NVRTC and cuda.h), which comes from NVIDIA's packages, not Debian's.
set -euo pipefail

packages=(cmake pkg-config libsqlite3-dev liblua5.4-dev check)
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
