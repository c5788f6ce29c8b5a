#!/usr/bin/env bash
# A sweep of shipped rows, on a GPU host: each group of bench/sweep_prepare.py (one config
# with one parameter's values) tuned into DB (every candidate verified by the tuner), then the
# shipped rows (A: cache/ through W8A8_CACHE_PATH) against DB's winners (B) as graph replays,
# CHUNK shapes a process (default 20), in the order A B B A, into OUT/ab.jsonl; tune lines in
# OUT/tune-SCALE.jsonl, DB's winners as SQL in OUT/winners.sql. bench/ship_rows.sh
# OUT/ab.jsonl OUT/winners.sql … then ships the rows that won both pairs (bench/select_rows.py).
#   bench/sweep_rows.sh GROUPS SCALE ACCUM OUT DB
#     GROUPS  OUT/groups.txt of bench/sweep_prepare.py: a line a group, its space file then
#             its shapes; the space "-" tunes the built-in spaces (a plain tune, which first
#             times the cache's winners of each key and its neighbouring M buckets: with
#             bench/monotone_rows.py's keys, a retune of stale rows)
#     SCALE   block, tensor or row; ACCUM fast or promoted
# Environment: W8A8 (the command, default carry/static/w8a8), W8A8_KERNEL_DIR (shared by the
# tune and the benches, so A's configs are compiled once), CHUNK, DTYPE (default e4m3), BUDGET
# (seconds a group's tune may take, default 105), SEED=1 (named spaces: `tune --seed`, the
# cache's winners timed first), SETTLE=MS (`tune --settle MS`, the GPU idle before each
# finalist's timing; session 33's D15 saw one config's quick and final times 20 % apart on
# large shapes as the GPU heated), TUNE_ARGS (more `w8a8 tune` arguments, e.g.
# "--max-candidates 48"). A retune of chosen keys is one group "- SHAPE…" (the plain tune);
# bench/ship_rows.sh then ships its rows.
# Session 24 (bench/results-2026-11-26-s24, C4, C5, C7) swept overlap this way: about 1 s a
# candidate for tuning and 1 s a shape for the four benches on an H200.
set -uo pipefail
[ $# -eq 5 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
groups=$1 scale=$2 accum=$3 out=$4 db=$5
w8a8=${W8A8:-carry/static/w8a8}
mkdir -p "$out"
args() { for s in $1; do printf ' --shape %s' "$s"; done; }
dtype=${DTYPE:-e4m3} budget=${BUDGET:-105}
while read -r space shapes; do
  named=(--space "$space")
  [ "${SEED:-0}" = 1 ] && named+=(--seed)
  [ "$space" = - ] && named=()
  [ -n "${SETTLE:-}" ] && named+=(--settle "$SETTLE")
  # shellcheck disable=SC2046,SC2086
  W8A8_CACHE_DB=$db timeout $((budget + 15)) "$w8a8" tune "${named[@]}" --budget "$budget" \
    --dtype "$dtype" --scale "$scale" --accum "$accum" $(args "$shapes") --json ${TUNE_ARGS:-} \
    >> "$out/tune-$scale.jsonl" 2>> "$out/tune.log"
  echo "tune $scale $space exit $?" >> "$out/summary.txt"
done < "$groups"
# the shipped rows (A) against DB's winners (B), A B B A, shapes in (N, K, M) order
# shellcheck disable=SC2046
B_DB=$db BENCH_ARGS="--dtype $dtype --accum $accum" CHUNK=${CHUNK:-20} \
  "$(dirname "$0")/bin_ab.sh" "$w8a8" "$w8a8" "$out/ab.jsonl" "$scale" \
  $(cut -d' ' -f2- "$groups" | tr ' ' '\n' | sort -t, -k2n -k3n -k1n) 2>> "$out/err.log"
echo "ab $scale exit 0" >> "$out/summary.txt"
"$w8a8" cache --db "$db" export "$out/winners.sql" --winners >> "$out/summary.txt" 2>&1
echo "winners exit $?" >> "$out/summary.txt"
