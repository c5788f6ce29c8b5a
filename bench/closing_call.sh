#!/usr/bin/env bash
# A session's closing device call, on a GPU host from the repository root with the static build
# in carry/ (carry/static/w8a8, its tests, carry/peers.py): the grids beside peers.py
# (bench/grids_beside_peers.sh: the shipped caches, 20-call graph replays on both sides), then
# every GPU suite (scripts/gpu-session.sh tests), everything packed into $OUT/NAME.tgz.
#   bench/closing_call.sh NAME        (writes $OUT/NAME/, then $OUT/NAME.tgz)
# About 160 s of grids and 270 s of suites on an H200 (sessions 43, 44).
set -u
[ $# -eq 1 ] && [ -n "${OUT:-}" ] || { sed -n '2,8p' "$0" >&2; exit 2; }
o=$OUT/$1; mkdir -p "$o"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv \
  > "$o/gpu.txt" 2>&1
timeout 230 bench/grids_beside_peers.sh "$o" > "$o/grids.log" 2>&1
echo "grids exit $? $SECONDS" >> "$o/gpu.txt"
tar czf "$OUT/$1.tgz" -C "$OUT" "$1"
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 timeout 340 scripts/gpu-session.sh tests \
  > "$o/tests.log" 2>&1
echo "tests exit $? $SECONDS" >> "$o/gpu.txt"
tar czf "$OUT/$1.tgz" -C "$OUT" "$1" && rm -rf "$o"
