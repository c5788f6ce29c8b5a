#!/usr/bin/env bash
# Session 42 (D1, D3), on a GPU host: shipped sm90_gemm rows against two variants of them.
#   bench/results-2026-11-29-s42/variants.sh OUTDIR NAME_A:ITEMS NAME_B:ITEMS
# overlap_rows.py writes OUTDIR/rows (base.sql, NAME_A.sql, NAME_B.sql: its variant form
# NAME:key=value,...), each imported into a database of its own; then `w8a8 bench` times the
# rows' keys (block, promoted per-tensor, promoted per-row) as graph replays in rounds base A B
# B A base, and ab_rounds.py writes OUTDIR/table-NAME_A.txt and table-NAME_B.txt. Run from the
# repository root with W8A8_CACHE_PATH, W8A8_TUNE=off and W8A8_KERNEL_DIR set by the caller.
o=$1 a=${2%%:*} b=${3%%:*}
W=$PWD/carry/static/w8a8
python3 bench/results-2026-11-29-s42/overlap_rows.py "$o/rows" "$2" "$3" > "$o/rows.txt" 2>&1
for v in base "$a" "$b"; do
  W8A8_CACHE_DB=/tmp/$v.db $W cache import "$o/rows/$v.sql" >> "$o/gpu.txt" 2>&1
done
one() { # label round
  for s in block ptensor prow; do
    # shellcheck disable=SC2046
    W8A8_CACHE_DB=/tmp/$1.db timeout 200 $W bench $(cat "$o/rows/$s.args") --graph --no-cublaslt \
      --json --samples 20 > "$o/$1-$s-r$2.jsonl" 2>> "$o/err.txt"
  done
  echo "$1 round $2 $SECONDS" >> "$o/gpu.txt"
}
one base 1; one "$a" 1; one "$b" 1; one "$b" 2; one "$a" 2; one base 2
for v in "$a" "$b"; do
  python3 bench/results-2026-11-28-s40/ab_rounds.py "$o" base "$v" block ptensor prow \
    > "$o/table-$v.txt" 2>&1
done
