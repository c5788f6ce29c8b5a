#!/usr/bin/env python3
"""Checks a tuning space's cost model (its rank()) against measurements.

Reads the JSON lines of `w8a8 tune --json` runs (several files: a run resumed across calls
prints only what it measured), keeps the quick-pass ("pass": 1) "ok" measurements, and for
every key (shape and problem class) with at least --min-measured of them, including some of
the exploration sample (`w8a8 tune --explore N`: configs chosen from the whole space
regardless of rank), asks: does the model's top --top (rank positions 0 … top-1 of the key's
space) hold a config within --within of the fastest config measured for that key?

Prints a markdown table, one row per key, and a summary line; exit status 0 (the table is the
result; it is not a pass/fail test).

    scripts/validate_rank.py tune-1.jsonl tune-2.jsonl [--top 32] [--within 0.02]
"""
import argparse
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from rows import RowsError, quick_pass_rows  # noqa: E402  (bench/rows.py: the JSON-lines reader)

KEY_FIELDS = ("m", "n", "k", "dtype", "scale", "out")


def key_of(row):
    return tuple(row.get(f) for f in KEY_FIELDS)


def load(paths):
    keys = defaultdict(list)
    try:
        for row in quick_pass_rows(paths):
            keys[key_of(row)].append(row)
    except RowsError as e:
        sys.exit(f"validate_rank: {e}")
    return keys


def spearman(xs, ys):
    """Rank correlation of two equal-length lists (ties broken by order)."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0] * len(v)
        for place, i in enumerate(order):
            r[i] = place
        return r
    if len(xs) < 3:
        return float("nan")
    a, b = ranks(xs), ranks(ys)
    n = len(xs)
    d2 = sum((x - y) ** 2 for x, y in zip(a, b))
    return 1 - 6 * d2 / (n * (n * n - 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", help="JSON lines of w8a8 tune --json (.gz too)")
    ap.add_argument("--top", type=int, default=32, help="the model's top N (default 32)")
    ap.add_argument("--within", type=float, default=0.02,
                    help="relative slack to the fastest measured (default 0.02)")
    ap.add_argument("--min-measured", type=int, default=64,
                    help="keys with fewer ok measurements are left out (default 64)")
    ap.add_argument("--family", default="sm90_gemm", help="the space's family (default sm90_gemm)")
    args = ap.parse_args()

    keys = load(args.logs)
    rows, hits = [], 0
    for key in sorted(keys, key=lambda k: (k[3] or "", k[4] or "", k[1], k[2], k[0])):
        measured = [r for r in keys[key] if r.get("family") == args.family
                    and r.get("rank_position", -1) >= 0]
        # one time per config (a config measured in two runs keeps its faster quick pass)
        best_of = {}
        for r in measured:
            c = r["config"]
            if c not in best_of or r["us"] < best_of[c]["us"]:
                best_of[c] = r
        measured = list(best_of.values())
        explored = [r for r in measured if r.get("explored")]
        if len(measured) < args.min_measured or not explored:
            continue
        fastest = min(measured, key=lambda r: r["us"])
        top = [r for r in measured if r["rank_position"] < args.top]
        if not top:
            continue
        best_top = min(top, key=lambda r: r["us"])
        gap = best_top["us"] / fastest["us"] - 1
        ok = gap <= args.within
        hits += ok
        rho = spearman([r["rank_position"] for r in measured], [r["us"] for r in measured])
        beat = sum(r["us"] < best_top["us"] for r in explored)
        rows.append((key, len(measured), len(explored), fastest["rank_position"], gap, ok, rho,
                     beat, fastest["config"]))

    if not rows:
        sys.exit(f"validate_rank: no key has {args.min_measured} ok quick-pass measurements of "
                 f"{args.family} with explored configs among them")
    print(f"| M×N×K | scale | measured | explored | winner's rank position | top-{args.top} "
          f"best vs fastest | within {args.within:.0%} | Spearman ρ (position, time) | explored "
          f"faster than top-{args.top} best | fastest config |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, n, e, pos, gap, ok, rho, beat, config in rows:
        m, nn, k, dtype, scale, out = key
        print(f"| {m}×{nn}×{k} | {dtype} {scale} | {n} | {e} | {pos} | +{100 * gap:.1f} % | "
              f"{'yes' if ok else 'no'} | {rho:.2f} | {beat} | `{config}` |")
    gaps = [r[4] for r in rows]
    geo = math.exp(sum(math.log1p(g) for g in gaps) / len(gaps)) - 1
    print(f"\n{hits} of {len(rows)} keys: the top {args.top} by rank hold a config within "
          f"{args.within:.0%} of the fastest measured; geometric-mean gap +{100 * geo:.2f} %, "
          f"worst +{100 * max(gaps):.1f} %.")


if __name__ == "__main__":
    main()
