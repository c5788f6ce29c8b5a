#!/usr/bin/env python3
"""The shipped H200 sm90_gemm rows of the given M buckets (fast accumulation, not swap, not
naming the suffix's parameter already) as INSERTs with ",trigger=1" (or another suffix)
appended to the config: the user database of d11.sh (session 38's trig1_rows.py with the
buckets an argument).

    python3 bench/results-2026-11-28-s39/trig_rows.py 64,128,1024,2048,4096 > /tmp/trig.sql
    w8a8 cache --db carry/trig.db import /tmp/trig.sql
    python3 bench/results-2026-11-28-s39/trig_rows.py 1,2,4,8,16,32,64,128 ,trigger=2 --swap  (D12)
    python3 bench/results-2026-11-28-s39/trig_rows.py 1,2,4,8,16,32,64,128,256,512,1024,2048,4096 \
        ,early=1 --swap  (session 40's D4 and D5: trigger=1 rows included)
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


BUCKETS = sys.argv[1].split(",") if len(sys.argv) > 1 else ["256", "512"]
SUFFIX = sys.argv[2] if len(sys.argv) > 2 else ",trigger=1"
SWAP = len(sys.argv) > 3 and sys.argv[3] == "--swap"  # swap-AB rows too


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
                    or row["m_bucket"] not in BUCKETS or ("swap=1" in row["config"] and not SWAP)
                    or SUFFIX.lstrip(",").split("=")[0] + "=" in row["config"]):
                continue
            row["config"] = row["config"][:-1] + SUFFIX + "'"
            print("INSERT INTO measurement_rows (%s) VALUES (%s);"
                  % (", ".join(cols), ", ".join(row[c] for c in cols)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
