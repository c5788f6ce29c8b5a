#!/usr/bin/env bash
# One batch of GPU work on a lent GPU host, over a build made elsewhere with the static-deps
# preset (that host lacks the SQLite, Lua and Check packages). Logs go to $OUT (or ./gpu-out).
#   scripts/gpu-session.sh tests            the GPU suites + w8a8 check
#   scripts/gpu-session.sh tune [model]     tune a model's shapes (default llama3-8b)
#   scripts/gpu-session.sh bench [args]     w8a8 bench --json beside ../shared/bench/peers.py
#   scripts/gpu-session.sh overhead         host time of a w8a8_scaled_mm call on a cached key
# Several modes may be given, separated by '+': "tests+tune+bench".
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
bin=build/static
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR="${W8A8_KERNEL_DIR:-/tmp/w8a8-kernels}"
export W8A8_CACHE_DB="${W8A8_CACHE_DB:-$out/tuning.db}"
peers="${W8A8_PEERS:-carry/peers.py}"

run_tests() {
  for t in "$bin"/tests/check_gpu_*; do
    echo "=== $(basename "$t")"
    CK_FORK=no timeout "${W8A8_TEST_TIMEOUT:-300}" "$t" 2>&1 | tail -n 40
    echo "=== $(basename "$t") exit ${PIPESTATUS[0]}"
  done 2>&1 | tee "$out/gpu-tests.log"
  # check_gpu_reference runs the same 477 problems; W8A8_SKIP_CHECK=1 saves the time
  [ -n "${W8A8_SKIP_CHECK:-}" ] || "$bin/w8a8" check 2>&1 | tee "$out/check.log"
}

run_overhead() {
  "$bin/w8a8" bench --host-overhead --no-cublaslt --calls 20000 \
    --shape 16,4096,4096 --shape 4096,4096,4096 2>&1 | tee "$out/overhead.log"
}

run_tune() {
  local model="${1:-llama3-8b}"
  shift || true
  local t0=$SECONDS
  "$bin/w8a8" tune --model "$model" --budget "${W8A8_BUDGET:-240}" "$@" > "$out/tune-$model.log" 2>&1
  local rc=$?
  echo "tune $model $*: exit $rc, wall $((SECONDS - t0)) s (budget ${W8A8_BUDGET:-240} s)" | tee -a "$out/tune-wall.log"
  tail -n 30 "$out/tune-$model.log"
}

run_bench() {
  "$bin/w8a8" bench --json "$@" | tee "$out/bench.jsonl"
  if [ -f "$peers" ]; then
    python3 "$peers" --providers torch.tensor,torch.row,torch.int8 "$@" --out "$out/peers.jsonl" &&
      echo "peers: $(wc -l < "$out/peers.jsonl") rows in $out/peers.jsonl"
  fi
}

IFS='+' read -ra modes <<< "${1:-tests}"
shift || true
for mode in "${modes[@]}"; do
  case "$mode" in
    tests) run_tests ;;
    tune) run_tune "$@" ;;
    bench) run_bench "$@" ;;
    overhead) run_overhead ;;
    *) echo "gpu-session: unknown mode $mode" >&2; exit 2 ;;
  esac
done
