#!/usr/bin/env python3
"""Ship a call's tuned rows where they ran >= 1.02x the shipped row in both A B B A pairs
(DIR/tune/table.txt): each key's winner in the call's tuned database (DIR/tune/tuned.sql.gz,
imported with `w8a8 cache import`, exported with --winners), merged by bench/merge_rows.py's
ship() into the cache/h200-*.sql file that holds the key.

    python3 bench/results-2026-11-29-s44/ship_tuned.py d2|d3 [W8A8]   (from the repository
    root; W8A8 the command, default build/ci/w8a8)
"""
import glob
import gzip
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, "bench")
from merge_rows import PREFIX, row_reader, ship  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MIN_SPEED = 1.02


def faster_keys(call):
    keys = set()
    for line in open(os.path.join(HERE, call, "tune", "table.txt")):
        p = line.split()
        if len(p) >= 11 and p[0].isdigit() and p[3] == "ship":
            r1, r2 = float(p[9]), float(p[10])
            if min(r1, r2) >= MIN_SPEED:
                keys.add((int(p[0]), int(p[1]), int(p[2])))
    return keys


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("d2", "d3"):
        raise SystemExit(__doc__)
    call = sys.argv[1]
    w8a8 = sys.argv[2] if len(sys.argv) > 2 else "build/ci/w8a8"
    keys = faster_keys(call)
    with tempfile.TemporaryDirectory() as tmp:
        sql = os.path.join(tmp, "tuned.sql")
        with gzip.open(os.path.join(HERE, call, "tune", "tuned.sql.gz"), "rt") as f, \
                open(sql, "w") as out:
            out.write(f.read())
        env = dict(os.environ, W8A8_CACHE_DB=os.path.join(tmp, "t.db"), W8A8_CACHE_PATH=tmp)
        subprocess.run([w8a8, "cache", "import", sql], env=env, check=True)
        winners = os.path.join(tmp, "winners.sql")
        subprocess.run([w8a8, "cache", "export", winners, "--winners"], env=env, check=True)
        lines = [l for l in open(winners) if l.startswith(PREFIX)]
    fields = row_reader(lines[0], "m_bucket, n, k, a_scale, device_name", "ship_tuned")
    rows = []
    for line in lines:
        mb, n, k, scale, dev = fields(line)
        if scale == "block" and dev == "NVIDIA H200" and (mb, n, k) in keys:
            rows.append(line)
            keys.discard((mb, n, k))
    if keys:
        raise SystemExit("ship_tuned: no tuned winner for %s" % sorted(keys))
    print("ship_tuned: %d rows" % len(rows))
    ship(rows, glob.glob("cache/h200-*.sql"), "ship_tuned")


main()
