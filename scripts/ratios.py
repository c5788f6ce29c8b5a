#!/usr/bin/env python3
"""Joins `w8a8 bench --json` lines with ../shared/bench/peers.py lines (same fields) and prints
per-shape ratios of TFLOP/s (ours / peer) and their geometric mean.

usage: ratios.py OURS.jsonl PEERS.jsonl PEER_PROVIDER [--min-m M] [--max-m M]
"""
import json, math, sys


def load(path):
    rows = {}
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if "us" in r:
            rows.setdefault(r["provider"], {})[(r["m"], r["n"], r["k"])] = r
    return rows


def main():
    args = sys.argv[1:]
    lo = int(args[args.index("--min-m") + 1]) if "--min-m" in args else 0
    hi = int(args[args.index("--max-m") + 1]) if "--max-m" in args else 1 << 60
    ours = load(args[0]).get("w8a8jit", {})
    peer = load(args[1]).get(args[2], {})
    ratios = []
    print(f"{'M':>5} {'N':>6} {'K':>6} {'ours TF/s':>10} {args[2] + ' TF/s':>18} {'ratio':>6}")
    for key in sorted(ours, key=lambda x: (x[1], x[2], x[0])):
        if key not in peer or not lo <= key[0] <= hi:
            continue
        r = ours[key]["tflops"] / peer[key]["tflops"] if peer[key]["tflops"] else float("nan")
        ratios.append(r)
        print(f"{key[0]:>5} {key[1]:>6} {key[2]:>6} {ours[key]['tflops']:>10.1f} {peer[key]['tflops']:>18.1f} {r:>6.3f}")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"{len(ratios)} shapes: geometric mean {geo:.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
