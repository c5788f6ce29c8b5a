#!/usr/bin/env python3
"""Two variants timed in rounds A B B A by `w8a8 bench --json` (files DIR/<label>-<set>-r<round>.jsonl):
per shape the speed of B over A (A's µs / B's µs) in each round, and per set the geometric
mean of each round and the shapes faster in both rounds by more than 1 %.

    bench/ab_rounds.py DIR A B SET...
A shape missing from a file (a failed --verify leaves it untimed) is named. A file missing as
.jsonl is read as .jsonl.gz (the results folders keep large logs gzip'ed). Exit 0; 2 on
missing arguments. (Session 40's `bench/results-2026-11-28-s40/ab_rounds.py` until session
45; the table's columns: M N K, A's µs, B's µs of round 1, B's speed in rounds 1 and 2, A's
config.)"""
import gzip
import json
import math
import os
import sys


def load(path):
    out = {}
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    try:
        for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
            if line.startswith("{"):
                r = json.loads(line)
                if r.get("provider") == "w8a8jit" and float(r.get("us", 0) or 0) > 0:
                    out[(r["m"], r["n"], r["k"])] = r
    except OSError as e:
        print("cannot read %s: %s" % (path, e))
    return out


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    d, a, b, sets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    for s in sets:
        ta = [load("%s/%s-%s-r%d.jsonl" % (d, a, s, r)) for r in (1, 2)]
        tb = [load("%s/%s-%s-r%d.jsonl" % (d, b, s, r)) for r in (1, 2)]
        every = set().union(*ta, *tb)
        shapes = sorted(set(ta[0]) & set(ta[1]) & set(tb[0]) & set(tb[1]))
        for label, t in zip(("%s-r1" % a, "%s-r2" % a, "%s-r1" % b, "%s-r2" % b), ta + tb):
            for sh in sorted(every - set(t)):
                print("MISSING %s %s %s" % (s, label, sh))
        print("== %s: %d shapes (speed = %s us / %s us, rounds 1 and 2)" % (s, len(shapes), a, b))
        logs = [[], []]
        wins = 0
        for sh in shapes:
            sp = [ta[r][sh]["us"] / tb[r][sh]["us"] for r in (0, 1)]
            for r in (0, 1):
                logs[r].append(math.log(sp[r]))
            wins += min(sp) > 1.01
            print("%6d %6d %6d  %s %8.2f us  %s %8.2f us  %.3f %.3f  %s" % (
                sh[0], sh[1], sh[2], a, ta[0][sh]["us"], b, tb[0][sh]["us"], sp[0], sp[1],
                ta[0][sh].get("config", "")))
        if shapes:
            print("   geomean %.3f / %.3f, faster by > 1 %% in both rounds: %d of %d" % (
                math.exp(sum(logs[0]) / len(shapes)), math.exp(sum(logs[1]) / len(shapes)),
                wins, len(shapes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
