#!/usr/bin/env python3
"""Joins `w8a8 bench --json` lines (one file per granularity) with peers.py lines on (M, N, K)
and prints, per shape, ours / peer in TFLOP/s and ours / torch.bf16 in achieved GB/s (each
provider's own bytes), with the geometric mean and the worst shape per column.

usage: decode_table.py PEERS.jsonl LABEL=OURS.jsonl:PEER [LABEL=OURS.jsonl:PEER ...]
  e.g. decode_table.py peers-decode.jsonl tensor=ours-tensor.jsonl:torch.tensor.fast
Files may be gzip'ed (.jsonl.gz). Exit status 2 on bad arguments or an unreadable file."""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows import RowsError, geomean, json_lines  # noqa: E402


def load(path):
    rows = {}
    for r in json_lines(path):
        if "us" in r:
            rows.setdefault(r["provider"], {})[(r["m"], r["n"], r["k"])] = r
    return rows


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        peers = load(argv[0])
        bf16 = peers.get("torch.bf16", {})
        columns = []
        for spec in argv[1:]:
            try:
                label, rest = spec.split("=", 1)
                path, peer = rest.rsplit(":", 1)
            except ValueError:
                print(f"decode_table: '{spec}' is not LABEL=OURS.jsonl:PEER", file=sys.stderr)
                return 2
            columns.append((label, load(path).get("w8a8jit", {}), peers.get(peer, {}), peer))
    except RowsError as e:
        print(f"decode_table: {e}", file=sys.stderr)
        return 2
    shapes = sorted({k for _, ours, _, _ in columns for k in ours}, key=lambda s: (s[1], s[2], s[0]))
    head = f"{'M':>5} {'N':>6} {'K':>6}" + "".join(f" {l + '/peer':>12} {l + ' GB/s÷bf16':>16}" for l, *_ in columns)
    print(head)
    ratios = {l: ([], []) for l, *_ in columns}
    for s in shapes:
        line = f"{s[0]:>5} {s[1]:>6} {s[2]:>6}"
        for label, ours, peer, _ in columns:
            o = ours.get(s)
            p = peer.get(s)
            b = bf16.get(s)
            r = o["tflops"] / p["tflops"] if o and p else None
            g = o["gbps"] / b["gbps"] if o and b else None
            if r: ratios[label][0].append((r, s))
            if g: ratios[label][1].append((g, s))
            line += f" {r:12.3f}" if r else f" {'-':>12}"
            line += f" {g:16.3f}" if g else f" {'-':>16}"
        print(line)
    for label, _, _, peer in columns:
        tf, gb = ratios[label]
        if tf:
            print(f"{label} vs {peer}: geomean {geomean([r for r, _ in tf]):.3f}, worst {min(tf)[0]:.3f} at {min(tf)[1]}")
        if gb:
            print(f"{label} GB/s vs torch.bf16 GB/s: geomean {geomean([r for r, _ in gb]):.3f}, worst {min(gb)[0]:.3f} at {min(gb)[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
