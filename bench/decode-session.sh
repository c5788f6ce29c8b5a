#!/usr/bin/env bash
# Decode / small-M work on a lent GPU host, over build/static (static-deps preset) and
# carry/peers.py (a copy of ../shared/bench/peers.py). Steps, joined by '+':
#   tests           the GPU suites named in $SUITES (default: decode sm90 dispatch tune)
#   tune:GRID:SCALE w8a8 tune over GRID's shapes (decode, small = llama3 M 1…512, dsv3) with
#                   --scale SCALE (tensor,tensor | row,row | int8 | block,block), --budget $BUDGET
#   bench:GRID      w8a8 bench --json for every granularity beside peers.py on the same shapes
# Logs and JSON lines go to a scratch folder packed after every step into $OUT/session.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-out}"
logs="$(mktemp -d)/session"
mkdir -p "$out" "$logs"
bin=${BIN:-build/static}
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR="${W8A8_KERNEL_DIR:-/tmp/w8a8-kernels}"
export W8A8_CACHE_DB="${W8A8_CACHE_DB:-$out/tuning.db}"
[ -f carry/tuning.db ] && [ ! -f "$W8A8_CACHE_DB" ] && cp carry/tuning.db "$W8A8_CACHE_DB"

pack() {
  cp -f "$W8A8_CACHE_DB" "$logs/" 2>/dev/null
  tar czf "$out/session.tgz" -C "$(dirname "$logs")" session
}
step() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  echo "$name exit $? $((SECONDS - t0)) s" | tee -a "$logs/summary.txt"
  pack
}

# shapes GRID: "--shape M,N,K" for every shape of the grid
shapes() {
  local nks ms
  case "$1" in
    decode) nks="4096,14336 8192,8192 8192,28672 28672,4096 57344,8192"; ms="1 2 4 8 16 32" ;;
    small) nks="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
           ms="1 16 64 128 256 512" ;;
    dsv3) nks="2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048"; ms="1 16 64 128 512" ;;
  esac
  for nk in $nks; do for m in $ms; do echo -n " --shape $m,$nk"; done; done
}
scale_args() {
  case "$1" in
    int8) echo "--dtype int8" ;;
    *) echo "--scale $1" ;;
  esac
}

run_suite() { CK_FORK=no timeout "${TEST_TIMEOUT:-300}" "$bin/tests/check_gpu_$1" > "$logs/check_gpu_$1.log" 2>&1; }

for s in ${1//+/ }; do
  case "$s" in
    tests) for t in ${SUITES:-decode sm90 dispatch tune}; do step "check_gpu_$t" run_suite "$t"; done ;;
    tune:*)
      IFS=: read -r _ grid scale <<< "$s"
      step "$s" sh -c "'$bin/w8a8' tune --budget ${BUDGET:-60} ${TUNE_ARGS:-} $(scale_args "$scale") $(shapes "$grid") \
        >> '$logs/tune-$grid-${scale//,/-}.log' 2>&1" ;;
    bench:*)
      grid=${s#bench:}
      sh_args=$(shapes "$grid")
      scales="tensor,tensor row,row int8"
      [ "$grid" = dsv3 ] && scales="block,block"
      for scale in $scales; do
        step "bench $grid $scale" sh -c "'$bin/w8a8' bench --json --no-cublaslt $(scale_args "$scale") \
          $sh_args > '$logs/ours-$grid-${scale//,/-}.jsonl' 2>'$logs/ours-$grid-${scale//,/-}.err'"
      done
      step "peers $grid" sh -c "python3 carry/peers.py $sh_args --out '$logs/peers-$grid.jsonl' \
        > '$logs/peers-$grid.log' 2>&1" ;;
    *) echo "decode-session: unknown step $s" >&2 ;;
  esac
done
