#!/usr/bin/env bash
# CPU checks of the Python tools: scripts/ratios.py, bench/compare.py, bench/peers.py,
# bench/plot.py, bench/rank_offline.py, bench/narrow_space.py, bench/param_wins.py,
# bench/rounds.py, bench/merge_rows.py (and its ship()), bench/stale_rows.py, bench/select_rows.py,
# bench/ship_rows.sh, bench/old_rows.py, bench/sweep_rows.sh, bench/sweep_prepare.py,
# bench/monotone_rows.py, bench/bin_ab.py, bench/ab_rounds.py, bench/ship_tuned.py,
# bench/decode_table.py, bench/device_slim.sh, scripts/template_diff.py and the build of bench/stream_probe.cu, on results committed under bench/
# (bench/results-2026-11-23's geometric means are the README's), with tests/bench_fakes standing in for torch and for `w8a8 bench`
# where a run is needed. No GPU, no torch. plot.py is checked only where matplotlib imports
# (said so when not); with a w8a8 binary as $1, its heat map also reads a real tuning database
# made by `w8a8 cache import cache/h200-decode.sql`, and the rank tools run `w8a8 compile --rank`.
#
# usage: tests/check_bench_scripts.sh [W8A8_BIN]
# exit 0 when every check passes, 1 when one fails, 77 (skipped) without python3.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
w8a8=${1:-}
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "check_bench_scripts: no $python: skipped"
  exit 77
fi
export PYTHONDONTWRITEBYTECODE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
results=$root/bench/results-2026-11-23
fakes=$root/tests/bench_fakes
passed=0
failed=0

# check NAME RC PATTERN COMMAND...: COMMAND exits RC and its stdout + stderr holds PATTERN (an
# extended regular expression; '' for anything)
check() {
  local name=$1 want_rc=$2 pattern=$3
  shift 3
  "$@" >"$tmp/out" 2>&1
  local rc=$?
  if [ "$rc" -ne "$want_rc" ]; then
    echo "FAIL $name: exit $rc, wanted $want_rc"
  elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/out"; then
    echo "FAIL $name: output lacks /$pattern/"
  else
    passed=$((passed + 1))
    return 0
  fi
  sed 's/^/    | /' "$tmp/out" | head -20
  failed=$((failed + 1))
  return 1
}

# expect NAME CONDITION...: a shell test on what an earlier check left behind
expect() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    failed=$((failed + 1))
  fi
}

is_png() { [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

ratios=$root/scripts/ratios.py
compare=$root/bench/compare.py
peers=$root/bench/peers.py
plot=$root/bench/plot.py

# ---- scripts/ratios.py
check "ratios --help" 0 '^usage: ratios.py' "$python" "$ratios" --help
check "ratios without arguments" 2 'required: OURS.jsonl, PEERS.jsonl, PEER_PROVIDER' \
  "$python" "$ratios"
check "ratios without the provider" 2 'required: PEER_PROVIDER' \
  "$python" "$ratios" "$results/ours-decode-row-row.jsonl" "$results/peers-decode.jsonl"
check "ratios on a missing file" 2 'cannot read /nonexistent/ours.jsonl' \
  "$python" "$ratios" /nonexistent/ours.jsonl "$results/peers-decode.jsonl" torch.row.fast
check "ratios with an unknown provider" 2 "no rows of provider 'torch.rw'" \
  "$python" "$ratios" "$results/ours-decode-row-row.jsonl" "$results/peers-decode.jsonl" torch.rw
check "ratios --min-m abc" 2 "invalid int value: 'abc'" \
  "$python" "$ratios" "$results/ours-decode-row-row.jsonl" "$results/peers-decode.jsonl" \
  torch.row.fast --min-m abc
check "ratios decode row" 0 '^30 shapes: geometric mean 1\.411, min 0\.875, max 2\.161$' \
  "$python" "$ratios" "$results/ours-decode-row-row.jsonl" "$results/peers-decode.jsonl" \
  torch.row.fast
check "ratios decode int8 M >= 32" 0 '^5 shapes: geometric mean 1\.081, min 0\.921' \
  "$python" "$ratios" "$results/ours-decode-int8.jsonl" "$results/peers-decode.jsonl" \
  torch.int8 --min-m 32

# ---- bench/decode_table.py (plain and gzip'ed logs give the same table)
decode_table=$root/bench/decode_table.py
check "decode_table decode tensor" 0 \
  '^tensor vs torch.tensor.fast: geomean 0\.961, worst 0\.568 at \(32, 4096, 14336\)$' \
  "$python" "$decode_table" "$results/peers-decode.jsonl" \
  "tensor=$results/ours-decode-tensor-tensor.jsonl:torch.tensor.fast"
cp "$tmp/out" "$tmp/decode-table-plain"
gzip -c "$results/peers-decode.jsonl" > "$tmp/peers-decode.jsonl.gz"
gzip -c "$results/ours-decode-tensor-tensor.jsonl" > "$tmp/ours-decode.jsonl.gz"
check "decode_table on gzip'ed logs" 0 '' "$python" "$decode_table" "$tmp/peers-decode.jsonl.gz" \
  "tensor=$tmp/ours-decode.jsonl.gz:torch.tensor.fast"
cp "$tmp/out" "$tmp/decode-table-gz"
check "decode_table: the same table from gzip'ed logs" 0 '' \
  cmp "$tmp/decode-table-gz" "$tmp/decode-table-plain"
check "decode_table on a missing file" 2 '^decode_table: cannot read /nonexistent/peers.jsonl' \
  "$python" "$decode_table" /nonexistent/peers.jsonl "a=$results/peers-decode.jsonl:torch.bf16"
check "decode_table with a bad column" 2 "is not LABEL=OURS.jsonl:PEER" \
  "$python" "$decode_table" "$results/peers-decode.jsonl" tensor

# ---- bench/compare.py
check "compare --help" 0 '^usage: compare.py' "$python" "$compare" --help
check "compare --grid nope" 2 "invalid choice: 'nope'" "$python" "$compare" --grid nope
check "compare --scale rows" 2 "--scale: 'rows' is not" "$python" "$compare" --scale rows
check "compare --also torch.nope" 2 "--also: unknown peer 'torch.nope'" \
  "$python" "$compare" --also torch.nope
check "compare without a w8a8 binary" 2 "^compare: no w8a8 command at '$tmp/none'" \
  "$python" "$compare" --grid decode --bin "$tmp/none"
check "compare --from an empty folder" 2 '^compare: --from: no .*ours-decode-tensor-tensor.jsonl' \
  "$python" "$compare" --grid decode --from "$tmp"
check "compare --from decode" 0 \
  'tensor vs torch.tensor.fast: 30 shapes, geometric mean 0\.960, worst 0\.568 at 32x4096x14336' \
  "$python" "$compare" --grid decode --from "$results"
expect "compare --from decode: row" grep -q \
  '^row vs torch.row.fast: 30 shapes, geometric mean 1\.411, worst 0\.875 at 32x28672x4096' \
  "$tmp/out"
expect "compare --from decode: int8" grep -q \
  '^int8 vs torch.int8: 5 shapes, geometric mean 1\.081, worst 0\.920 at 32x8192x8192' "$tmp/out"
expect "compare --from decode: 3 x 30 shape rows" \
  test "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ ' "$tmp/out")" -eq 90
check "compare --from dsv3 --json, M 16…512" 0 \
  '"granularity": "block", "peer": "torch.block", "shapes": 20, "geomean": 0\.82' \
  "$python" "$compare" --grid dsv3 --from "$results" --min-m 16 --max-m 512 --json
check "compare --exact-accum" 0 '^tensor vs torch.tensor: 30 shapes' \
  "$python" "$compare" --grid decode --scale tensor --exact-accum --from "$results"

# a whole run on the stand-ins: ours through the fake w8a8, the peers through the fake torch
check "compare run on the stand-ins" 0 '^tensor vs torch.tensor.fast: 6 shapes' \
  env PYTHONPATH="$fakes" W8A8_FAKE_ARGS_LOG="$tmp/args-graph" "$python" "$compare" --grid small \
  --bin "$fakes/w8a8" --also torch.bf16,cublaslt --save "$tmp/run"
cp "$tmp/out" "$tmp/run.out"
expect "compare times ours as graph replays, as the peers" \
  test "$(grep -c -- '--graph' "$tmp/args-graph")" -eq 3
check "compare --launches" 0 '^int8 vs torch.int8: 4 shapes' \
  env PYTHONPATH="$fakes" W8A8_FAKE_ARGS_LOG="$tmp/args-launches" "$python" "$compare" \
  --grid small --bin "$fakes/w8a8" --launches
expect "compare --launches: no --graph" \
  test "$(wc -l < "$tmp/args-launches")" -eq 3 -a "$(grep -c -- '--graph' "$tmp/args-launches")" -eq 0
expect "compare run: the files of --save" test -s "$tmp/run/ours-small-tensor-tensor.jsonl" \
  -a -s "$tmp/run/ours-small-row-row.jsonl" -a -s "$tmp/run/ours-small-int8.jsonl" \
  -a -s "$tmp/run/peers-small.jsonl"
expect "compare run: cublaslt rows of w8a8 bench join" grep -q \
  '^row vs cublaslt: 6 shapes, geometric mean 1\.100' "$tmp/run.out"
# --interleave: shape by shape, a process a granularity and round; the stand-ins' times are
# fixed, so the median rounds give the grid run's ratios
check "compare --interleave 3 on the stand-ins" 0 '^tensor vs torch.tensor.fast: 6 shapes' \
  env PYTHONPATH="$fakes" W8A8_FAKE_ARGS_LOG="$tmp/args-rounds" "$python" "$compare" --grid small \
  --bin "$fakes/w8a8" --also torch.bf16,cublaslt --interleave 3 --save "$tmp/rounds"
expect "compare --interleave: 6 shapes x 3 rounds x 3 granularities, one shape each" \
  test "$(wc -l < "$tmp/args-rounds")" -eq 54 -a "$(grep -c -- '--shape [0-9,]* --graph$' "$tmp/args-rounds")" -eq 54
for summary in 'tensor vs torch.tensor.fast' 'row vs cublaslt' 'int8 vs torch.int8'; do
  line=$(grep "^$summary: " "$tmp/run.out")
  expect "compare --interleave: $summary as the grid run" grep -qxF "$line" "$tmp/out"
done
expect "compare --interleave: every round saved" \
  test "$(grep -c '"round": 2' "$tmp/rounds/rounds-small.jsonl")" -gt 0 -a \
  "$(wc -l < "$tmp/rounds/peers-small.jsonl")" -lt "$(grep -c '"provider": "torch' "$tmp/rounds/rounds-small.jsonl")"
check "compare --interleave with --from" 2 'not with --from' \
  "$python" "$compare" --grid small --from "$tmp/run" --interleave 2
check "compare --from what --save wrote" 0 '' \
  "$python" "$compare" --grid small --also torch.bf16,cublaslt --from "$tmp/run"
expect "compare --from gives the run's table" \
  diff <(grep -v '^compare: \|^peers: ' "$tmp/run.out") "$tmp/out"

# ---- bench/peers.py
check "peers --help without torch" 0 'torch._scaled_mm' "$python" "$peers" --help
check "peers --list" 0 'grid llama3: 80 shapes' "$python" "$peers" --list
expect "peers --list: decode and dsv3" grep -q 'grid dsv3: 48 shapes' "$tmp/out"
check "peers --shape 1,2" 2 "--shape: '1,2' is not M,N,K" "$python" "$peers" --shape 1,2
check "peers --providers torch.nope" 2 "--providers: unknown 'torch.nope'" \
  "$python" "$peers" --providers torch.nope
if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' \
    >/dev/null 2>&1; then
  echo "note: torch with CUDA is here: the missing-torch case is not run"
else
  check "peers without torch or CUDA" 2 '^peers: torch' \
    "$python" "$peers" --grid decode --out "$tmp/peers.jsonl"
  expect "peers without torch: one line" test "$(wc -l <"$tmp/out")" -eq 1
  expect "peers without torch: no --out file" test ! -e "$tmp/peers.jsonl"
fi
check "peers on the fake torch" 0 '' env PYTHONPATH="$fakes" "$python" "$peers" --grid small \
  --providers torch.tensor,torch.row.fast,torch.block,torch.block.fast,torch.int8,torch.bf16 \
  --out "$tmp/fake-peers.jsonl"
# 60 MiB L2 x 4 over 16.8 MB a set: 15 sets, 30 calls a graph, 0.25 ms a replay
timed='"provider": "torch.tensor", "dtype": "e4m3", "scale": "tensor", "m": 1, "n": 4096, '
timed+='"k": 4096, "us": 8.33, "tflops": 4.0, "gbps": 2014.7'
expect "peers: a timed row" grep -qxF "{$timed}" "$tmp/fake-peers.jsonl"
expect "peers: block scales in torch's layout" grep -q \
  '"provider": "torch.block", "dtype": "e4m3", "scale": "block", "m": 128, "n": 28672' \
  "$tmp/fake-peers.jsonl"
refused='{"provider": "torch.block", "m": 1, "n": 4096, "k": 4096, "error": "CUDA error: '
refused+='CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasLtMatmulAlgoGetHeuristic(...)`"}'
expect "peers: a refusal is an error row (its first line)" grep -qxF "$refused" \
  "$tmp/fake-peers.jsonl"
expect "peers: 6 shapes x 6 providers" test "$(wc -l <"$tmp/fake-peers.jsonl")" -eq 36

# ---- bench/plot.py
check "plot --help" 0 'heatmap' "$python" "$plot" --help
check "plot without a subcommand" 2 'required' "$python" "$plot"
mkdir -p "$tmp/no-matplotlib/matplotlib"
echo 'raise ImportError("No module named matplotlib")' >"$tmp/no-matplotlib/matplotlib/__init__.py"
check "plot without matplotlib" 2 '^plot: matplotlib is not importable' \
  env PYTHONPATH="$tmp/no-matplotlib" "$python" "$plot" ratio \
  "$results/ours-decode-int8.jsonl" --peers "$results/peers-decode.jsonl" -o "$tmp/x.png"
if "$python" -c 'import matplotlib' >/dev/null 2>&1; then
  check "plot ratio" 0 '^plot: wrote' "$python" "$plot" ratio \
    "$results/ours-decode-tensor-tensor.jsonl" "$results/ours-decode-row-row.jsonl" \
    "$results/ours-decode-int8.jsonl" --peers "$results/peers-decode.jsonl" -o "$tmp/ratio.png"
  expect "plot ratio: a PNG" is_png "$tmp/ratio.png"
  check "plot ratio of a peers file as ours" 2 "has no timed rows of provider 'w8a8jit'" \
    "$python" "$plot" ratio "$results/peers-decode.jsonl" --peers "$results/peers-decode.jsonl" \
    -o "$tmp/bad.png"
  check "plot heatmap from CSV" 0 '^plot: wrote' "$python" "$plot" heatmap \
    "$results/measurements.csv.gz" --n 4096 --k 14336 -o "$tmp/heat.png"
  expect "plot heatmap: a PNG" is_png "$tmp/heat.png"
  check "plot heatmap of an absent key" 2 'no verified ok measurement of N=4096 K=1 .*4096x14336' \
    "$python" "$plot" heatmap "$results/measurements.csv.gz" --n 4096 --k 1 -o "$tmp/none.png"
  check "plot heatmap of a JSON file" 2 'neither a tuning database nor a CSV' \
    "$python" "$plot" heatmap "$results/peers-decode.jsonl" --n 1 --k 1 -o "$tmp/none.png"
  if [ -n "$w8a8" ]; then
    check "w8a8 cache import" 0 '' env W8A8_CACHE_DB="$tmp/tuning.db" "$w8a8" cache import \
      "$root/cache/h200-decode.sql"
    check "plot heatmap from a database" 0 '^plot: wrote' "$python" "$plot" heatmap \
      "$tmp/tuning.db" --n 8192 --k 8192 --scale row -o "$tmp/heat-db.png"
    expect "plot heatmap from a database: a PNG" is_png "$tmp/heat-db.png"
  else
    echo "note: no w8a8 binary given: the heat map of a database is not checked"
  fi
else
  echo "check_bench_scripts: matplotlib is not importable: plot.py's drawing is not checked" \
    "(pip install matplotlib)"
fi

# bench/param_wins.py on session 13's cold tune (`w8a8 tune --json`, gzipped): shape
# specialization per key and per M range
s13=$root/bench/results-2026-11-25-s13
check "param_wins: tune --json lines" 0 '^specialize=1: 100 keys, geomean without/with 1\.010' \
  "$python" "$root/bench/param_wins.py" "$s13/tune-120s.jsonl.gz" specialize 1
expect "param_wins: three M ranges that add up to the keys" \
  [ "$(grep -Eo '^specialize=1 at .*: [0-9]+ keys' "$tmp/out" | grep -Eo '[0-9]+ keys$' |
      awk '{s += $1} END {print s}')" = 100 ]
check "param_wins: JSON lines without the family" 2 'no ok sm80_gemm measurement' \
  "$python" "$root/bench/param_wins.py" "$s13/tune-120s.jsonl.gz" specialize 1 --family sm80_gemm
check "param_wins: not a database" 2 'param_wins: .*peers-decode.jsonl' \
  "$python" "$root/bench/param_wins.py" "$results/peers-decode.jsonl" specialize 1

# bench/rounds.py on session 15's repeated decode runs (host launches L, graph replays G)
s15=$root/bench/results-2026-11-25-s15/d4
check "rounds: four runs against two peer runs" 0 \
  '^L1 against L2: geomean spread 1\.002, largest 1\.006 at 8x4096x14336' \
  "$python" "$root/bench/rounds.py" --peers "$s15/peers-decode-1.jsonl,$s15/peers-decode-2.jsonl" \
  --peer torch.tensor.fast L1="$s15/L1-decode-tensor.jsonl" G1="$s15/G1-decode-tensor.jsonl" \
  L2="$s15/L2-decode-tensor.jsonl" G2="$s15/G2-decode-tensor.jsonl"
expect "rounds: graph replays against the peer" grep -q \
  '^G1  *vs torch.tensor.fast: 1\.024 (worst 0\.880 at 32x4096x14336); 1\.025' "$tmp/out"
check "rounds: a peer without rows" 2 'no torch.nope rows' \
  "$python" "$root/bench/rounds.py" --peers "$s15/peers-decode-1.jsonl" --peer torch.nope \
  L1="$s15/L1-decode-tensor.jsonl"
check "rounds: not LABEL=FILE" 2 'is not LABEL=FILE' \
  "$python" "$root/bench/rounds.py" --peers "$s15/peers-decode-1.jsonl" --peer torch.bf16 oops

# bench/rank_offline.py over `w8a8 compile --rank`, on one of session 12's resumed runs at its
# largest keys (M >= 8192: 12 keys, a few seconds of enumeration). A check of the tool, not of
# the space: that run skipped what the run before it measured, so its top configs count as
# unmeasured
if [ -n "$w8a8" ]; then
  s12=$root/bench/results-2026-11-25-s12
  check "rank_offline: the shipped sm90_gemm space" 0 '^\| 32 \| [0-9]+ of 12 \| 1\.[0-9]{3} \| [0-9]+ \|$' \
    "$python" "$root/bench/rank_offline.py" --w8a8 "$w8a8" --space sm90_gemm --min-m 8192 \
    "$s12/callK2/long-2.jsonl.gz"
  check "rank_offline: no measurement of the family" 1 'no ok quick-pass measurement of sm80_gemm' \
    "$python" "$root/bench/rank_offline.py" --w8a8 "$w8a8" --space sm80_gemm --min-m 8192 \
    "$s12/callK2/long-2.jsonl.gz"
  check "w8a8 compile --rank: the first 2 configs" 0 '"position": 1, "rank": [0-9.e+]+, "config": "block_m=' \
    "$w8a8" compile --arch sm_90a --space sm90_gemm --rank 512,4096,4096 --max-configs 2 --json
  expect "w8a8 compile --rank: 2 lines" [ "$(grep -c '^{' "$tmp/out")" -eq 2 ]
  # bench/rank_offline.py on a tuning database: sm80_gemm's rank() against session 26's INT8
  # tune on an H200 (D7: the space's first 32 configs a key, 24 Llama keys at M >= 2048, the
  # main loop with unpredicated copies); the space's first 32 must hold each key's fastest
  # config (timed configs only: the tune took rank()'s first 32; since session 38 the
  # persist=1 twins and since session 49 the block_k 256 ones, which that tune never timed,
  # take most of the first places), and its first 8 one within 2 % of it
  s26=$root/bench/results-2026-11-27-s26/d7
  gzip -dc "$s26/sm80.db.gz" > "$tmp/d7-sm80.db"
  check "rank_offline: the shipped sm80_gemm space on a database" 0 \
    "mean spearman 0\.[5-9][0-9] \(order against measured time, 24 keys\)" \
    "$python" "$root/bench/rank_offline.py" --w8a8 "$w8a8" --space sm80_gemm --arch sm_90 \
    --dtype int8 --scale row --min-m 2048 "$tmp/d7-sm80.db"
  expect "rank_offline: the first 32 hold every winner" \
    grep -qE '^\| 32 \| 24 of 24 \| 1\.000 \| [0-9]+ \|$' "$tmp/out"
  expect "rank_offline: the first 8 hold one within 2 % of every winner" \
    grep -qE '^\| 8 \| 24 of 24 \| 1\.00[0-9] \| [0-9]+ \|$' "$tmp/out"
  # and against session 49's narrowed tunes of the same keys (D1: block_k 128 and 256 on the
  # winners' tiles): the first 16 hold every winner, the first 4 one within 2 % on 23 keys
  s49=$root/bench/results-2026-12-02-s49/d1
  check "rank_offline: the sm80_gemm space on block_k 256 measurements" 0 \
    'fastest measured config at positions [0-9]+-[0-9]+ of the space.s order \(24 keys\)' \
    "$python" "$root/bench/rank_offline.py" --w8a8 "$w8a8" --space sm80_gemm --arch sm_90 \
    --dtype int8 --scale row --min-m 2048 "$s49/tune-128.jsonl.gz" "$s49/tune-256.jsonl.gz"
  expect "rank_offline: block_k 256, the first 16 hold every winner" \
    grep -qE '^\| 16 \| 24 of 24 \| 1\.000 \| [0-9]+ \|$' "$tmp/out"
  expect "rank_offline: block_k 256, the first 4 within 2 % on 23 keys" \
    grep -qE '^\| 4 \| 2[34] of 24 \| 1\.00[0-9] \| [0-9]+ \|$' "$tmp/out"
  # --accum and the variants: session 45's promoted per-row retune (D6), whose finalists ran
  # with trigger=1 too; folded into their base configs (the default) every key's fastest
  # config has a place in the space's order, without that fewer do
  d6=$root/bench/results-2026-11-29-s45/d6/tune/tune.jsonl.gz
  check "rank_offline --accum promoted, variants folded" 0 \
    'fastest measured config at positions [0-9]+-[0-9]+ of the space.s order \(([0-9]+) keys\)' \
    "$python" "$root/bench/rank_offline.py" --w8a8 "$w8a8" --space sm90_gemm --min-m 512 \
    --scale row,row --accum promoted "$d6"
  folded=$(sed -nE 's/.*order \(([0-9]+) keys\).*/\1/p' "$tmp/out")
  check "rank_offline --variants ''" 0 'order \([0-9]+ keys\)' \
    "$python" "$root/bench/rank_offline.py" --w8a8 "$w8a8" --space sm90_gemm --min-m 512 \
    --scale row,row --accum promoted --variants '' "$d6"
  unfolded=$(sed -nE 's/.*order \(([0-9]+) keys\).*/\1/p' "$tmp/out")
  expect "rank_offline: folding the variants places more keys' fastest config" \
    [ "${folded:-0}" -gt "${unfolded:-99}" ]
  # param_wins.py on session 14's INT8 tune on an H100 (12 keys at M >= 2048, 64 configs each)
  gzip -dc "$root/bench/results-2026-11-25-s14/sm80/d6-sm80.db.gz" > "$tmp/d6-sm80.db"
  check "param_wins: a tuning database" 0 '^epilogue=1 at M > 512: 12 keys, geomean without/with 1\.081' \
    "$python" "$root/bench/param_wins.py" "$tmp/d6-sm80.db" epilogue 1 --family sm80_gemm
  check "rank_offline: no database rows past M" 1 \
    'no ok quick-pass measurement of sm80_gemm at M >= 100000' \
    "$python" "$root/bench/rank_offline.py" --w8a8 "$w8a8" --space sm80_gemm --arch sm_90 \
    --dtype int8 --scale row --min-m 100000 "$tmp/d6-sm80.db"
  # bench/narrow_space.py: a space narrowed to one config lists that config alone
  one=block_m=128,block_n=128,block_k=64,stages=4,warps_m=2,warps_n=2,slice_k=1,group=8
  one=$one,prefetch=0,epilogue=1,persist=0
  check "narrow_space: one config" 0 '' "$python" "$root/bench/narrow_space.py" \
    "$root/scripts/sm80_gemm.lua" "$one"
  cp "$tmp/out" "$tmp/one.lua"
  check "narrow_space: the narrowed space ranks it alone" 0 "\"config\": \"$one\"" \
    "$w8a8" compile --arch sm_90 --space "$tmp/one.lua" --rank 4096,4096,4096 --dtype int8 --json
  expect "narrow_space: one line" [ "$(grep -c '^{' "$tmp/out")" -eq 1 ]
  # sm90_gemm's stages are a name bound earlier in the script (`stages = STAGES,`)
  narrow90=block_m=64,block_n=48/64/96/128,stages=6/8/10/12/14/16,consumers=1,pingpong=0
  narrow90=$narrow90,raster=0,group=8,cluster=1,epilogue=0/1,split=2/4,specialize=1,overlap=0
  check "narrow_space: sm90_gemm" 0 '' "$python" "$root/bench/narrow_space.py" \
    "$root/scripts/sm90_gemm.lua" "$narrow90,stagger=0,wave=0,tail=1"
  cp "$tmp/out" "$tmp/narrow90.lua"
  check "narrow_space: sm90_gemm's 96 configs" 0 'valid of 96 configs' \
    "$w8a8" compile --arch sm_90a --space "$tmp/narrow90.lua" --rank 16,8192,8192
  check "grids_beside_peers: usage" 2 'grids_beside_peers.sh OUT' \
    bash "$root/bench/grids_beside_peers.sh"
  check "closing_call: usage without OUT" 2 'closing_call.sh NAME' \
    env -u OUT bash "$root/bench/closing_call.sh" dclose
  check "closing_call: usage without a name" 2 'closing_call.sh NAME' \
    env OUT="$tmp" bash "$root/bench/closing_call.sh"
  check "narrow_space: a parameter left out" 2 'no values for block_n' \
    "$python" "$root/bench/narrow_space.py" "$root/scripts/sm80_gemm.lua" block_m=128
  check "w8a8 compile --rank names the space: sm80_gemm on Hopper" 0 '"position": 0' \
    "$w8a8" compile --arch sm_90 --space sm80_gemm --rank 4096,4096,4096 --dtype int8 \
    --max-configs 1 --json
  check "w8a8 compile --rank without --space" 2 '\-\-rank goes with \-\-space alone' \
    "$w8a8" compile --arch sm_90a --rank 512,4096,4096 reference_gemm
  check "w8a8 compile --rank with a bad shape" 2 'wants M,N,K' \
    "$w8a8" compile --arch sm_90a --space sm90_gemm --rank 512,4096
  # bench/stale_rows.py: a cache of one row (K6's 16x7168x16384 block row, tuned 31.49 us) and
  # bench lines naming its config at 47.7 us (flagged) and 31.5 us (not), one naming another
  # config (not compared), and a shape no row holds
  mkdir -p "$tmp/stale"
  grep -v '^INSERT' "$root/bench/results-2026-11-26-s19/k6/new.sql" > "$tmp/stale/one.sql"
  grep "'none', 7168, 16384, 16, 'fast'" "$root/bench/results-2026-11-26-s19/k6/new.sql" \
    >> "$tmp/stale/one.sql"
  cfg=block_m=64,block_n=16,stages=6,consumers=2,pingpong=1,split=1,specialize=0,swap=1
  line() { printf '{"provider": "w8a8jit", "dtype": "e4m3", "scale": "block", "accum": "fast", "m": %s, "n": 7168, "k": %s, "us": %s, "family": "sm90_gemm", "config": "%s", "match": "exact"}\n' "$@"; }
  { line 16 16384 47.7 "$cfg"; line 12 16384 31.5 "$cfg"; line 16 16384 90 "block_m=64"
    line 16 2048 90 "$cfg"; } > "$tmp/stale.jsonl"
  dev="sm_90:NVIDIA H200:132:150109880320"
  check "stale_rows: one row slower than tuned" 0 '1 of 2 rows compared run over 1.08x' \
    env W8A8_CACHE_PATH="$tmp/stale" W8A8_CACHE_DB="$tmp/stale.db" \
    "$python" "$root/bench/stale_rows.py" --w8a8 "$w8a8" --on "$dev" "$tmp/stale.jsonl"
  expect "stale_rows: the 47.7 us line, x1.51" grep -q ' 16   7168  16384 .*x1.51 ' "$tmp/out"
  check "stale_rows: a missing file" 2 'stale_rows: /nonexistent' \
    "$python" "$root/bench/stale_rows.py" --w8a8 "$w8a8" --on "$dev" /nonexistent
  # bench/select_rows.py on session 24's C4 sweep: the 46 rows it shipped, split by the file
  # that holds each key (the shipped caches' listing names the files)
  env W8A8_CACHE_PATH="$root/cache" W8A8_CACHE_DB="$tmp/list.db" "$w8a8" cache list --json \
    > "$tmp/shipped.jsonl" 2>/dev/null
  c4=$root/bench/results-2026-11-26-s24/c4
  mkdir -p "$tmp/sel"
  check "select_rows: C4's rows" 0 '^46 keys' "$python" "$root/bench/select_rows.py" \
    "$c4/ab.jsonl" "$c4/c4.sql" "$tmp/shipped.jsonl" "$tmp/sel"
  expect "select_rows: C4's dsv3 rows as shipped" cmp -s "$tmp/sel/select-h200-dsv3.sql" \
    "$c4/select-h200-dsv3.sql"
  expect "select_rows: C4's decode rows as shipped" cmp -s "$tmp/sel/select-h200-decode.sql" \
    "$c4/select-h200-decode.sql"
  check "select_rows: no H100 row won in C4" 0 '^0 keys' "$python" "$root/bench/select_rows.py" \
    "$c4/ab.jsonl" "$c4/c4.sql" "$tmp/shipped.jsonl" "$tmp/sel" H100
  check "select_rows without arguments" 1 'select_rows.py AB.jsonl' \
    "$python" "$root/bench/select_rows.py"
else
  echo "note: no w8a8 binary given: bench/rank_offline.py and compile --rank are not checked"
fi

# bench/select_rows.py on session 50's D1 (sm80_decode's spans at M 1-4): the INT8 and FP8
# per-tensor rows of one shape are two keys (before, the INT8 winners collided with the FP8
# A B B A lines and the script stopped); the 13 INT8 and 9 FP8 keys it shipped
s50=$root/bench/results-2026-12-02-s50/d1
gzip -dc "$s50/shipped-before.jsonl.gz" > "$tmp/s50-shipped.jsonl"
check "select_rows: s50 D1's INT8 keys" 0 '^13 keys' "$python" "$root/bench/select_rows.py" \
  "$s50/ab-int8.jsonl" "$s50/winners.sql" "$tmp/s50-shipped.jsonl" "$tmp/sel50i"
expect "select_rows: s50 D1's INT8 rows as shipped" cmp -s "$tmp/sel50i/select-h200-decode.sql" \
  "$s50/ship-int8/select-h200-decode.sql"
check "select_rows: s50 D1's FP8 per-tensor keys" 0 '^9 keys' "$python" \
  "$root/bench/select_rows.py" "$s50/ab-tensor.jsonl" "$s50/winners.sql" \
  "$tmp/s50-shipped.jsonl" "$tmp/sel50t"
expect "select_rows: s50 D1's FP8 rows as shipped" cmp -s "$tmp/sel50t/select-h200-decode.sql" \
  "$s50/ship-tensor/select-h200-decode.sql"

# bench/select_rows.py on session 25's D3 (per-row keys at buckets no shipped row held): with
# FILE the 39 winners go to it, as shipped; without, they are left out, each said so
d3=$root/bench/results-2026-11-26-s25/d3
gzip -dc "$d3/shipped.jsonl.gz" > "$tmp/d3-shipped.jsonl"
check "select_rows: D3's new keys into FILE" 0 '^h200-sm90.sql 39$' "$python" \
  "$root/bench/select_rows.py" "$d3/row/ab.jsonl" "$d3/row/new.sql" "$tmp/d3-shipped.jsonl" \
  "$tmp/sel3" H200 h200-sm90.sql
expect "select_rows: D3's rows as shipped" cmp -s "$tmp/sel3/select-h200-sm90.sql" \
  "$d3/sel-row/select-h200-sm90.sql"
check "select_rows: D3's new keys without FILE" 0 'no shipped H200 row holds .* left out' \
  "$python" "$root/bench/select_rows.py" "$d3/row/ab.jsonl" "$d3/row/new.sql" \
  "$tmp/d3-shipped.jsonl" "$tmp/sel4"
expect "select_rows: none kept without FILE" grep -q '^0 keys' "$tmp/out"

# bench/select_rows.py on session 35's D4: two keys' A sides ran their shipped rows 1.17x and
# 1.25x slower than those rows were tuned at (ping-pong kernels then slowed by a template
# change), so they are held back; 2 of the 4 keys that won both pairs remain
s35=$root/bench/results-2026-11-28-s35/d4
gzip -dc "$s35/shipped-h200-block.jsonl.gz" > "$tmp/s35-shipped.jsonl"
check "select_rows: D4's drifted A sides held back" 0 \
  "128, 7168, 2048\): A ran 8.50 us, its row was tuned at 7.24 us \(x1.17\): held back" \
  "$python" "$root/bench/select_rows.py" "$s35/ab.jsonl" "$s35/winners.sql" \
  "$tmp/s35-shipped.jsonl" "$tmp/sel5"
expect "select_rows: D4's 2 keys left" grep -q '^2 keys' "$tmp/out"
expect "select_rows: D4's 128x6144x4096 held back" grep -q "128, 6144, 4096).*held back" "$tmp/out"

# bench/ship_rows.sh on the same D3, its winners spelled with tail=1 as today's tuner writes
# them (in the sweep database and in what B ran): select, merge into a copy of today's shipped
# file (which holds those 39 keys since session 25: each replaced, none added), the default
# tail=1 dropped; every selected row is in the file afterwards, spelled without it
mkdir -p "$tmp/cache"
cp "$root/cache/h200-sm90.sql" "$tmp/cache/"
rows_before=$(grep -c '^INSERT' "$tmp/cache/h200-sm90.sql")
sed "s/\(block_m=[^']*\)'/\1,tail=1'/" "$d3/row/new.sql" > "$tmp/d3-new-tail.sql"
sed '/"build": "B"/s/\("config": "block_m=[^"]*\)"/\1,tail=1"/' "$d3/row/ab.jsonl" > "$tmp/d3-ab-tail.jsonl"
check "ship_rows: D3's rows into a copy of h200-sm90.sql" 0 '39 replaced, 39 from ' \
  env CACHE_DIR="$tmp/cache" PYTHON="$python" bash "$root/bench/ship_rows.sh" \
  "$tmp/d3-ab-tail.jsonl" "$tmp/d3-new-tail.sql" "$tmp/d3-shipped.jsonl" "$tmp/ship3" h200-sm90.sql
expect "ship_rows: the selection spells tail=1" grep -q ",tail=1'" "$tmp/ship3/select-h200-sm90.sql"
sed "s/,tail=1'/'/" "$tmp/ship3/select-h200-sm90.sql" | grep '^INSERT' > "$tmp/ship3-rows"
expect "ship_rows: every selected row shipped" \
  bash -c '! grep -vxF -f "$1" "$2" | grep -q .' _ "$tmp/cache/h200-sm90.sql" "$tmp/ship3-rows"
expect "ship_rows: as many rows as before" test "$(grep -c '^INSERT' "$tmp/cache/h200-sm90.sql")" \
  -eq "$rows_before"
expect "ship_rows: no tail=1 left" bash -c '! grep -q ",tail=1'"'"'" "$1"' _ "$tmp/cache/h200-sm90.sql"
check "ship_rows without arguments" 2 'ship_rows.sh AB.jsonl' bash "$root/bench/ship_rows.sh"

# bench/old_rows.py on four listed rows: only the H200 non-swap row without specialize is old
old=$root/bench/old_rows.py
cat > "$tmp/old-list.jsonl" <<'ROWS'
{"device":"NVIDIA H200","family":"sm90_gemm","a_type":"int8","a_scale":"tensor","b_scale":"tensor","n":4096,"k":4096,"m_bucket":128,"config":"block_m=128,block_n=128,stages=5,epilogue=1","source":"/x/h200-sm90.sql"}
{"device":"NVIDIA H200","family":"sm90_gemm","a_type":"e4m3","a_scale":"row","b_scale":"row","n":4096,"k":4096,"m_bucket":256,"config":"block_m=128,block_n=128,stages=5,epilogue=1,specialize=1","source":"/x/h200-sm90.sql"}
{"device":"NVIDIA H200","family":"sm90_gemm","a_type":"e4m3","a_scale":"tensor","b_scale":"tensor","n":8192,"k":8192,"m_bucket":16,"config":"block_m=64,block_n=16,stages=16,swap=1","source":"/x/h200-decode.sql"}
{"device":"NVIDIA H100 80GB HBM3","family":"sm90_gemm","a_type":"e4m3","a_scale":"tensor","b_scale":"tensor","n":4096,"k":4096,"m_bucket":512,"config":"block_m=128,block_n=128,stages=5","source":"/x/h100-llama3-8b.sql"}
ROWS
check "old_rows: the H200's old non-swap row" 0 '^1 rows lack specialize$' "$python" "$old" \
  --lacks specialize --device H200 --without swap=1 "$tmp/old-list.jsonl"
expect "old_rows: which row" grep -Eq 'NVIDIA H200 +int8 +int8 +128 +4096 +4096 +lacks specialize' \
  "$tmp/out"
check "old_rows: every device, epilogue too" 0 '^2 rows lack specialize,epilogue$' "$python" "$old" \
  --lacks specialize,epilogue --without swap=1 "$tmp/old-list.jsonl"
check "old_rows --groups" 0 'groups-NVIDIA-H200-int8.txt: 1 keys' "$python" "$old" \
  --lacks specialize --device H200 --without swap=1 --groups "$tmp/old-groups" "$tmp/old-list.jsonl"
expect "old_rows: a sweep_rows.sh group line" grep -qx -- '- 128,4096,4096' \
  "$tmp/old-groups/groups-NVIDIA-H200-int8.txt"
check "old_rows: a bad --without" 2 'not NAME=VALUE' "$python" "$old" --lacks x --without swap \
  "$tmp/old-list.jsonl"

# bench/sweep_rows.sh with the fake command (its tune fails; its benches answer): SEED=1 asks a
# named space's tune to seed and leaves a plain one as it is, SETTLE and TUNE_ARGS reach both, the
# A B B A runs every group's shapes, and the database's winners are exported
printf 'sm90_gemm 64,4096,4096\n- 128,4096,4096\n' > "$tmp/sweep-groups.txt"
check "sweep_rows with the fake command" 0 '' env W8A8="$fakes/w8a8" PYTHONPATH="$fakes" \
  W8A8_FAKE_ARGS_LOG="$tmp/args-sweep" SEED=1 SETTLE=100 BUDGET=5 TUNE_ARGS="--max-candidates 48" \
  bash "$root/bench/sweep_rows.sh" "$tmp/sweep-groups.txt" tensor fast "$tmp/sweep" "$tmp/sweep.db"
expect "sweep_rows: TUNE_ARGS reach both tunes" \
  test "$(grep -c '^tune .* --json --max-candidates 48$' "$tmp/args-sweep")" -eq 2
expect "sweep_rows: the named tune seeds and settles" \
  grep -q '^tune --space sm90_gemm --seed --settle 100 --budget 5 ' "$tmp/args-sweep"
expect "sweep_rows: the plain tune settles, no --seed" \
  grep -q '^tune --settle 100 --budget 5 --dtype e4m3 --scale tensor --accum fast --shape 128,4096,4096' \
  "$tmp/args-sweep"
expect "sweep_rows: A B B A over both groups' shapes" \
  test "$(grep -c '"provider": "w8a8jit"' "$tmp/sweep/ab.jsonl")" -eq 8
expect "sweep_rows: the winners exported" \
  grep -qx "cache --db $tmp/sweep.db export $tmp/sweep/winners.sql --winners" "$tmp/args-sweep"

# bench/bin_ab.py on session 27's D2 (two builds, the decode grid, A B B A): the geometric
# mean of B's speed, and each build's shapes below a peer
d2=$root/bench/results-2026-11-27-s27/d2/prefetch
check "bin_ab: D2's per-tensor geomean" 0 '^geomean B/A speed 0\.9621 over 30 shapes' \
  "$python" "$root/bench/bin_ab.py" "$d2/ab-decode-tensor.jsonl"
expect "bin_ab: 1x57344x8192's line" grep -q '^    1  57344   8192  A   113.37 us  B   132.65 us  B/A speed 0.855$' "$tmp/out"
check "bin_ab: below torch.tensor.fast" 0 '^B below torch.tensor.fast: 14 shapes, worst 0\.853' \
  "$python" "$root/bench/bin_ab.py" "$d2/ab-decode-tensor.jsonl" "$d2/peers-decode.jsonl" \
  torch.tensor.fast
expect "bin_ab: A below torch.tensor.fast" grep -q '^A below torch.tensor.fast: 4 shapes, worst 0.989' "$tmp/out"
check "bin_ab: a peer without its provider" 2 'bin_ab.py AB.jsonl' \
  "$python" "$root/bench/bin_ab.py" "$d2/ab-decode-tensor.jsonl" "$d2/peers-decode.jsonl"

# bench/sweep_prepare.py: rows of one config but their overlap go in one group; another
# config, another device, a swap-AB row and a row below --min-m are left out or apart
row() { printf '{"device": "%s", "a_scale": "block", "b_scale": "block", "accum": "fast", "family": "sm90_gemm", "config": "%s", "m_bucket": %s, "n": %s, "k": 7168, "winner": true}\n' "$@"; }
c128=block_m=128,block_n=128,stages=5,consumers=2,pingpong=0,raster=0,group=8,cluster=1
c128=$c128,epilogue=1,split=1,specialize=1
{ row "NVIDIA H200" "$c128,overlap=0,stagger=0" 512 4096
  row "NVIDIA H200" "$c128,overlap=1,stagger=0" 1024 4096
  row "NVIDIA H200" "${c128/stages=5/stages=4},overlap=0,stagger=0" 2048 4096
  row "NVIDIA H100 80GB HBM3" "$c128,overlap=0,stagger=0" 512 2112
  row "NVIDIA H200" "block_m=64,block_n=16,stages=6,consumers=2,pingpong=1,split=1,swap=1" 16 2112
  row "NVIDIA H200" "$c128,overlap=0,stagger=0" 32 2112; } > "$tmp/rows.jsonl"
check "sweep_prepare: two groups" 0 '^2 groups, 3 keys' \
  sh -c "'$python' '$root/bench/sweep_prepare.py' '$tmp/sweep' < '$tmp/rows.jsonl'"
expect "sweep_prepare: one group holds both overlaps' rows" \
  grep -q ' 1024,4096,7168 512,4096,7168$' "$tmp/sweep/groups.txt"
expect "sweep_prepare: the group's space lists overlap 0..3" \
  grep -q 'overlap = { 0, 1, 2, 3 },' "$tmp/sweep/g01.lua"
check "sweep_prepare: a bad --param" 2 '\-\-param: NAME=V' \
  "$python" "$root/bench/sweep_prepare.py" "$tmp/sweep" --param nothing

# bench/monotone_rows.py: a row slower than a larger bucket's winner of its class (within 4x
# and by more than 2 %) is stale; another device, N, accumulation or a bucket 8x larger are not
# its class or its neighbours
mrow() { printf '{"device": "%s", "a_type": "e4m3", "b_type": "e4m3", "out_type": "bf16", "bias_type": "none", "a_scale": "tensor", "b_scale": "tensor", "accum": "%s", "azp": "none", "n": %s, "k": 4096, "m_bucket": %s, "median_us": %s, "winner": true}\n' "$@"; }
{ mrow "NVIDIA H200" fast 4096 16 10.0
  mrow "NVIDIA H200" fast 4096 64 9.0
  mrow "NVIDIA H200" fast 4096 128 8.9
  mrow "NVIDIA H200" fast 4096 1 20.0
  mrow "NVIDIA H200" fast 6144 16 10.0
  mrow "NVIDIA H200" promoted 4096 32 9.0
  mrow "NVIDIA H100 80GB HBM3" fast 4096 16 10.0; } > "$tmp/mono.jsonl"
mono=$root/bench/monotone_rows.py
check "monotone_rows: the stale row and its neighbour" 0 \
  '^e4m3 tensor fast 16,4096,4096 1\.111 64$' sh -c "'$python' '$mono' < '$tmp/mono.jsonl'"
expect "monotone_rows: one stale row (64 is within 2 % of 128; 1 is 16x from 16)" \
  test "$(wc -l < "$tmp/out")" -eq 1
check "monotone_rows --over 1.2" 0 '' sh -c "'$python' '$mono' --over 1.2 < '$tmp/mono.jsonl'"
expect "monotone_rows --over 1.2: none" test ! -s "$tmp/out"
check "monotone_rows on other input" 2 'not a `w8a8 cache list --json` line' \
  sh -c "echo '{}' | '$python' '$mono'"

# bench/merge_rows.py: a newer tune's rows replace the shipped file's of the same key
merge=$root/bench/merge_rows.py
head -3 "$root/cache/h200-decode.sql" > "$tmp/shipped.sql"
grep '^INSERT' "$root/cache/h200-decode.sql" | head -10 >> "$tmp/shipped.sql"
grep '^INSERT' "$tmp/shipped.sql" | sed -n 4p > "$tmp/new.sql"
grep '^INSERT' "$root/cache/h100-decode.sql" | head -1 >> "$tmp/new.sql"
check "merge_rows --help" 0 '^usage: merge_rows.py' "$python" "$merge" --help
check "merge_rows on a missing file" 2 'cannot read /nonexistent.sql' \
  "$python" "$merge" "$tmp/shipped.sql" /nonexistent.sql
check "merge_rows --dry-run" 0 '10 rows, 9 kept, 1 replaced, 2 from' \
  "$python" "$merge" "$tmp/shipped.sql" "$tmp/new.sql" --dry-run
expect "merge_rows --dry-run writes nothing" [ "$(grep -c '^INSERT' "$tmp/shipped.sql")" -eq 10 ]
check "merge_rows" 0 '10 rows, 9 kept, 1 replaced' "$python" "$merge" "$tmp/shipped.sql" "$tmp/new.sql"
expect "merge_rows: 11 rows" [ "$(grep -c '^INSERT' "$tmp/shipped.sql")" -eq 11 ]
expect "merge_rows: the header kept" [ "$(head -1 "$tmp/shipped.sql" | cut -c1-2)" = "--" ]
expect "merge_rows: the new rows last" cmp -s <(tail -2 "$tmp/shipped.sql") "$tmp/new.sql"
check "merge_rows: a second merge replaces both" 0 '11 rows, 9 kept, 2 replaced' \
  "$python" "$merge" "$tmp/shipped.sql" "$tmp/new.sql"
# a row exported before `accum` was a column (cache/h100-small-m.sql's older rows) has the
# key of the same row with accum 'fast'
head -1 "$tmp/new.sql" | sed "s/m_bucket, accum, family/m_bucket, family/; s/, 'fast', '/, '/" \
  > "$tmp/old-format.sql"
expect "merge_rows: an old-format row made" grep -qv accum "$tmp/old-format.sql"
check "merge_rows: an old-format row has the key of a 'fast' one" 0 '1 rows, 0 kept, 1 replaced' \
  "$python" "$merge" "$tmp/old-format.sql" "$tmp/new.sql" --dry-run
check "merge_rows: new keys an earlier-read file holds" 0 \
  "warning: 1 of the new rows' keys are also in old-format.sql, which is read first" \
  "$python" "$merge" "$tmp/shipped.sql" "$tmp/new.sql" --dry-run
# merge_rows.ship(): each row into the first file (in name order) that holds its key; a key
# no file holds ends the program (exit 1)
mkdir -p "$tmp/ship"
grep '^INSERT' "$root/cache/h200-decode.sql" | head -3 > "$tmp/ship/a.sql"
grep '^INSERT' "$root/cache/h200-decode.sql" | sed -n 2,5p > "$tmp/ship/b.sql"
cat > "$tmp/ship.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from merge_rows import ship
rows = open(sys.argv[3]).readlines()
print("merged into", " ".join(p.rsplit("/", 1)[-1] for p in ship(rows, sys.argv[2:3] + sys.argv[4:], "t")))
PY
grep '^INSERT' "$root/cache/h200-decode.sql" | sed -n 3,4p > "$tmp/ship/rows.sql"
check "ship: each row into the first file holding its key" 0 '^merged into a.sql b.sql$' \
  "$python" "$tmp/ship.py" "$root/bench" "$tmp/ship/b.sql" "$tmp/ship/rows.sql" "$tmp/ship/a.sql"
expect "ship: a.sql keeps 3 rows" [ "$(grep -c '^INSERT' "$tmp/ship/a.sql")" -eq 3 ]
expect "ship: b.sql keeps 4 rows" [ "$(grep -c '^INSERT' "$tmp/ship/b.sql")" -eq 4 ]
grep '^INSERT' "$root/cache/h100-decode.sql" | head -1 > "$tmp/ship/other.sql"
check "ship: a key no file holds" 1 '^t: no shipped file holds the key' \
  "$python" "$tmp/ship.py" "$root/bench" "$tmp/ship/b.sql" "$tmp/ship/other.sql" "$tmp/ship/a.sql"

# bench/stream_probe.cu builds (it runs only on an sm_90 GPU)
if command -v nvcc >/dev/null 2>&1; then
  check "stream_probe.cu compiles" 0 '' \
    nvcc -O3 -std=c++17 -arch=sm_90a -o "$tmp/stream_probe" "$root/bench/stream_probe.cu" -lcuda
else
  echo "check_bench_scripts: no nvcc: bench/stream_probe.cu not compiled"
fi

# bench/ab_rounds.py: session 45's D6 table again from its gzip'ed rounds
abr=$root/bench/ab_rounds.py
check "ab_rounds without arguments" 2 'ab_rounds.py DIR A B SET' "$python" "$abr"
check "ab_rounds on D6's rounds" 0 \
  '^   geomean 1\.064 / 1\.029, faster by > 1 % in both rounds: 19 of 29$' \
  "$python" "$abr" "$root/bench/results-2026-11-29-s45/d6/tune" ship tuned row
expect "ab_rounds: D6's committed table" \
  cmp -s "$tmp/out" "$root/bench/results-2026-11-29-s45/d6/tune/table.txt"
check "ab_rounds: session 40's path runs it" 0 '19 of 29' \
  "$python" "$root/bench/results-2026-11-28-s40/ab_rounds.py" \
  "$root/bench/results-2026-11-29-s45/d6/tune" ship tuned row
check "ab_rounds: a missing round is named" 0 '^MISSING row nope-r1 \(512, 6144, 4096\)' \
  "$python" "$abr" "$root/bench/results-2026-11-29-s45/d6/tune" nope tuned row

# bench/ship_tuned.py: of a call's tuned winners, those of the granularity asked whose key ran
# >= 1.02x in both rounds of its table go into the shipped file holding the key (needs w8a8
# for the tuned database's import and export)
shipt=$root/bench/ship_tuned.py
check "ship_tuned without arguments" 2 'usage: bench/ship_tuned.py DIR SCALE ACCUM' "$python" "$shipt"
check "ship_tuned with a bad scale" 2 "invalid choice: 'rows'" "$python" "$shipt" "$tmp" rows fast
check "ship_tuned without the command" 2 "^ship_tuned: no w8a8 command at '$tmp/none'" \
  "$python" "$shipt" "$tmp" row fast --w8a8 "$tmp/none"
if [ -n "$w8a8" ]; then
  w8a8_abs=$(cd "$(dirname "$w8a8")" && pwd)/$(basename "$w8a8")
  check "ship_tuned without a table" 2 '^ship_tuned: .*No such file.*table.txt' \
    "$python" "$shipt" "$tmp/nowhere" row fast --w8a8 "$w8a8_abs"
  mkdir -p "$tmp/st/cache" "$tmp/st/call/tune"
  grep '^INSERT' "$root/cache/h200-llama3-promoted.sql" | grep "'tensor', 'tensor'" | head -3 \
    > "$tmp/st/cache/h200-promoted.sql"
  # the tuned rows marked with an item that changes nothing (trigger=1 is a launch argument;
  # a later item of the same name wins) and, below, with one this build does not have
  sed "s/'sm90_gemm', 'block_m=128,/'sm90_gemm', 'block_m=128,fill=1,/" \
    "$tmp/st/cache/h200-promoted.sql" | gzip > "$tmp/st/call/tune/tuned.sql.gz"
  keys=$(sed -E "s/.* ([0-9]+), ([0-9]+), ([0-9]+), 'promoted'.*/\3 \1 \2/" \
    "$tmp/st/cache/h200-promoted.sql")
  set -- $keys
  { echo "== tensor: 3 shapes (speed = ship us / tuned us, rounds 1 and 2)"
    printf '%6d %6d %6d  ship  10.00 us  tuned   9.00 us  1.050 1.030  cfg\n' "$1" "$2" "$3"
    printf '%6d %6d %6d  ship  10.00 us  tuned   9.00 us  1.050 1.010  cfg\n' "$4" "$5" "$6"
    printf '%6d %6d %6d  ship  10.00 us  tuned  10.00 us  1.000 1.000  cfg\n' "$7" "$8" "$9"
  } > "$tmp/st/call/tune/table.txt"
  cp "$tmp/st/cache/h200-promoted.sql" "$tmp/st/before.sql"
  check "ship_tuned: a row whose config the build refuses" 1 "unknown item at 'fill=1" \
    sh -c "cd '$tmp/st' && '$python' '$shipt' call tensor promoted --w8a8 '$w8a8_abs'"
  expect "ship_tuned: ... nothing shipped" cmp -s "$tmp/st/before.sql" "$tmp/st/cache/h200-promoted.sql"
  sed "s/'sm90_gemm', 'block_m=128,/'sm90_gemm', 'block_m=128,trigger=1,/" \
    "$tmp/st/cache/h200-promoted.sql" | gzip > "$tmp/st/call/tune/tuned.sql.gz"
  check "ship_tuned: the row faster in both rounds" 0 '^ship_tuned: 1 rows' \
    sh -c "cd '$tmp/st' && '$python' '$shipt' call tensor promoted --w8a8 '$w8a8_abs'"
  expect "ship_tuned: one tuned row shipped" \
    [ "$(grep -c 'block_m=128,trigger=1,' "$tmp/st/cache/h200-promoted.sql")" -eq 1 ]
  expect "ship_tuned: ... for the first key" \
    grep -q " $2, $3, $1, 'promoted', 'sm90_gemm', 'block_m=128,trigger=1," "$tmp/st/cache/h200-promoted.sql"
  check "ship_tuned: no rows of another granularity" 1 'no tuned winner' \
    sh -c "cd '$tmp/st' && '$python' '$shipt' call row promoted --w8a8 '$w8a8_abs'"
fi

# the shipped caches hold one row per key and device: the library reads a folder's files in
# name order and takes the first file's row, so a second row of a key would never be used
if [ -n "$w8a8" ]; then
  cat > "$tmp/one_row_per_key.py" <<'PY'
import collections, json, sys
fields = ("arch", "device", "sm_count", "memory_bytes", "a_type", "b_type", "out_type",
          "bias_type", "a_scale", "b_scale", "a_group_rows", "a_group_k", "b_group_rows",
          "b_group_k", "a_k_major", "azp", "n", "k", "m_bucket", "accum")
files = collections.defaultdict(set)
rows = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows += 1
    files[tuple(r[f] for f in fields)].add(r["source"].rsplit("/", 1)[-1])
twice = {k: v for k, v in files.items() if len(v) > 1}
for k, v in list(twice.items())[:5]:
    print("in %s: %s" % (" and ".join(sorted(v)), k))
print("%d rows, %d keys in two files" % (rows, len(twice)))
PY
  W8A8_CACHE_PATH="$root/cache" "$w8a8" cache --db "$tmp/no/tuning.db" --json list \
    > "$tmp/shipped-rows.jsonl" 2> "$tmp/shipped-rows.err"
  check "the shipped caches: one row per key" 0 '^[1-9][0-9]* rows, 0 keys in two files$' \
    "$python" "$tmp/one_row_per_key.py" "$tmp/shipped-rows.jsonl"
fi

# bench/device_slim.sh, in a scratch repository (it rewrites the index): "on KEEP" untracks and
# ignores every other results folder, leaving the files on disk; "off" tracks them again and
# drops the exclusion (an exclusion kept by hand stays)
if command -v git >/dev/null 2>&1; then
  slim=$tmp/slim
  mkdir -p "$slim/bench/results-a" "$slim/bench/results-b" "$slim/.git/info"
  git -C "$slim" init -q
  echo "/kept-by-hand/" > "$slim/.git/info/exclude"
  cp "$root/bench/device_slim.sh" "$slim/bench/"
  echo a > "$slim/bench/results-a/x"
  echo b > "$slim/bench/results-b/y"
  git -C "$slim" add -A
  git -C "$slim" -c user.name=t -c user.email=t@t commit -qm one
  check "device_slim without a verb" 2 'device_slim.sh on' bash "$slim/bench/device_slim.sh"
  check "device_slim on" 0 '' bash "$slim/bench/device_slim.sh" on bench/results-b
  check "device_slim on: results-a leaves the index, results-b stays" 0 \
    '^bench/device_slim.sh bench/results-b/y $' sh -c "git -C '$slim' ls-files | tr '\\n' ' '"
  check "device_slim on: results-a ignored, still on disk" 0 '^!! bench/results-a/$' \
    git -C "$slim" status --porcelain --ignored
  check "device_slim off" 0 '' bash "$slim/bench/device_slim.sh" off
  check "device_slim off: every folder tracked again" 0 'bench/results-a/x' git -C "$slim" ls-files
  check "device_slim off: nothing staged" 0 '^0$' \
    sh -c "git -C '$slim' diff --cached --name-only | wc -l"
  check "device_slim off: only the hand-made exclusion left" 0 '^/kept-by-hand/$' \
    cat "$slim/.git/info/exclude"
  check "device_slim off: the exclusion is one line" 0 '^1$' \
    sh -c "wc -l < '$slim/.git/info/exclude'"
fi

# scripts/template_diff.py on the fake w8a8's `compile --winners --json`: two template folders
# whose fake_compile.jsonl differ in one kernel's spills, one's registers, one's outcome
tdiff=$root/scripts/template_diff.py
mkdir -p "$tmp/tpl-old" "$tmp/tpl-new" "$tmp/tpl-same"
kernel() { # arch config registers spill_stores stack status rejected
  printf '{"template": "sm90_gemm", "arch": "%s", "config": "%s", "status": "%s", "registers": %s, "shared_bytes": 0, "spill_stores": %s, "spill_loads": %s, "stack_bytes": %s, "compile_ms": 1.0, "from_disk": false, "rejected": %s}\n' \
    "$1" "$2" "$6" "$3" "$4" "$4" "$5" "$7"
}
{ kernel sm_90a a 168 0 0 ok false; kernel sm_90a b 168 0 0 ok false
  kernel sm_90a c 120 0 0 ok false; kernel sm_90 d 96 8 8 ok true; } > "$tmp/tpl-old/fake_compile.jsonl"
{ kernel sm_90a a 168 40 40 ok true; kernel sm_90a b 168 0 0 ok false
  kernel sm_90a c 124 0 0 ok false; kernel sm_90 d 72 0 0 ok false; } > "$tmp/tpl-new/fake_compile.jsonl"
cp "$tmp/tpl-old/fake_compile.jsonl" "$tmp/tpl-same/"
check "template_diff --help" 0 '^usage: template_diff.py' "$python" "$tdiff" --help
check "template_diff without a folder" 2 'required: old' "$python" "$tdiff"
check "template_diff on a missing folder" 2 '/nonexistent is not a folder' \
  "$python" "$tdiff" /nonexistent --w8a8 "$fakes/w8a8"
check "template_diff on a missing cache" 2 'no such cache: /nonexistent.sql' \
  "$python" "$tdiff" "$tmp/tpl-old" --cache /nonexistent.sql --w8a8 "$fakes/w8a8"
check "template_diff without a w8a8" 2 "cannot run $tmp/none" \
  "$python" "$tdiff" "$tmp/tpl-old" --w8a8 "$tmp/none"
check "template_diff: one kernel worse" 1 \
  '^4 kernels: 1 worse, 1 better, 1 with other registers only$' \
  "$python" "$tdiff" "$tmp/tpl-old" "$tmp/tpl-new" --w8a8 "$fakes/w8a8"
check "template_diff: the worse kernel named" 1 \
  '^worse +sm90_gemm sm_90a a: spill_stores 0 -> 40, spill_loads 0 -> 40, stack_bytes 0 -> 40, rejected False -> True$' \
  "$python" "$tdiff" "$tmp/tpl-old" "$tmp/tpl-new" --w8a8 "$fakes/w8a8"
check "template_diff: against the embedded templates" 0 '^4 kernels: 0 worse, 0 better' \
  env W8A8_FAKE_EMBEDDED="$tmp/tpl-same" "$python" "$tdiff" "$tmp/tpl-old" --w8a8 "$fakes/w8a8"
check "template_diff --json --arch sm_90" 0 '"verdict": "better".*"config": "d"' \
  "$python" "$tdiff" "$tmp/tpl-old" "$tmp/tpl-new" --arch sm_90 --json --w8a8 "$fakes/w8a8"

echo "check_bench_scripts: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
