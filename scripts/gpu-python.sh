#!/usr/bin/env bash
# The Python package's GPU run, from the repository root on a GPU host (python, torch with
# CUDA, pytest; transformers for the model test). Installs w8a8jit from the wheel in
# build/py/dist (built elsewhere: `scripts/python-wheel.sh`), or, without one, builds it here
# (`pip install --no-build-isolation ./python`: needs scikit-build-core, the CUDA toolkit and
# build/deps from scripts/fetch-deps.sh), then runs the modes given (default all), separated
# by '+':
#   install   install the package, print w8a8jit.device_info()
#   cpu       the CPU tests (python/tests/test_cpu.py)
#   gpu       the GPU tests (python/tests/test_gpu.py: reference shapes, opcheck, graphs,
#             torch.compile, tune/explain)
#   model     the transformers Llama test (python/tests/test_model.py)
#   bench     python/bench/overhead.py (host overhead vs torch._scaled_mm, decode grid)
# Logs are packed after every step into $OUT/gpu-python.tgz (default OUT=gpu-out); each step
# appends "<step> exit <code> <seconds> s" to summary.txt. W8A8_STEP_TIMEOUT (s, default 540)
# bounds each step.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
logs="$(mktemp -d)/gpu-python"
mkdir -p "$logs"
py="${PYTHON:-python3}"
limit="${W8A8_STEP_TIMEOUT:-540}"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR="${W8A8_KERNEL_DIR:-/tmp/w8a8-kernels}"
export W8A8_CACHE_DB="${W8A8_CACHE_DB:-$logs/tuning.db}"
export W8A8_TEST_CACHE_DB="$W8A8_CACHE_DB" W8A8_TEST_KERNEL_DIR="$W8A8_KERNEL_DIR"

pack() { tar czf "$out/gpu-python.tgz" -C "$(dirname "$logs")" gpu-python; }

step() { # step NAME COMMAND...: output to NAME.log, exit code and time to summary.txt
  local name=$1 t0=$SECONDS
  shift
  # a shell function (install, pytest_in) runs in a child bash that timeout can stop
  timeout "$limit" bash -c '"$@"' "$name" "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  echo "$name exit $rc $((SECONDS - t0)) s" | tee -a "$logs/summary.txt"
  pack
  return 0
}

do_install() {
  local wheel
  wheel="$(ls -t build/py/dist/w8a8jit-*.whl 2>/dev/null | head -1)"
  if [ -n "$wheel" ]; then
    "$py" -m pip install --no-deps --no-index --force-reinstall "$wheel"
  else
    "$py" -m pip install --no-deps --no-build-isolation --force-reinstall ./python
  fi || return 1
  (cd /tmp && "$py" -c 'import w8a8jit, json, torch
print(w8a8jit.library_path(), torch.__version__)
print(json.dumps(w8a8jit.device_info(), indent=1))')
}

pytest_in() { # pytest_in FILE ARGS...: from /tmp so the source tree is not imported
  local file=$1
  shift
  (cd /tmp && "$py" -P -m pytest -rs -v "$OLDPWD/python/tests/$file" "$@")
}

export -f do_install pytest_in
export py
modes="${1:-install+cpu+gpu+model+bench}"
nvidia-smi >"$logs/nvidia-smi.log" 2>&1
IFS='+' read -ra list <<<"$modes"
for mode in "${list[@]}"; do
  case "$mode" in
    install) step install do_install ;;
    cpu) step cpu pytest_in test_cpu.py ;;
    gpu) step gpu pytest_in test_gpu.py --junitxml="$logs/gpu-junit.xml" ;;
    model) step model pytest_in test_model.py -s ;;
    bench) step bench "$py" python/bench/overhead.py ;;
    *) echo "gpu-python: unknown mode $mode" >&2; exit 2 ;;
  esac
done
cat "$logs/summary.txt"
