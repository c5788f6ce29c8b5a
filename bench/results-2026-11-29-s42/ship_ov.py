#!/usr/bin/env python3
"""Ship D1's overlap 4 / 5 rows that ran >= 1.02x the shipped row in both A B B A pairs
(d1/table-ov4.txt, d1/table-ov5.txt): the variant row of d1/rows/ov<V>.sql with its median the
mean of its two graph-replay rounds (d1/ov<V>-block-r<R>.jsonl), spread half their difference,
40 samples; merged by bench/merge_rows.py's ship() into the cache/h200-*.sql file that holds the key.

    python3 bench/results-2026-11-29-s42/ship_ov.py   (from the repository root)
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, "bench")
from merge_rows import PREFIX, row_reader, ship  # noqa: E402

D1 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "d1")
# (overlap, M bucket, N, K), block scales
SHIP = [(4, 512, 8192, 28672), (5, 256, 7168, 16384), (4, 1024, 7168, 2048),
        (4, 2048, 7168, 2048)]


def timed(v, shape):
    us = []
    for r in (1, 2):
        for line in open(os.path.join(D1, "ov%d-block-r%d.jsonl" % (v, r))):
            x = json.loads(line)
            if (x["m"], x["n"], x["k"]) == shape and "overlap=%d" % v in x.get("config", ""):
                us.append(x["us"])
    if len(us) != 2:
        raise SystemExit("ship_ov: %s with overlap %d not timed in both rounds" % (shape, v))
    return us


def main():
    rows = {}
    for v in sorted({s[0] for s in SHIP}):
        lines = [l for l in open(os.path.join(D1, "rows", "ov%d.sql" % v)) if l.startswith(PREFIX)]
        fields = row_reader(lines[0], "m_bucket, n, k, config", "ship_ov")
        for line in lines:
            mb, n, k, cfg = fields(line)
            if (v, mb, n, k) in SHIP:
                us = timed(v, (mb, n, k))
                # median_us, spread_us, samples follow the config string
                new, count = re.subn(r"('%s', )[0-9.e+-]+, [0-9.e+-]+, \d+, " % re.escape(cfg),
                                     lambda m: "%s%r, %r, 40, " % (
                                         m.group(1), sum(us) / 2, abs(us[0] - us[1]) / 2), line)
                if count != 1:
                    raise SystemExit("ship_ov: cannot set the median of %s" % ((mb, n, k),))
                rows[(mb, n, k)] = new
    ship(list(rows.values()), glob.glob("cache/h200-*.sql"), "ship_ov")


main()
