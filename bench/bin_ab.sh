#!/usr/bin/env bash
# Two sides of an A/B on a GPU host, timed as graph replays: the same shapes dispatched through
# the same cache (W8A8_CACHE_PATH, default ./cache; W8A8_TUNE=off), CHUNK shapes a process
# (default 16), in the order A B B A, into OUT (one JSON object a shape and run, with "build",
# "round" and "seq"). A runs OLD_BIN with the user database A_DB, B runs NEW_BIN with B_DB (both
# default to one empty database): two builds over the shipped rows, or (bench/sweep_rows.sh) one
# build over the shipped rows (A) and over a tune's winners (B). bench/bin_ab.py then gives
# each shape's B/A speed from the faster run of each; bench/select_rows.py picks a sweep's rows.
#   bench/bin_ab.sh OLD_BIN NEW_BIN OUT GRANULARITY SHAPE...
#     GRANULARITY  tensor,tensor | row,row | block,block (or one name for both) | int8
#     SHAPE        M,N,K
# BENCH_ARGS: more `w8a8 bench` arguments for both sides (e.g. "--dtype e5m2 --accum promoted").
set -uo pipefail
[ $# -ge 5 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
old=$1 new=$2 out=$3 gran=$4
shift 4
args=(--scale "$gran")
[ "$gran" = int8 ] && args=(--dtype int8)
# shellcheck disable=SC2206
extra=(${BENCH_ARGS:-})
empty=$(mktemp -u).db
round=0
while [ $# -gt 0 ]; do
  chunk=()
  for _ in $(seq "${CHUNK:-16}"); do [ $# -gt 0 ] && { chunk+=(--shape "$1"); shift; }; done
  round=$((round + 1)) seq=0
  for v in A B B A; do
    seq=$((seq + 1)) bin=$old db=${A_DB:-$empty}
    [ "$v" = B ] && bin=$new db=${B_DB:-$empty}
    W8A8_CACHE_PATH=${W8A8_CACHE_PATH:-$PWD/cache} W8A8_CACHE_DB=$db W8A8_TUNE=off timeout 150 \
      "$bin" bench --json --no-cublaslt --graph "${chunk[@]}" "${args[@]}" ${extra[@]+"${extra[@]}"} \
      | sed "s/^{/{\"build\": \"$v\", \"round\": $round, \"seq\": $seq, /" >> "$out"
  done
done
