#!/usr/bin/env python3
"""Per key, the best swap-AB config with overlap > 0 against the best with overlap 0, from
`w8a8 tune --json` outputs (D3, D4): ov_table.py TUNE.jsonl..."""
import json, math, sys
best = {}
for path in sys.argv[1:]:
    for line in open(path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("type") != "measurement" or r.get("status") != "ok" or "swap=1" not in r.get("config", ""):
            continue
        ov = "overlap=0" not in r["config"] and "overlap=" in r["config"]
        key = (r["m"], r["n"], r["k"])
        b = best.setdefault(key, {})
        if ov not in b or r["us"] < b[ov]["us"]:
            b[ov] = r
ratios = []
for key in sorted(best, key=lambda k: (k[1], k[2], k[0])):
    b = best[key]
    if False in b and True in b:
        x = b[False]["us"] / b[True]["us"]
        ratios.append(x)
        print("%5d %6d %6d  overlap 0 %8.2f us  overlap>0 %8.2f us  %.3f  %s" % (
            key + (b[False]["us"], b[True]["us"], x, b[True]["config"])))
if ratios:
    g = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print("best overlap>0 speed over best overlap 0: geomean %.3f over %d keys, wins (>1 %%) %d, range %.3f..%.3f"
          % (g, len(ratios), sum(x > 1.01 for x in ratios), min(ratios), max(ratios)))
