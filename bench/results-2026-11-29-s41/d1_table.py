#!/usr/bin/env python3
"""D1's table: per key and sm80_gemm config, each stagger value's speed over the same config
without it (stagger 0), for each tuner pass (1 quick, 2 final: graph replays, --settle 100),
from a `w8a8 tune --json` log (plain or gzipped).

    python3 bench/results-2026-11-29-s41/d1_table.py bench/results-2026-11-29-s41/d1/tune.jsonl.gz
"""
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # bench/
from rows import json_lines  # noqa: E402

# the parts of the config every row of D1's space shares, left out of the table
COMMON = ("block_m=128,", "block_k=128,stages=3,", "slice_k=1,", "prefetch=1,epilogue=1,",
          "warps_m=2,")


def main():
    times = collections.defaultdict(dict)  # (key, config) -> pass -> stagger -> µs
    for r in json_lines(sys.argv[1]):
        if r.get("type") != "measurement" or r["us"] <= 0:
            continue
        config, stagger = r["config"], 0
        if ",stagger=" in config:
            config, value = config.split(",stagger=")
            stagger = int(value.split(",")[0])
        times[((r["m"], r["n"], r["k"]), config)].setdefault(r["pass"], {})[stagger] = r["us"]
    for (key, config), passes in sorted(times.items()):
        short = config
        for part in COMMON:
            short = short.replace(part, "")
        for p, by in sorted(passes.items()):
            if 0 not in by or len(by) < 2:
                continue
            speeds = " ".join("%d:%.3f" % (s, by[0] / us) for s, us in sorted(by.items()) if s)
            print("pass %d %5d %6d %6d  %-44s %8.1f us  %s" % (p, *key, short, by[0], speeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
