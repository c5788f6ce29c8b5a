#!/usr/bin/env python3
"""Joins `w8a8 bench --json` lines with bench/peers.py lines (same fields) and prints
per-shape ratios of TFLOP/s (ours / peer) and their geometric mean.

usage: ratios.py OURS.jsonl PEERS.jsonl PEER_PROVIDER [--min-m M] [--max-m M]
  e.g. ratios.py ours-decode-row-row.jsonl peers-decode.jsonl torch.row.fast
Exit 2 on a usage error: a missing argument, an unreadable file, a line that is not JSON, or a
provider neither file has rows for.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from rows import RowsError, json_lines  # noqa: E402  (bench/rows.py: the JSON-lines reader)


class UsageError(Exception):
    pass


def load(path):
    rows = {}
    try:
        for r in json_lines(path):
            if "us" in r:
                rows.setdefault(r["provider"], {})[(r["m"], r["n"], r["k"])] = r
    except RowsError as e:
        raise UsageError(str(e)) from None
    return rows


def provider_rows(rows, path, provider):
    if provider not in rows:
        have = ", ".join(sorted(rows)) or "no timed rows"
        raise UsageError(f"{path} has no rows of provider '{provider}' (it has: {have})")
    return rows[provider]


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="ratios.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="A ratio > 1: ours is faster. Shapes are listed by (N, K), "
                                        "then M;\nonly the shapes both files time count.")
    ap.add_argument("ours", metavar="OURS.jsonl", help="`w8a8 bench --json` output")
    ap.add_argument("peers", metavar="PEERS.jsonl", help="bench/peers.py output")
    ap.add_argument("peer", metavar="PEER_PROVIDER",
                    help="the peer's provider field, e.g. torch.tensor.fast")
    ap.add_argument("--min-m", type=int, default=0, metavar="M", help="shapes with M >= this")
    ap.add_argument("--max-m", type=int, default=1 << 60, metavar="M",
                    help="shapes with M <= this")
    return ap, ap.parse_args(argv)


def main(argv):
    ap, args = parse_args(argv)
    try:
        ours = provider_rows(load(args.ours), args.ours, "w8a8jit")
        peer = provider_rows(load(args.peers), args.peers, args.peer)
    except UsageError as e:
        ap.error(str(e))
    lo, hi = args.min_m, args.max_m
    ratios = []
    print(f"{'M':>5} {'N':>6} {'K':>6} {'ours TF/s':>10} {args.peer + ' TF/s':>18} {'ratio':>6}")
    for key in sorted(ours, key=lambda x: (x[1], x[2], x[0])):
        if key not in peer or not lo <= key[0] <= hi:
            continue
        r = ours[key]["tflops"] / peer[key]["tflops"] if peer[key]["tflops"] else float("nan")
        ratios.append(r)
        print(f"{key[0]:>5} {key[1]:>6} {key[2]:>6} {ours[key]['tflops']:>10.1f} "
              f"{peer[key]['tflops']:>18.1f} {r:>6.3f}")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"{len(ratios)} shapes: geometric mean {geo:.3f}, min {min(ratios):.3f}, "
              f"max {max(ratios):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
