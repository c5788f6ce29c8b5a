#!/usr/bin/env python3
"""The shipped H200 sm90_gemm rows (fast accumulation, swap-AB and trigger=1 included) of the
given M buckets as INSERTs with ",early=1" appended to the config: the user database of d4.sh
(user rows win over the shipped ones, so the same keys run the same configs with early=1).

    python3 bench/results-2026-11-28-s40/early_rows.py 1,2,4,8,16,32,64,128,256,512 > /tmp/e.sql
    w8a8 cache --db carry/early.db import /tmp/e.sql
"""
import glob
import re
import sys

sys.path.insert(0, "bench/results-2026-11-28-s39")
from trig_rows import values  # noqa: E402  (the INSERT value splitter, quotes respected)


def main():
    buckets = sys.argv[1].split(",")
    for path in sorted(glob.glob("cache/h200-*.sql")):
        if "promoted" in path:
            continue
        for line in open(path):
            m = re.match(r"INSERT INTO measurement_rows \((.*?)\) VALUES \((.*)\);\s*$", line)
            if not m:
                continue
            cols = [c.strip() for c in m.group(1).split(",")]
            row = dict(zip(cols, values(m.group(2))))
            if (row["family"] != "'sm90_gemm'" or row.get("accum", "'fast'") != "'fast'"
                    or row["m_bucket"] not in buckets or "early" in row["config"]):
                continue
            row["config"] = row["config"][:-1] + ",early=1'"
            print("INSERT INTO measurement_rows (%s) VALUES (%s);"
                  % (", ".join(cols), ", ".join(row[c] for c in cols)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
