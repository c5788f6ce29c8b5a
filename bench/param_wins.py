#!/usr/bin/env python3
"""What one space parameter is worth, from a tuning database's own measurements: per key, the
fastest verified config with PARAM=VALUE against the fastest without it (same family), and the
geometric mean of the ratios over the keys where both were timed.

usage: param_wins.py DB PARAM VALUE [--family sm90_gemm] [--scale block]

Output: one line per key (M bucket, N, K, scales), time without / time with (> 1: the value
wins), then a summary. Reads the database read-only (python's sqlite3; no sqlite3 command
needed)."""
import argparse
import math
import sqlite3
import sys


def has(config, item):
    return f",{item}," in f",{config},"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db")
    ap.add_argument("param")
    ap.add_argument("value")
    ap.add_argument("--family", default="sm90_gemm")
    ap.add_argument("--scale", help="only keys whose A scale is this (tensor, row, block)")
    args = ap.parse_args()
    item = f"{args.param}={args.value}"
    try:
        db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        rows = db.execute(
            "select p.m_bucket, p.n, p.k, p.a_scale, p.b_scale, m.config, min(m.median_us) "
            "from measurements m join problems p on p.id = m.problem_id "
            "where m.status = 'ok' and m.verified = 1 and m.family = ? "
            "group by p.id, m.config", (args.family,)).fetchall()
    except sqlite3.Error as e:
        print(f"param_wins: {args.db}: {e}", file=sys.stderr)
        return 2
    best = {}  # key -> [best with, best without]
    for m, n, k, sa, sb, config, us in rows:
        if args.scale and sa != args.scale:
            continue
        slot = best.setdefault((m, n, k, sa, sb), [None, None])
        i = 0 if has(config, item) else 1
        if slot[i] is None or us < slot[i][0]:
            slot[i] = (us, config)
    ratios = []
    print(f"{'M':>6} {'N':>6} {'K':>6} scales        without/with  best with {item}")
    for key in sorted(best):
        with_, without = best[key]
        if not with_ or not without:
            continue
        r = without[0] / with_[0]
        ratios.append(r)
        print(f"{key[0]:6d} {key[1]:6d} {key[2]:6d} {key[3]}/{key[4]:<12} {r:8.3f}      "
              f"{with_[0]:.2f} us  {with_[1]}")
    if not ratios:
        print(f"no key has configs timed both with and without {item}")
        return 1
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    wins = sum(r > 1 for r in ratios)
    print(f"{item}: {len(ratios)} keys, geomean without/with {geo:.3f}, wins on {wins}, "
          f"range {min(ratios):.3f}..{max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
