#!/usr/bin/env python3
"""Repeated runs of the same shapes side by side: how far apart the runs are, and what each
run says against a peer. For bench noise studies (session 15: host launches against graph
replays, PDL on and off, run twice or five times in one device call).

usage: rounds.py --peers PEERS.jsonl[,PEERS2.jsonl...] --peer PROVIDER LABEL=OURS.jsonl ...
                 [--top N]

Prints per label the geometric mean and worst shape of peer time / our time against each
peers file, then the shapes whose times differ most across the labels (max / min, and each
label's time), and per label pair of the same mode (the label before its last '-' or digit
run, e.g. L1 and L2, or G-pdl1-r1 and G-pdl1-r2) the geometric mean and largest spread. Exit 2
on a usage error or an unreadable file."""
import argparse
import json
import math
import re
import sys


def load(path, provider=None):
    rows = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if "us" in r and r["us"] > 0 and (provider is None or r.get("provider") == provider):
                rows[(r["m"], r["n"], r["k"])] = r["us"]
    return rows


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def mode_of(label):
    """L1 -> L, G-pdl1-r3 -> G-pdl1: the label less its trailing run number."""
    return re.sub(r"(-r)?\d+$", "", label)


def shape_text(key):
    return "x".join(map(str, key))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", required=True, help="peers.py output files, comma-separated")
    ap.add_argument("--peer", required=True, help="the provider to compare with")
    ap.add_argument("--top", type=int, default=8, help="shapes listed by spread (default 8)")
    ap.add_argument("runs", nargs="+", metavar="LABEL=OURS.jsonl")
    args = ap.parse_args()
    try:
        peers = [(p, load(p, args.peer)) for p in args.peers.split(",")]
        runs = []
        for item in args.runs:
            label, sep, path = item.partition("=")
            if not sep or not label or not path:
                ap.error(f"'{item}' is not LABEL=FILE")
            runs.append((label, load(path)))
    except OSError as e:
        print(f"rounds: {e}", file=sys.stderr)
        return 2
    for path, rows in peers:
        if not rows:
            print(f"rounds: {path}: no {args.peer} rows", file=sys.stderr)
            return 2
    for label, ours in runs:
        parts = []
        for path, rows in peers:
            keys = [k for k in ours if k in rows]
            if not keys:
                continue
            ratio = {k: rows[k] / ours[k] for k in keys}
            worst = min(keys, key=ratio.get)
            parts.append(f"{geomean(list(ratio.values())):.3f} (worst {ratio[worst]:.3f} at "
                         f"{shape_text(worst)})")
        print(f"{label:<12} vs {args.peer}: " + "; ".join(parts or ["no shape in common"]))
    common = set.intersection(*(set(ours) for _, ours in runs))
    spread = {k: max(o[k] for _, o in runs) / min(o[k] for _, o in runs) for k in common}
    if common:
        print(f"\nlargest spread across the {len(runs)} runs ({len(common)} shapes, "
              f"geomean {geomean(list(spread.values())):.3f}):")
        print("  " + " ".join(f"{label:>9}" for label, _ in runs))
        for k in sorted(common, key=spread.get, reverse=True)[:args.top]:
            print("  " + " ".join(f"{o[k]:9.2f}" for _, o in runs) +
                  f"  {spread[k]:.3f}  {shape_text(k)}")
    modes = {}
    for label, ours in runs:
        modes.setdefault(mode_of(label), []).append((label, ours))
    for mode, members in modes.items():
        for i in range(len(members) - 1):
            (la, a), (lb, b) = members[i], members[i + 1]
            keys = [k for k in a if k in b]
            if not keys:
                continue
            r = {k: max(a[k], b[k]) / min(a[k], b[k]) for k in keys}
            top = max(keys, key=r.get)
            print(f"{la} against {lb}: geomean spread {geomean(list(r.values())):.3f}, largest "
                  f"{r[top]:.3f} at {shape_text(top)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
