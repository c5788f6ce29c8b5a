#!/usr/bin/env python3
"""D6's table: per key, the shipped row (A) and D4's six finalists (1..6, in the tune's
order) as `w8a8 bench --graph` timed them in two rounds; each finalist's best-of-rounds
speed over A's, the tune's first pick (1) and the grid's own best; torch.block beside.
    table.py RUNS.jsonl PEERS.jsonl"""
import json, math, sys

runs = [json.loads(l) for l in open(sys.argv[1])]
peer = {}
for l in open(sys.argv[2]):
    r = json.loads(l)
    if r.get("provider") == "torch.block" and r.get("us"):
        peer[(r["m"], r["n"], r["k"])] = r["us"]
t = {}
for r in runs:
    if r["build"] == "warm" or "us" not in r:
        continue
    t.setdefault((r["m"], r["n"], r["k"]), {}).setdefault(r["build"], {})[r["round"]] = r["us"]
names = ["A", "1", "2", "3", "4", "5", "6"]
g1, gb, gr = [], [], []
print("     M      N      K   A us  " + "  ".join("%6s" % n for n in names[1:]) +
      "   best  both>=1.02  tuned1/A  best/A  A/torch")
for key in sorted(t):
    v = t[key]
    best = {n: min(v[n].values()) for n in names if n in v}
    a = best["A"]
    top = min(names[1:], key=lambda n: best[n])
    both = all(v["A"][rd] / v[top][rd] >= 1.02 for rd in (1, 2))
    g1.append(a / best["1"]); gb.append(a / best[top]); gr.append(peer.get(key, a) / a)
    print("%6d %6d %6d %6.1f  " % (key + (a,)) +
          "  ".join("%6.3f" % (a / best[n]) for n in names[1:]) +
          "   %4s  %10s  %8.3f  %6.3f  %7.3f" % (top, "yes" if both else "no", a / best["1"],
                                                 a / best[top], peer.get(key, float("nan")) / a))
geo = lambda x: math.exp(sum(map(math.log, x)) / len(x))
print("geomean over %d keys: tune's pick / A %.3f, grid's best / A %.3f, A / torch.block %.3f"
      % (len(g1), geo(g1), geo(gb), geo(gr)))
