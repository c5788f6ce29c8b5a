#!/usr/bin/env bash
# Issue 12's acceptance on a lent GPU, across calls of at most 10 minutes on one machine held
# warm: a cold 120 s tune (A) against a long tune (B, >= 20 minutes in all, resumed across
# runs) of the same GPU, then the 8B grid with each, twice, interleaved, beside bench/peers.py.
# The databases live in build/long-tune of the device's copy of the tree (kept between calls
# while the machine stays warm; a machine goes back after 30 minutes held: chain the calls).
#   bench/long_tune.sh start            A: cold 120 s tune; B: A's database resumed 400 s
#   bench/long_tune.sh resume SECONDS   B resumed SECONDS (--max-candidates 4096)
#   bench/long_tune.sh finish SECONDS   B resumed SECONDS, then the grids, peers and the table
# Each call packs its logs into $OUT/long-tune-<step>.tgz. Binaries: $W8A8_BIN (default
# carry/static, a static-deps build: w8a8), peers: $W8A8_PEERS (default carry/peers.py).
# Session 12 (bench/results-2026-11-25-s12/README.md): start 520 s, resume 545, finish 250;
# session 13 (results-2026-11-25-s13): start 521 s, resume 540 (537 s), finish 250 (263 s)
# plus ~60 s of grids and peers on an H100.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
unset W8A8_CACHE_PATH
step=${1:-}
seconds=${2:-}
state=$PWD/build/long-tune
bin=${W8A8_BIN:-carry/static}/w8a8
peers=${W8A8_PEERS:-carry/peers.py}
out=${OUT:-$state/out}
case "$step" in
  start) ;;
  resume | finish)
    if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ ! -f "$state/B.db" ]; then
      echo "long_tune: $step wants SECONDS and a B.db from 'start' in $state" >&2
      exit 2
    fi ;;
  *) sed -n 2,13p "$0" >&2; exit 2 ;;
esac
[ -x "$bin" ] || { echo "long_tune: no w8a8 at $bin" >&2; exit 2; }
logs=$state/logs-$step-$(date +%H%M%S)
mkdir -p "$logs" "$out"
export W8A8_KERNEL_DIR=$state/k
pack() { tar czf "$out/long-tune-$step.tgz" -C "$logs" .; }
note() { echo "$1 exit $2 at $SECONDS s" | tee -a "$logs/summary.txt"; pack; }
# tune DB NAME SECONDS [args]: one run into DB, its JSON lines gzipped in the logs
tune() {
  local db=$1 name=$2 budget=$3 t0=$SECONDS
  shift 3
  W8A8_CACHE_DB=$state/$db timeout $((budget + 60)) "$bin" tune --model llama3-8b \
    --budget "$budget" --json "$@" > "$logs/$name.jsonl" 2> "$logs/$name.err"
  note "$name ($db, budget $budget s) wall $((SECONDS - t0)) s" $?
  gzip -f "$logs/$name.jsonl"
}

nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv \
  > "$logs/gpu.txt" 2>&1
if [ "$step" = start ]; then
  rm -rf "$state/A.db" "$state/B.db" "$state/k"
  tune A.db tune-120s 120 # empty database, cold cubin store
  cp "$state/A.db" "$state/B.db"
  tune B.db long 400 --max-candidates 4096
  exit 0
fi
tune B.db long "$seconds" --max-candidates 4096
[ "$step" = finish ] || exit 0

. bench/grid_8b.sh # ms, shapes
for round in 1 2; do
  for db in A B; do
    W8A8_CACHE_DB=$state/$db.db timeout 120 "$bin" bench --json --model llama3-8b --m $ms \
      --scale tensor --no-cublaslt > "$logs/ours-$db-$round.jsonl" 2> "$logs/ours-$db-$round.err"
    note "bench $db round $round" $?
  done
done
timeout 200 python3 "$peers" "${shapes[@]}" --providers torch.tensor.fast \
  --out "$logs/peers-8b.jsonl" > "$logs/peers-8b.txt" 2>&1
note peers $?
for db in A B; do
  W8A8_CACHE_DB=$state/$db.db "$bin" cache export "$logs/$db-winners.sql" --winners \
    >> "$logs/summary.txt" 2>&1
done
python3 - "$logs" <<'EOF' | tee "$logs/table.md"
import json, math, sys
logs = sys.argv[1]
def load(p):
    return {(r["m"], r["n"], r["k"]): r["us"] for r in map(json.loads, open(p))}
def best(db):
    rounds = [load("%s/ours-%s-%d.jsonl" % (logs, db, i)) for i in (1, 2)]
    return {k: min(r[k] for r in rounds) for k in rounds[0]}
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
a, b = best("A"), best("B")
torch = {(r["m"], r["n"], r["k"]): r["us"] for r in map(json.loads, open(logs + "/peers-8b.jsonl"))
         if r.get("provider") == "torch.tensor.fast" and r.get("us")}
for label, lo, hi in (("all", 1, 1 << 30), ("M >= 512", 512, 1 << 30), ("M <= 256", 1, 256)):
    r = [b[k] / a[k] for k in a if lo <= k[0] <= hi]
    w = min(r)
    print("A's speed over B's, %s: geomean %.4f, worst %.3f" % (label, gm(r), w))
for db, d in (("A", a), ("B", b)):
    r = [torch[k] / d[k] for k in d if k[0] >= 512 and k in torch]
    print("%s against torch.tensor.fast at M >= 512: geomean %.3f, worst %.3f" % (db, gm(r), min(r)))
EOF
pack
