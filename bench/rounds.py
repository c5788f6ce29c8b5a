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
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rows  # noqa: E402


def load(path, provider):
    """{(m, n, k): µs} of one provider's timed rows in a JSON-lines file."""
    timed, _ = rows.load(path)
    return {shape: float(r["us"]) for shape, r in rows.by_provider(timed).get(provider, {}).items()
            if float(r["us"]) > 0}


def mode_of(label):
    """L1 -> L, G-pdl1-r3 -> G-pdl1: the label less its trailing run number."""
    return re.sub(r"(-r)?\d+$", "", label)


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
            runs.append((label, load(path, rows.OURS)))
    except rows.RowsError as e:
        print(f"rounds: {e}", file=sys.stderr)
        return 2
    for path, peer in peers:
        if not peer:
            print(f"rounds: {path}: no {args.peer} rows", file=sys.stderr)
            return 2
    for label, ours in runs:
        parts = []
        for path, peer in peers:
            keys = [k for k in ours if k in peer]
            if not keys:
                continue
            ratio = {k: peer[k] / ours[k] for k in keys}
            worst = min(keys, key=ratio.get)
            parts.append(f"{rows.geomean(ratio.values()):.3f} (worst {ratio[worst]:.3f} at "
                         f"{rows.shape_text(worst)})")
        print(f"{label:<12} vs {args.peer}: " + "; ".join(parts or ["no shape in common"]))
    common = set.intersection(*(set(ours) for _, ours in runs))
    spread = {k: max(o[k] for _, o in runs) / min(o[k] for _, o in runs) for k in common}
    if common:
        print(f"\nlargest spread across the {len(runs)} runs ({len(common)} shapes, "
              f"geomean {rows.geomean(spread.values()):.3f}):")
        print("  " + " ".join(f"{label:>9}" for label, _ in runs))
        for k in sorted(common, key=spread.get, reverse=True)[:args.top]:
            print("  " + " ".join(f"{o[k]:9.2f}" for _, o in runs) +
                  f"  {spread[k]:.3f}  {rows.shape_text(k)}")
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
            print(f"{la} against {lb}: geomean spread {rows.geomean(r.values()):.3f}, largest "
                  f"{r[top]:.3f} at {rows.shape_text(top)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
