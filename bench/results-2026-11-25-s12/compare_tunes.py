#!/usr/bin/env python3
"""Session 12's tables: each tune's 8B grid against torch.tensor.fast timed in the same call
(per shape the faster of our two bench rounds), and call K3's 120 s tune (A) against the
long tune (B) of the same machine, per shape. Run from this folder."""
import json
import math


def load(path):
    return {(r["m"], r["n"], r["k"]): r["us"] for r in map(json.loads, open(path))}


def peers(path):
    return {(r["m"], r["n"], r["k"]): r["us"] for r in map(json.loads, open(path))
            if r.get("provider") == "torch.tensor.fast" and r.get("us")}


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def best(paths):
    rounds = [load(p) for p in paths]
    return {k: min(r[k] for r in rounds) for k in rounds[0]}


RUNS = [("K3 A: 120 s, code at 15edef9", "callK3/ours-A-%d.jsonl", "callK3"),
        ("K3 B: long tune, 1,061 s timed", "callK3/ours-B-%d.jsonl", "callK3"),
        ("K4 A: 120 s, history + share fix", "callK4/ours-A-%d.jsonl", "callK4"),
        ("K5 A: 120 s, + paced compile queue", "callK5/ours-A-%d.jsonl", "callK5")]

print("| tune | M ≥ 512 geomean (worst) | M ≤ 256 geomean (worst) |")
print("|---|---|---|")
for name, pattern, call in RUNS:
    ours = best([pattern % 1, pattern % 2])
    torch = peers(call + "/peers-8b.jsonl")
    cells = []
    for lo, hi in ((512, 1 << 30), (1, 256)):
        r = [(torch[k] / ours[k], k) for k in ours if lo <= k[0] <= hi and k in torch]
        w = min(r)
        cells.append("%.3f× (%.3f at %d×%d×%d)" % (gm([x[0] for x in r]), w[0], *w[1]))
    print("| %s | %s | %s |" % (name, cells[0], cells[1]))

a = best(["callK3/ours-A-1.jsonl", "callK3/ours-A-2.jsonl"])
b = best(["callK3/ours-B-1.jsonl", "callK3/ours-B-2.jsonl"])
print("\nK3, A's speed over B's (B's time / A's time), same call:")
for lo, hi, label in ((1, 1 << 30, "all"), (512, 1 << 30, "M ≥ 512"), (1, 256, "M ≤ 256")):
    r = [b[k] / a[k] for k in a if lo <= k[0] <= hi]
    print("  %-8s geomean %.4f, worst %.3f" % (label, gm(r), min(r)))
print("  worst shapes:", ", ".join("%d×%d×%d %.3f" % (*k, b[k] / a[k])
                                   for k in sorted(a, key=lambda k: b[k] / a[k])[:4]))
