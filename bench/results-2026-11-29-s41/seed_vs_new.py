#!/usr/bin/env python3
"""Per key of a `w8a8 tune --seed --json` log: the shipped winner's final-pass time (the
measurement marked cache_seed) against the key's winner, both timed in the same final pass
(CUDA-graph replays, rotated rounds).

    python3 bench/results-2026-11-29-s41/seed_vs_new.py TUNE.jsonl[.gz]...
Prints M N K scale, seed µs, winner µs, speed (seed / winner), the winner's config."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # bench/
from rows import json_lines  # noqa: E402


def main():
    for path in sys.argv[1:]:
        seed, win = {}, {}
        for r in json_lines(path):
            key = (r.get("m"), r.get("n"), r.get("k"), r.get("scale"))
            if r.get("type") == "measurement" and r.get("cache_seed") and r.get("pass") == 2 \
                    and r.get("us", 0) > 0:
                seed[key] = min(seed.get(key, 1e30), r["us"])
            if r.get("type") == "winner":
                win[key] = r
        for key, w in sorted(win.items()):
            s = seed.get(key)
            print("%5d %6d %6d %-6s seed %8.2f  new %8.2f  speed %s  %s" % (
                key[0], key[1], key[2], key[3], s or 0, w["us"],
                "%.3f" % (s / w["us"]) if s else "  -  ", w["config"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
