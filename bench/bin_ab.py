#!/usr/bin/env python3
"""Per shape, the new build's speed over the old one's from bench/bin_ab.sh's output (the
faster of each build's two runs), the geometric mean, and with a peers.py file and a provider
each build's ratio to that peer.

    bench/bin_ab.py AB.jsonl [PEERS.jsonl PROVIDER]"""
import json
import math
import sys


def main(argv):
    if len(argv) not in (2, 4):
        print(__doc__, file=sys.stderr)
        return 2
    best = {}
    for line in open(argv[1]):
        r = json.loads(line)
        if r.get("us", 0) <= 0:
            continue
        key = (r["m"], r["n"], r["k"])
        slot = best.setdefault(key, {})
        slot[r["build"]] = min(slot.get(r["build"], 1e30), r["us"])
    peer = {}
    if len(argv) == 4:
        for line in open(argv[2]):
            r = json.loads(line)
            if r.get("provider") == argv[3] and r.get("us", 0) > 0:
                peer[(r["m"], r["n"], r["k"])] = r["us"]
    logs = []
    below = {"A": [], "B": []}
    for key in sorted(best, key=lambda k: (k[1], k[2], k[0])):
        v = best[key]
        if "A" not in v or "B" not in v:
            continue
        speed = v["A"] / v["B"]
        logs.append(math.log(speed))
        extra = ""
        if key in peer:
            ra, rb = peer[key] / v["A"], peer[key] / v["B"]
            extra = "  vs %s: A %.3f B %.3f" % (argv[3], ra, rb)
            for b, r in (("A", ra), ("B", rb)):
                if r < 1:
                    below[b].append((r, key))
        print("%5d %6d %6d  A %8.2f us  B %8.2f us  B/A speed %.3f%s"
              % (key + (v["A"], v["B"], speed, extra)))
    if logs:
        print("geomean B/A speed %.4f over %d shapes (min %.3f, max %.3f)"
              % (math.exp(sum(logs) / len(logs)), len(logs), math.exp(min(logs)),
                 math.exp(max(logs))))
    if peer:
        for b in ("A", "B"):
            worst = min(below[b]) if below[b] else None
            print("%s below %s: %d shapes%s" % (b, argv[3], len(below[b]),
                  ", worst %.3f at %s" % worst if worst else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
