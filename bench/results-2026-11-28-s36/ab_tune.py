#!/usr/bin/env python3
"""old/new A/B from `w8a8 tune --json` runs of the same narrowed space: per key, each config's
best (min) time under old and new templates, the geomean of old/new and the 4 fastest new."""
import collections, json, math, sys

d = collections.defaultdict(dict)
for path in sys.argv[1:]:
    side = "old" if "/old-" in path or path.startswith("old-") else "new"
    for line in open(path):
        x = json.loads(line)
        if x.get("type") != "measurement" or not x.get("us") or x["us"] <= 0:
            continue
        d[(x["m"], x["n"], x["k"], x["config"])].setdefault(side, []).append(x["us"])
per = collections.defaultdict(list)
for k, v in sorted(d.items()):
    if "old" in v and "new" in v:
        o, n = min(v["old"]), min(v["new"])
        per[k[:3]].append((o / n, o, n, k[3]))
for s, l in per.items():
    g = math.exp(sum(math.log(x[0]) for x in l) / len(l))
    print(s, "n=%d geomean old/new %.3f best old %.1f new %.1f (%.3f)" % (
        len(l), g, min(x[1] for x in l), min(x[2] for x in l),
        min(x[1] for x in l) / min(x[2] for x in l)))
    for x in sorted(l, key=lambda x: x[2])[:4]:
        c = dict(kv.split("=") for kv in x[3].split(","))
        print("   %.3f %.1f %.1f" % x[:3], "%sx%s st%s c%s pp%s ov%s sg%s wv%s tl%s" % (
            c["block_m"], c["block_n"], c["stages"], c["consumers"], c["pingpong"],
            c["overlap"], c["stagger"], c["wave"], c.get("tail")))
