#!/usr/bin/env bash
# A first run on a GPU, as a new user makes it: `w8a8 tune --model llama3-8b --budget SECONDS`
# (default 120) on an empty database and a cold cubin store, then the 8B grid (M 1…16384,
# per-tensor) benched twice with that database and bench/peers.py's torch.tensor.fast on the
# same 44 shapes in the same call; prints ours against the peer (geomean and worst shape, per
# M range). State in build/cold-tune of the device's tree; logs packed into
# $OUT/cold-tune.tgz. Binaries: $W8A8_BIN (default carry/static), peers: $W8A8_PEERS (default
# carry/peers.py). Session 14 (bench/results-2026-11-25-s14/): about 200 s on an H100.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
unset W8A8_CACHE_PATH
budget=${1:-120}
state=$PWD/build/cold-tune
bin=${W8A8_BIN:-carry/static}/w8a8
peers=${W8A8_PEERS:-carry/peers.py}
out=${OUT:-$state/out}
logs=$state/logs
rm -rf "$state"
mkdir -p "$logs" "$out"
export W8A8_KERNEL_DIR=$state/k W8A8_CACHE_DB=$state/cold.db
pack() { tar czf "$out/cold-tune.tgz" -C "$logs" .; }
note() { echo "$1 exit $2 at $SECONDS s" | tee -a "$logs/summary.txt"; pack; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv \
  > "$logs/gpu.txt" 2>&1
t0=$SECONDS
timeout $((budget + 60)) "$bin" tune --model llama3-8b --budget "$budget" --json \
  > "$logs/tune.jsonl" 2> "$logs/tune.err"
note "tune (budget $budget s) wall $((SECONDS - t0)) s" $?
grep -h '"profile"' "$logs/tune.jsonl" >> "$logs/summary.txt"
gzip -f "$logs/tune.jsonl"
. bench/grid_8b.sh # ms, shapes
for round in 1 2; do
  timeout 120 "$bin" bench --json --model llama3-8b --m $ms --scale tensor --no-cublaslt \
    > "$logs/ours-$round.jsonl" 2> "$logs/ours-$round.err"
  note "bench round $round" $?
done
timeout 200 python3 "$peers" "${shapes[@]}" --providers torch.tensor.fast \
  --out "$logs/peers-8b.jsonl" > "$logs/peers-8b.txt" 2>&1
note peers $?
"$bin" cache export "$logs/winners.sql" --winners >> "$logs/summary.txt" 2>&1
python3 - "$logs" <<'PY' | tee "$logs/table.md"
import json, math, sys
logs = sys.argv[1]
def load(p):
    return {(r["m"], r["n"], r["k"]): r["us"] for r in map(json.loads, open(p)) if r.get("us", -1) > 0}
rounds = [load("%s/ours-%d.jsonl" % (logs, i)) for i in (1, 2)]
ours = {k: min(r[k] for r in rounds if k in r) for k in rounds[0]}
torch = {(r["m"], r["n"], r["k"]): r["us"] for r in map(json.loads, open(logs + "/peers-8b.jsonl"))
         if r.get("provider") == "torch.tensor.fast" and r.get("us")}
gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for label, lo, hi in (("all", 1, 1 << 30), ("M >= 512", 512, 1 << 30), ("M <= 256", 1, 256)):
    r = {k: torch[k] / ours[k] for k in ours if lo <= k[0] <= hi and k in torch}
    w = min(r, key=r.get)
    print("ours against torch.tensor.fast, %s (%d shapes): geomean %.3f, worst %.3f at %dx%dx%d"
          % (label, len(r), gm(list(r.values())), r[w], *w))
spread = [max(r[k] for r in rounds) / min(r[k] for r in rounds) for k in ours if all(k in r for r in rounds)]
print("round-to-round spread per shape: geomean %.3f, max %.3f" % (gm(spread), max(spread)))
PY
pack
