#!/usr/bin/env bash
# A retune against the shipped rows, on a GPU host (sessions 44 and 45 ran these lines inline
# six times: s44 d2-d4, s45 d2, d3, d5, d6). Tunes the shapes into a scratch database, then
# times the shipped rows (an empty user database over W8A8_CACHE_PATH) against the tuned ones
# as 20-call graph replays in rounds ship tuned tuned ship (tuned's first with --verify: a
# wrong result leaves its shape out of the table), peers.py between; writes into OUT
# gpu.txt (the GPU and each step's end in seconds), tune/tune.jsonl.gz, tune/tuned.sql.gz
# (the tuned database's export), the rounds (tune/<ship|tuned>-SET-r<1|2>.jsonl.gz), the
# peers and tune/table.txt (bench/ab_rounds.py). bench/ship_tuned.py
# OUT SCALE ACCUM then ships the rows that ran >= 1.02x in both rounds.
#   bench/retune_ab.sh OUT SET GRANULARITY PEERS TUNE_ARGS SHAPE...
#     SET          the rounds' and table's label (tensor, row, block, int8)
#     GRANULARITY  the problem's arguments for tune and bench, e.g. "--scale row,row --accum
#                  promoted" or "--dtype int8"
#     PEERS        peers.py's providers, e.g. torch.row
#     TUNE_ARGS    more `w8a8 tune` arguments, e.g. "--budget 250 --max-candidates 48" or
#                  "--space sm80_decode --seed" ("" for none)
#     SHAPE        M,N,K
# Environment: W8A8_BIN (default carry/static), W8A8_PEERS (default carry/peers.py),
# W8A8_CACHE_PATH (default ./cache), TUNE_TIMEOUT (seconds, default 330).
set -uo pipefail
[ $# -ge 6 ] || { sed -n '2,20p' "$0" >&2; exit 2; }
out=$1 set=$2 gran=$3 peers_list=$4 tune_args=$5
shift 5
bin=${W8A8_BIN:-carry/static}/w8a8 peers=${W8A8_PEERS:-carry/peers.py}
[ -x "$bin" ] || { echo "retune_ab: no w8a8 command at '$bin' (W8A8_BIN)" >&2; exit 2; }
[ -f "$peers" ] || { echo "retune_ab: no peers.py at '$peers' (W8A8_PEERS)" >&2; exit 2; }
shapes=()
for s in "$@"; do
  [[ $s =~ ^[0-9]+,[0-9]+,[0-9]+$ ]] || { echo "retune_ab: '$s' is not M,N,K" >&2; exit 2; }
  shapes+=(--shape "$s")
done
export W8A8_TUNE=off W8A8_CACHE_PATH=${W8A8_CACHE_PATH:-$PWD/cache}
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
t=$out/tune
mkdir -p "$t" || exit 2
db=$(mktemp -u /tmp/retune-XXXXXX).db empty=$(mktemp -u /tmp/retune-empty-XXXXXX).db
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv \
  > "$out/gpu.txt" 2>&1
# shellcheck disable=SC2086
timeout "${TUNE_TIMEOUT:-330}" "$bin" tune "${shapes[@]}" $gran $tune_args --db "$db" --json \
  > "$t/tune.jsonl" 2> "$t/tune.err"
echo "tune $? $SECONDS" >> "$out/gpu.txt"
W8A8_CACHE_DB=$db "$bin" cache export "$t/tuned.sql" >> "$out/gpu.txt" 2>&1
round() { # label db round [--verify]
  # shellcheck disable=SC2086
  W8A8_CACHE_DB=$2 timeout 150 "$bin" bench "${shapes[@]}" $gran --graph --json --no-cublaslt \
    ${4:-} > "$t/$1-$set-r$3.jsonl" 2>> "$t/err.txt"
  echo "$1 round $3 $? $SECONDS" >> "$out/gpu.txt"
}
round ship "$empty" 1
round tuned "$db" 1 --verify
timeout 200 python3 "$peers" "${shapes[@]}" --providers "$peers_list" --out "$t/peers.jsonl" \
  > "$t/peers.log" 2>&1
echo "peers $? $SECONDS" >> "$out/gpu.txt"
round tuned "$db" 2
round ship "$empty" 2
python3 "$(dirname "$0")/ab_rounds.py" "$t" ship tuned "$set" \
  > "$t/table.txt" 2>&1
echo "done $SECONDS" >> "$out/gpu.txt"
gzip -f "$t"/*.jsonl "$t/tuned.sql"
rm -f "$db" "$empty"
