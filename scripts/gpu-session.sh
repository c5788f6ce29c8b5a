#!/usr/bin/env bash
# One batch of GPU work on a lent GPU host, over a build made elsewhere with the static-deps
# preset (that host lacks the SQLite, Lua and Check packages). Logs go to $OUT (or ./gpu-out);
# with W8A8_PACK=1 they are written to a scratch folder and packed after every step into the
# single file $OUT/gpu-session.tgz ($W8A8_PACK_NAME.tgz if set; a lent machine may hand back only a few files, and a
# command cut off by its time limit still leaves what was packed).
#   scripts/gpu-session.sh tests            every GPU suite + w8a8 check: the suites at once, each
#                                           process with its own time limit, cubin store and
#                                           database, check_gpu_sm90 as one process per tcase
#                                           (SM90_TCASES; 250-280 s in all on an H200);
#                                           W8A8_SUITES="sm90 dispatch" runs only those suites
#   scripts/gpu-session.sh tune [args]      w8a8 tune --budget $W8A8_BUDGET [args] (default
#                                           args: --model llama3-8b)
#   scripts/gpu-session.sh bench [args]     w8a8 bench --json beside ../shared/bench/peers.py
#   scripts/gpu-session.sh llama3           scripts/bench-llama3.sh: the grid, ours and peers
#   scripts/gpu-session.sh sass             scripts/sass_check.py on the database's winners
#   scripts/gpu-session.sh overhead         host time of a w8a8_scaled_mm call on a cached key
#   scripts/gpu-session.sh tune-grid:G:S    w8a8 tune --budget $W8A8_BUDGET $W8A8_TUNE_ARGS over grid
#                                           G's shapes (decode; llama3-small = Llama M 1…512;
#                                           dsv3) at granularity S (tensor,tensor | row,row |
#                                           int8 | block,block)
#   scripts/gpu-session.sh bench-grid:G     w8a8 bench --json for each granularity of grid G
#                                           (block,block for dsv3; $W8A8_SCALES to choose) beside
#                                           peers.py ($W8A8_PROVIDERS to choose), same shapes
#                                           (ours as graph replays, as the peers: w8a8 bench
#                                           options $W8A8_BENCH_ARGS, default --graph; set it
#                                           empty to time host launches);
#                                           G also llama3-8b (its 4 layers × M 1…16384) and
#                                           llama3-large (the Llama grid at M 1024…8192)
#   scripts/gpu-session.sh sm80-peak        mma.sync.m16n8k32 peak (w8a8 bench --op mma-peak) and
#                                           the device-to-device copy bandwidth: the limits the
#                                           sm80_gemm family is judged against
#   scripts/gpu-session.sh sm80-tune:D      w8a8 tune --space sm80_gemm (D: e4m3 per-tensor or
#                                           int8) over the Llama grid's 8 (N, K) × M 1 8 16 2048
#                                           4096 8192 ($W8A8_SM80_NK to narrow the (N, K)), and
#                                           --space sm80_decode over its M <= 16 keys, into
#                                           $logs/sm80.db, then w8a8 bench of those
#                                           winners (compiled for the device's own arch: plain
#                                           sm_90 on Hopper; $W8A8_SM80_CANDIDATES per key, default
#                                           24; $W8A8_SM80_TUNE_ARGS: more tune options, e.g.
#                                           "--settle 100"), and for int8 peers.py's torch.int8
#                                           at M >= 2048;
#                                           scripts/sm80_summary.py $logs sums up
# Several modes may be given, separated by '+': "tests+tune+llama3". Every step appends
# "<step> exit <code> <seconds> s" to summary.txt.
# A tune step's log ends with the run's time profile (plan, compile waits, reference, verify,
# timing, database) and its compile pool's figures.
# Environment: W8A8_BUDGET (tune, s, default 240), W8A8_TEST_TIMEOUT (per GPU suite, s,
# default 420: check_gpu_sm90's gpu_sm90 tcase took 278 s beside the others on an H200),
# W8A8_SKIP_CHECK=1 (skip `w8a8 check`: check_gpu_reference runs the same problems),
# W8A8_CACHE_DB (default $OUT/tuning.db; W8A8_SEED_DB, when set, is copied there first if it
# does not exist), W8A8_PEERS (default carry/peers.py), W8A8_BIN (default build/static: a
# folder holding w8a8 and tests/check_gpu_*).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
mkdir -p "$out"
out="$(cd "$out" && pwd)" # absolute: GPU suites run in scratch folders
logs="$out"
if [ -n "${W8A8_PACK:-}" ]; then
  logs="$(mktemp -d)/gpu-session"
  mkdir -p "$logs"
fi
bin="${W8A8_BIN:-build/static}"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR="${W8A8_KERNEL_DIR:-/tmp/w8a8-kernels}"
export W8A8_CACHE_DB="${W8A8_CACHE_DB:-$out/tuning.db}"
peers="${W8A8_PEERS:-carry/peers.py}"
if [ -n "${W8A8_SEED_DB:-}" ] && [ ! -f "$W8A8_CACHE_DB" ]; then
  cp "$W8A8_SEED_DB" "$W8A8_CACHE_DB" && chmod u+w "$W8A8_CACHE_DB"
fi

pack() {
  [ -n "${W8A8_PACK:-}" ] || return 0
  cp -f "$W8A8_CACHE_DB" "$logs/" 2>/dev/null
  tar czf "$out/${W8A8_PACK_NAME:-gpu-session}.tgz" -C "$(dirname "$logs")" gpu-session
}

# step NAME COMMAND...: runs it, records exit code and wall time, packs.
step() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  local rc=$?
  echo "$name exit $rc $((SECONDS - t0)) s" | tee -a "$logs/summary.txt"
  pack
}

# The tcases of tests/check_gpu_sm90.c (its main() lists them): run apart, they finish in
# 250-280 s beside the other suites on an H200 (session 28), where the whole suite takes
# far longer.
SM90_TCASES="block promoted gpu_sm90 wide tail shift plan"

# suite NAME BINARY [TCASE]: one GPU suite (or one of its tcases) in its own scratch folder,
# in the background; appends "NAME exit CODE SECONDS s" to summary.txt.
suite() {
  local name=$1 binary=$2 tcase=${3:-} dir
  dir="$(mktemp -d)"
  (
    cd "$dir" || exit
    t0=$SECONDS
    [ -z "$tcase" ] || export CK_RUN_CASE="$tcase"
    W8A8_KERNEL_DIR="$dir/k" W8A8_CACHE_DB="$dir/t.db" W8A8_TEST_KERNEL_DIR="$dir/k" \
      W8A8_TEST_CACHE_DB="$dir/t.db" CK_FORK=no timeout "${W8A8_TEST_TIMEOUT:-420}" \
      "$binary" > "$logs/$name.log" 2>&1
    echo "$name exit $? $((SECONDS - t0)) s" >> "$logs/summary.txt"
  ) &
}

run_tests() {
  local t name c
  for t in "$bin"/tests/check_gpu_*; do
    name="$(basename "$t")"
    # W8A8_SUITES="sm90 dispatch": only those suites (check_gpu_<name>)
    if [ -n "${W8A8_SUITES:-}" ] && [[ " $W8A8_SUITES " != *" ${name#check_gpu_} "* ]]; then
      continue
    fi
    if [ "$name" = check_gpu_sm90 ]; then
      for c in $SM90_TCASES; do suite "$name-$c" "$(realpath "$t")" "$c"; done
    else
      suite "$name" "$(realpath "$t")"
    fi
  done
  while [ -n "$(jobs -r)" ]; do sleep 10; pack; done
  wait
  pack
  [ -n "${W8A8_SKIP_CHECK:-}" ] || step check sh -c "'$bin/w8a8' check > '$logs/check.log' 2>&1"
}

run_tune() {
  [ $# -gt 0 ] || set -- --model llama3-8b
  "$bin/w8a8" tune --budget "${W8A8_BUDGET:-240}" "$@" >> "$logs/tune.log" 2>&1
}

run_bench() {
  "$bin/w8a8" bench --json "$@" > "$logs/bench.jsonl" || return
  [ -f "$peers" ] || return 0
  python3 "$peers" --providers torch.tensor,torch.row,torch.int8 "$@" --out "$logs/peers.jsonl"
}

run_sass() {
  local dump
  dump="$(command -v cuobjdump || python3 -c 'import os, triton; print(os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump"))' 2>/dev/null)"
  python3 scripts/sass_check.py "$W8A8_CACHE_DB" --w8a8 "$bin/w8a8" --cuobjdump "$dump" > "$logs/sass.log" 2>&1
}

# the (N, K) of peers.py's llama3 grid: Llama-3.1 8B and 70B
llama3_nks="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"

# grid_shapes G: "--shape M,N,K" for every shape of grid G (peers.py's decode and dsv3 grids;
# llama3-small is peers.py's llama3 (N, K) at M 1…512, llama3-large at M 1024…8192)
grid_shapes() {
  local nks ms
  case "$1" in
    decode) nks="4096,14336 8192,8192 8192,28672 28672,4096 57344,8192"; ms="1 2 4 8 16 32" ;;
    llama3-small) nks=$llama3_nks
                  ms="1 16 64 128 256 512" ;;
    dsv3) nks="2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048"
          ms="1 16 64 128 512 1024 2048 4096" ;;
    llama3-large) nks=$llama3_nks
                  ms="1024 2048 4096 8192" ;;
    llama3-8b) nks="6144,4096 4096,4096 28672,4096 4096,14336"
               ms="1 16 64 128 256 512 1024 2048 4096 8192 16384" ;;
    *) echo "gpu-session: unknown grid $1" >&2; return 1 ;;
  esac
  for nk in $nks; do for m in $ms; do printf ' --shape %s,%s' "$m" "$nk"; done; done
}
granularity_args() { [ "$1" = int8 ] && echo "--dtype int8" || echo "--scale $1"; }

run_tune_grid() {
  local shapes
  shapes=$(grid_shapes "$1") || return
  # shellcheck disable=SC2046,SC2086
  "$bin/w8a8" tune --budget "${W8A8_BUDGET:-240}" ${W8A8_TUNE_ARGS:-} $(granularity_args "$2") \
    $shapes >> "$logs/tune-$1-${2//,/-}.log" 2>&1
}

run_bench_grid() {
  local shapes scales="${W8A8_SCALES:-tensor,tensor row,row int8}" s
  shapes=$(grid_shapes "$1") || return
  [ "$1" = dsv3 ] && scales="block,block"
  for s in $scales; do
    # shellcheck disable=SC2046,SC2086
    step "bench $1 $s" sh -c "'$bin/w8a8' bench --json --no-cublaslt ${W8A8_BENCH_ARGS---graph} $(granularity_args "$s") \
      $shapes > '$logs/ours-$1-${s//,/-}.jsonl'"
  done
  # shellcheck disable=SC2086
  step "peers $1" python3 "$peers" $shapes ${W8A8_PROVIDERS:+--providers "$W8A8_PROVIDERS"} \
    --out "$logs/peers-$1.jsonl"
}

run_sm80_peak() {
  "$bin/w8a8" bench --op mma-peak --json > "$logs/sm80-peak.jsonl" 2>> "$logs/sm80.log" &&
    "$bin/w8a8" bench --op quant --shape 16384,16384 --json > "$logs/sm80-copy.jsonl" 2>> "$logs/sm80.log"
}

# sm80_shapes [small|large]: the Llama grid's (N, K) (peers.py's llama3: 8B and 70B) at the M
# where the family must reach the copy bandwidth (small: 1 8 16) and the mma.sync peak (large:
# 2048 4096 8192); both without an argument. W8A8_SM80_NK replaces the (N, K) list.
sm80_shapes() {
  local nk m ms="1 8 16 2048 4096 8192"
  [ "${1:-}" = small ] && ms="1 8 16"
  [ "${1:-}" = large ] && ms="2048 4096 8192"
  for nk in ${W8A8_SM80_NK:-$llama3_nks}; do
    for m in $ms; do printf ' --shape %s,%s' "$m" "$nk"; done
  done
}

run_sm80_tune() {
  local args="--dtype e4m3 --scale tensor"
  [ "$1" = int8 ] && args="--dtype int8 --scale row"
  # shellcheck disable=SC2046,SC2086
  W8A8_CACHE_DB="$logs/sm80.db" "$bin/w8a8" tune --space sm80_gemm --budget "${W8A8_BUDGET:-240}" \
    --max-candidates "${W8A8_SM80_CANDIDATES:-24}" ${W8A8_SM80_TUNE_ARGS:-} $args $(sm80_shapes) \
    >> "$logs/sm80-tune-$1.log" 2>&1
  # the decode family at M <= 16, into the same database: the dispatcher takes the faster
  # shellcheck disable=SC2046,SC2086
  W8A8_CACHE_DB="$logs/sm80.db" "$bin/w8a8" tune --space sm80_decode --budget "${W8A8_BUDGET:-240}" \
    --max-candidates "${W8A8_SM80_CANDIDATES:-24}" ${W8A8_SM80_TUNE_ARGS:-} $args $(sm80_shapes small) \
    >> "$logs/sm80-tune-$1.log" 2>&1
  # shellcheck disable=SC2046,SC2086
  W8A8_CACHE_DB="$logs/sm80.db" "$bin/w8a8" bench --json --no-cublaslt $args $(sm80_shapes) \
    > "$logs/sm80-bench-$1.jsonl" 2>> "$logs/sm80.log"
  # INT8: torch._int_mm (CUTLASS's sm80 kernels) on the M >= 2048 shapes, the same peak
  # shellcheck disable=SC2046
  [ "$1" = int8 ] && [ -f "$peers" ] &&
    python3 "$peers" --providers torch.int8 $(sm80_shapes large) --out "$logs/sm80-peers.jsonl" \
      >> "$logs/sm80.log" 2>&1
  python3 scripts/sm80_summary.py "$logs" > "$logs/sm80-summary.txt" 2>&1
}

IFS='+' read -ra modes <<< "${1:-tests}"
shift || true
for mode in "${modes[@]}"; do
  case "$mode" in
    tests) run_tests ;;
    tune) step tune run_tune "$@" ;;
    bench) step bench run_bench "$@" ;;
    llama3) step llama3 env OUT="$logs" scripts/bench-llama3.sh ;;
    sass) step sass run_sass ;;
    overhead)
      step overhead sh -c "'$bin/w8a8' bench --host-overhead --no-cublaslt --calls 20000 \
        --shape 16,4096,4096 --shape 4096,4096,4096 > '$logs/overhead.log' 2>&1" ;;
    tune-grid:*)
      IFS=: read -r _ grid granularity <<< "$mode"
      step "$mode" run_tune_grid "$grid" "$granularity" ;;
    bench-grid:*) run_bench_grid "${mode#bench-grid:}" ;;
    sm80-peak) step sm80-peak run_sm80_peak ;;
    sm80-tune:*) step "$mode" run_sm80_tune "${mode#sm80-tune:}" ;;
    *) echo "gpu-session: unknown mode $mode" >&2; exit 2 ;;
  esac
done
