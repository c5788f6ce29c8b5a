#!/usr/bin/env python3
"""Rows of the tuning cache slower than a larger M bucket's winner of the same class: for one
config the time grows with M, so such a row is stale (tuned before a better config existed, or
on a slow run). `w8a8 tune` (no --space) times the neighbouring buckets' winners first, so
retuning these keys lets them borrow the better config; bench/sweep_rows.sh with the space "-"
does that and times the result against the shipped rows.

    w8a8 cache list --json | bench/monotone_rows.py [--device H200] [--over 1.02] [--within 4]

Prints one line a stale row: dtype scale accum M,N,K (M its bucket), then how much slower it
is than the fastest winner of a bucket up to --within times larger, and that bucket. A class
is everything of the key but M (device, dtypes, out, bias, scales, accumulation, zero point,
N, K). The medians come from different runs (the GPU's clock at its power cap, the tune's
pass), so a listed row is a candidate for a retune, not a proven stale one: session 25's D1
retuned the 32 H200 rows listed then and 12 ran >= 1.02x faster in both A B B A pairs (up to
1.18x); a fresh row can be listed again (96x2112x7168 block, D1's, is). Exit 0; 2 on input
that is not `cache list --json`."""
import argparse
import collections
import json
import sys

CLASS = ("device", "a_type", "b_type", "out_type", "bias_type", "a_scale", "b_scale", "accum",
         "azp", "n", "k")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="H200", help="a part of the rows' device name")
    ap.add_argument("--over", type=float, default=1.02, help="slower by at least this factor")
    ap.add_argument("--within", type=float, default=4.0, help="larger buckets up to this factor")
    a = ap.parse_args()
    classes = collections.defaultdict(dict)
    for line in sys.stdin:
        try:
            r = json.loads(line)
            key = tuple(r[c] for c in CLASS)
            bucket, us = int(r["m_bucket"]), float(r["median_us"])
        except (ValueError, KeyError, TypeError):
            print("monotone_rows: not a `w8a8 cache list --json` line: " + line[:80],
                  file=sys.stderr)
            sys.exit(2)
        if r.get("winner") and a.device in r["device"] and us > 0:
            classes[key][bucket] = us
    for key, rows in sorted(classes.items()):
        c = dict(zip(CLASS, key))
        for m, us in sorted(rows.items()):
            larger = [(u, b) for b, u in rows.items() if m < b <= a.within * m]
            if larger and us > a.over * min(larger)[0]:
                best, at = min(larger)
                scale = c["a_scale"] if c["a_scale"] == c["b_scale"] else \
                    c["a_scale"] + "," + c["b_scale"]
                print("%s %s %s %d,%d,%d %.3f %d" % (c["a_type"], scale, c["accum"], m, c["n"],
                                                     c["k"], us / best, at))


if __name__ == "__main__":
    main()
