#!/usr/bin/env bash
# Two builds of the command side by side on a GPU host: the same shapes dispatched through the
# same cache (W8A8_CACHE_PATH, default ./cache; W8A8_TUNE=off), timed as graph replays, CHUNK
# shapes a process (default 16), in the order A B B A (A: OLD_BIN, B: NEW_BIN), into OUT (one
# JSON object a shape and run, with "build" and "seq"). bench/bin_ab.py then gives each
# shape's B/A speed from the faster run of each.
#   bench/bin_ab.sh OLD_BIN NEW_BIN OUT GRANULARITY SHAPE...
#     GRANULARITY  tensor,tensor | row,row | block,block | int8
#     SHAPE        M,N,K
set -uo pipefail
[ $# -ge 5 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
old=$1 new=$2 out=$3 gran=$4
shift 4
args=(--scale "$gran")
[ "$gran" = int8 ] && args=(--dtype int8)
empty=$(mktemp -u).db
round=0
while [ $# -gt 0 ]; do
  chunk=()
  for _ in $(seq "${CHUNK:-16}"); do [ $# -gt 0 ] && { chunk+=(--shape "$1"); shift; }; done
  round=$((round + 1)) seq=0
  for v in A B B A; do
    seq=$((seq + 1)) bin=$old
    [ "$v" = B ] && bin=$new
    W8A8_CACHE_PATH=${W8A8_CACHE_PATH:-$PWD/cache} W8A8_CACHE_DB=$empty W8A8_TUNE=off timeout 150 \
      "$bin" bench --json --no-cublaslt --graph "${chunk[@]}" "${args[@]}" \
      | sed "s/^{/{\"build\": \"$v\", \"round\": $round, \"seq\": $seq, /" >> "$out"
  done
done
