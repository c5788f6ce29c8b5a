#!/usr/bin/env python3
"""Ship session 41's re-tuned H200 rows: from D2's and D3's winners (`w8a8 cache export
--winners`), the keys below — D2's where its A/B (table.txt) ran > 1 % faster in both rounds,
D3's where the tuner's final pass put the winner >= 1 % ahead of the shipped row it seeded
(seed_vs_new.py) — each merged by bench/merge_rows.py into the cache/h200-*.sql file that
already holds its key (the first such file in name order: the one the library reads); then,
as bench/ship_rows.sh does, the default `tail=1` the tuner spells out is dropped from the
configs (shipped rows leave it out, so that builds older than `tail` still parse them).

    python3 bench/results-2026-11-29-s41/ship_rows.py [--dry-run]   (from the repository root)
"""
import glob
import os
import re
import sys

sys.path.insert(0, "bench")
from merge_rows import PREFIX, row_reader, ship  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# (tuning run, M bucket, N, K, scale)
SHIP = [
    ("d2", 256, 8192, 8192, "tensor"), ("d2", 256, 8192, 8192, "row"),
    ("d2", 256, 8192, 8192, "block"), ("d2", 512, 4096, 14336, "block"),
    ("d2", 512, 7168, 16384, "block"),
    ("d3", 128, 4096, 14336, "tensor"), ("d3", 128, 8192, 28672, "tensor"),
    ("d3", 256, 10240, 8192, "tensor"), ("d3", 512, 4096, 14336, "tensor"),
    ("d3", 128, 57344, 8192, "row"),
    ("d3", 1024, 4096, 7168, "block"), ("d3", 2048, 4096, 7168, "block"),
]


def rows(path):
    return [l for l in open(path, encoding="utf-8") if l.startswith(PREFIX)]


def main():
    dry = "--dry-run" in sys.argv[1:]
    picked = []
    for run, m, n, k, scale in SHIP:
        src = rows(os.path.join(HERE, run, "t.sql"))
        sel = row_reader(src[0], "m_bucket, n, k, a_scale", "ship_rows")
        hit = [l for l in src if sel(l) == (m, n, k, scale)]
        if len(hit) != 1:
            print(f"ship_rows: {run} has {len(hit)} rows for {m}x{n}x{k} {scale}")
            return 1
        picked.append(hit[0])
    for path in ship(picked, glob.glob("cache/h200-*.sql"), "ship_rows", dry):
        if not dry:
            text = open(path, encoding="utf-8").read()
            with open(path, "w", encoding="utf-8") as out:
                out.write(re.sub(r",tail=1(?=[,'])", "", text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
