#!/usr/bin/env python3
"""Pairs of a tuned key's finalists and their trigger=1 variants, from `w8a8 tune --json`.

    python3 bench/results-2026-11-28-s39/variants.py d10/tune-settle-tensor.jsonl.gz ...

Per key: base / variant of the final pass (graph replays, three rounds), each pair sorted, the
best plain and best variant final time, and whether the tuner's winner carries trigger=1; then
the same ratios from the quick pass (stream launches; the variants are timed after every other
candidate, so those favour whichever ran cooler).
"""
import collections
import gzip
import json
import sys

VARIANT = ",trigger=1"


def keys_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    rows = [json.loads(line) for line in opener(path, "rt")]
    keys = collections.defaultdict(dict)
    for j in rows:
        if j.get("type") == "measurement" and j["status"] == "ok":
            keys[(j["m"], j["n"], j["k"])].setdefault(j["config"], {})[j["pass"]] = j["us"]
    winners = {(j["m"], j["n"], j["k"]): j["config"] for j in rows if j.get("type") == "winner"}
    return keys, winners


def pairs(configs, which):
    out = []
    for config, times in configs.items():
        base = configs.get(config[:-len(VARIANT)], {}) if config.endswith(VARIANT) else {}
        if which in times and which in base:
            out.append(base[which] / times[which])
    return sorted(out)


def main():
    for path in sys.argv[1:]:
        keys, winners = keys_of(path)
        for key, configs in keys.items():
            final = [(t[2], c) for c, t in configs.items() if 2 in t]
            plain = min(t for t, c in final if VARIANT not in c)
            variant = min((t for t, c in final if VARIANT in c), default=0.0)
            print("%s %s final %s | best plain %.2f, variant %.2f%s" % (
                path.split("/")[-1], "x".join(map(str, key)),
                " ".join("%.3f" % r for r in pairs(configs, 2)), plain, variant,
                ", winner trigger=1" if VARIANT in winners.get(key, "") else ""))
            print("    quick %s" % " ".join("%.3f" % r for r in pairs(configs, 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
