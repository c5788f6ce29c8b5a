#!/usr/bin/env python3
"""Warp-stall samples of one kernel by SASS opcode and by instruction, from Nsight Compute's
source page exported as CSV (`ncu --section SourceCounters --section WarpStateStats --page
source --print-source sass --csv ... > FILE.csv`; plain or gzipped).

    bench/ncu_stalls.py FILE.csv[.gz] [--top N] [--context N]

Prints the share of all samples per opcode (its first dotted word pair, e.g. FFMA, HGMMA.64x128x32)
with the main stall reasons, then the N instructions with most samples, each with the
N instructions before it (--context) so that a wait is seen beside what it waits for."""
import argparse, collections, csv, gzip, io, sys

REASONS = ["wait", "long_sb", "short_sb", "math", "mio", "barrier", "membar", "sleep",
           "not_selected", "selected", "dispatch", "branch_resolving", "lg", "no_inst", "misc"]


def rows(path):
    raw = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    lines = raw.read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"Address","Source"'))
    return list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return 0.0


def opcode(src):
    parts = src.split()
    if not parts:
        return "?"
    op = parts[1] if parts[0].startswith("@") and len(parts) > 1 else parts[0]
    return ".".join(op.split(".")[:2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--context", type=int, default=0)
    a = ap.parse_args()
    rs = rows(a.csv)
    total = sum(num(r["Warp Stall Sampling (All Samples)"]) for r in rs) or 1.0
    by = collections.defaultdict(lambda: collections.Counter())
    for r in rs:
        c = by[opcode(r["Source"])]
        c["all"] += num(r["Warp Stall Sampling (All Samples)"])
        for reason in REASONS:
            c[reason] += num(r.get("stall_" + reason))
    print("%d samples; %% of all samples by opcode" % total)
    print("%-28s %6s " % ("opcode", "all") + " ".join("%8s" % x[:8] for x in REASONS[:8]))
    for op, c in sorted(by.items(), key=lambda kv: -kv[1]["all"])[:a.top]:
        print("%-28s %6.1f " % (op[:28], 100 * c["all"] / total) +
              " ".join("%8.1f" % (100 * c[x] / total) for x in REASONS[:8]))
    print("\ninstructions with most samples (%):")
    order = sorted(range(len(rs)), key=lambda i: -num(rs[i]["Warp Stall Sampling (All Samples)"]))
    for i in order[:a.top]:
        r = rs[i]
        reasons = sorted(((num(r.get("stall_" + x)), x) for x in REASONS), reverse=True)[:3]
        for j in range(max(0, i - a.context), i):
            print("          %s" % rs[j]["Source"].strip())
        print("%6.2f  %-60s %s" % (100 * num(r["Warp Stall Sampling (All Samples)"]) / total,
                                   r["Source"].strip()[:60],
                                   " ".join("%s %.2f" % (x, 100 * v / total)
                                            for v, x in reasons if v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
