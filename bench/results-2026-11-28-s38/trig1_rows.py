#!/usr/bin/env python3
"""The shipped H200 sm90_gemm rows of M buckets 256 and 512 (fast accumulation, not swap) as
INSERTs with ",trigger=1" appended to the config: the user database of d8.sh.

    python3 bench/results-2026-11-28-s38/trig1_rows.py > /tmp/trig1.sql
    w8a8 cache --db carry/trig1.db import /tmp/trig1.sql     (84 rows on session 38's cache)
"""
import glob
import re
import sys


def values(text):
    """The comma-separated SQL values of an INSERT, quotes respected."""
    out, cur, quoted = [], "", False
    for ch in text:
        if ch == "'":
            quoted = not quoted
        if ch == "," and not quoted:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    out.append(cur.strip())
    return out


def main():
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
                    or row["m_bucket"] not in ("256", "512") or "swap=1" in row["config"]
                    or "trigger" in row["config"]):
                continue
            row["config"] = row["config"][:-1] + ",trigger=1'"
            print("INSERT INTO measurement_rows (%s) VALUES (%s);"
                  % (", ".join(cols), ", ".join(row[c] for c in cols)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
