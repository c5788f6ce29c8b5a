#!/usr/bin/env python3
"""What one space parameter is worth, from a tuning database's own measurements: per key, the
fastest verified config with PARAM=VALUE against the fastest without it (same family), and the
geometric mean of the ratios over the keys where both were timed.

usage: param_wins.py SOURCE PARAM VALUE [--family sm90_gemm] [--scale block]

SOURCE: a tuning database, read read-only (python's sqlite3; no sqlite3 command needed), or
the output of `w8a8 tune --json` (.jsonl, or .jsonl.gz), whose keys are the problems' M.

Output: one line per key (M bucket, N, K, scales), time without / time with (> 1: the value
wins), then a summary over all keys and one per M range (M <= 64, 64 < M <= 512, M > 512)."""
import argparse
import os
import sqlite3
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows import RowsError, geomean, json_lines  # noqa: E402

M_RANGES = ((0, 64), (64, 512), (512, None))  # (lo, hi]: lo < M <= hi


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
        rows = load(args.db, args.family)
    except (OSError, sqlite3.Error, ValueError, RowsError) as e:
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
    ratios, ratios_by_key = [], []
    print(f"{'M':>6} {'N':>6} {'K':>6} scales        without/with  best with {item}")
    for key in sorted(best):
        with_, without = best[key]
        if not with_ or not without:
            continue
        r = without[0] / with_[0]
        ratios.append(r)
        ratios_by_key.append((key, r))
        print(f"{key[0]:6d} {key[1]:6d} {key[2]:6d} {key[3]}/{key[4]:<12} {r:8.3f}      "
              f"{with_[0]:.2f} us  {with_[1]}")
    if not ratios:
        print(f"no key has configs timed both with and without {item}")
        return 1
    summarize(item, "", ratios)
    for lo, hi in M_RANGES:
        part = [r for key, r in ratios_by_key if lo < key[0] and (hi is None or key[0] <= hi)]
        if part:
            where = f" at M > {lo}" if hi is None else f" at {lo} < M <= {hi}" if lo else f" at M <= {hi}"
            summarize(item, where, part)
    return 0


def summarize(item, where, ratios):
    geo = geomean(ratios)
    wins = sum(r > 1 for r in ratios)
    print(f"{item}{where}: {len(ratios)} keys, geomean without/with {geo:.3f}, wins on {wins}, "
          f"range {min(ratios):.3f}..{max(ratios):.3f}")


def load(path, family):
    """(m, n, k, a_scale, b_scale, config, best us) of every verified ok measurement of the
    family, from a tuning database or `w8a8 tune --json` lines."""
    with open(path, "rb") as f:
        head = f.read(2)
    if str(path).endswith(".gz") or head[:1] == b"{":  # JSON lines (as rows.json_lines reads)
        best = {}
        for x in json_lines(path):
            if (x.get("type") != "measurement" or x.get("status") != "ok"
                    or x.get("family") != family or not x.get("us", 0) > 0):
                continue
            sa, _, sb = x["scale"].partition(",")
            key = (x["m"], x["n"], x["k"], sa, sb or sa, x["config"])
            best[key] = min(best.get(key, x["us"]), x["us"])
        if not best:
            raise ValueError(f"no ok {family} measurement in these JSON lines")
        return [key + (us,) for key, us in best.items()]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return db.execute(
        "select p.m_bucket, p.n, p.k, p.a_scale, p.b_scale, m.config, min(m.median_us) "
        "from measurements m join problems p on p.id = m.problem_id "
        "where m.status = 'ok' and m.verified = 1 and m.family = ? "
        "group by p.id, m.config", (family,)).fetchall()


if __name__ == "__main__":
    sys.exit(main())
