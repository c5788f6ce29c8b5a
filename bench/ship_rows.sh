#!/usr/bin/env bash
# Ships a retune's rows, on the host after the device call: bench/select_rows.py picks the keys
# whose winner ran >= 1.02x the shipped row in both A B B A pairs (holding back those whose A
# side ran its row > 1.10x slower than the row's tuned time), bench/merge_rows.py puts each
# selection into its shipped file (dropping the default `tail=1` the tuner spells out, as the
# shipped rows of tail 1 leave it out so that builds older than `tail` still parse them).
#   bench/ship_rows.sh AB.jsonl NEW.sql SHIPPED.jsonl OUTDIR [FILE]
#     AB.jsonl       bench/sweep_rows.sh's A B B A lines (OUT/ab.jsonl)
#     NEW.sql        the sweep database's `w8a8 cache export --winners` (OUT/winners.sql)
#     SHIPPED.jsonl  `W8A8_CACHE_PATH=$PWD/cache w8a8 cache --db EMPTY.db --json list`, made
#                    before this call's rows go in (select_rows compares configs with it)
#     OUTDIR         where select_rows.py writes select-<file>.sql
#     FILE           the shipped file that takes keys no shipped H200 row holds
# Environment: CACHE_DIR (default cache), DEVICE (select_rows.py's device, default H200),
# PYTHON (default python3). Exit status: select_rows.py's or merge_rows.py's first failure.
set -uo pipefail
[ $# -eq 4 ] || [ $# -eq 5 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3} cache=${CACHE_DIR:-cache}
mkdir -p "$4" || exit 2
"$py" "$here/select_rows.py" "$1" "$2" "$3" "$4" "${DEVICE:-H200}" ${5:+"$5"} || exit
for sel in "$4"/select-*.sql; do
  [ -e "$sel" ] || continue
  shipped=$cache/${sel##*/select-}
  "$py" "$here/merge_rows.py" "$shipped" "$sel" || exit
done
