#!/usr/bin/env python3
"""Session 43: sm80_gemm rows for an H200 cache from a `w8a8 bench --json` log, so a device call
can time fixed sm80_gemm configs (INT8, per-row) without tuning them first.

    python3 bench/results-2026-11-29-s43/sm80_rows.py BENCH.jsonl OUT.sql [--min-m M] [KEY=VALUE,...]

Every sm80_gemm row of BENCH.jsonl with m >= M (default 2048) becomes an INSERT line for
`w8a8 cache import`: the shipped H200 INT8 row of cache/h200-decode.sql with the log's dtype,
scales, N, K, M bucket (M itself: the grid's M are powers of two), family, config and time.
KEY=VALUE items replace (or are appended to) each config. Prints one line per row."""
import json
import re
import sqlite3
import sys

sys.path.insert(0, "bench")
from merge_rows import PREFIX  # noqa: E402


def main(argv):
    args = argv[1:]
    min_m = 2048
    if "--min-m" in args:
        i = args.index("--min-m")
        min_m = int(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (2, 3):
        print(__doc__)
        return 2
    log, out = args[0], args[1]
    items = dict(i.split("=", 1) for i in args[2].split(",")) if len(args) == 3 else {}
    template = next(l for l in open("cache/h200-decode.sql")
                    if l.startswith(PREFIX) and "'int8', 'int8'" in l)
    names = re.match(PREFIX + r" \(([^)]*)\)", template).group(1)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE measurement_rows (%s)" % names)
    lines = []
    for line in open(log):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("family") != "sm80_gemm" or r["m"] < min_m:
            continue
        cfg = r["config"]
        for key, value in items.items():
            cfg, count = re.subn(r"\b%s=\w+" % key, "%s=%s" % (key, value), cfg)
            if not count:
                cfg += ",%s=%s" % (key, value)
        db.execute("DELETE FROM measurement_rows")
        db.execute(template)
        db.execute("UPDATE measurement_rows SET a_type=?, b_type=?, a_scale=?, b_scale=?, n=?, "
                   "k=?, m_bucket=?, family='sm80_gemm', config=?, median_us=?",
                   (r["dtype"], r["dtype"], r["scale"], r["scale"], r["n"], r["k"], r["m"], cfg,
                    r["us"]))
        values = db.execute("SELECT %s FROM measurement_rows" % ", ".join(
            "quote(%s)" % c.strip() for c in names.split(","))).fetchone()
        lines.append("%s (%s) VALUES (%s);\n" % (PREFIX, names, ", ".join(values)))
        print(r["m"], r["n"], r["k"], cfg)
    with open(out, "w") as f:
        f.writelines(lines)
    return 0


sys.exit(main(sys.argv))
