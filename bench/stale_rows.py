#!/usr/bin/env python3
"""Finds tuning-cache rows whose kernel now runs slower than when it was tuned.

    bench/stale_rows.py --w8a8 BIN --on ARCH:NAME:SMS:BYTES [--over 1.08] OURS.jsonl ...

Reads `w8a8 bench --json` lines (ours: provider w8a8jit) and, for each shape the dispatcher
answered from a cache row (match "exact"), asks `w8a8 cache --json explain` for that row on
the device named by --on (as `cache explain --on` takes it; the environment's W8A8_CACHE_PATH
and W8A8_CACHE_DB say which caches). Where the row still names the config the bench ran, it
compares the time measured now with the row's tuned median. A row runs slower than tuned when
the code under its config changed after the tune (session 19: sm80_decode configs that took
another path, rows tuned before a family existed) or when the GPU ran hot; rerun the shapes to
tell the two apart, and retune the keys that stay slow.

Prints every compared row slower than --over times its tuned median, the slowest first, then
a count. Exit status: 0; 2 on bad arguments or an unreadable file or binary."""
import argparse
import json
import subprocess
import sys


def explain(w8a8, device, row):
    scale = row.get("scale", "tensor")
    args = [w8a8, "cache", "--json", "explain", "%d,%d,%d" % (row["m"], row["n"], row["k"]),
            "--on", device, "--dtype", row.get("dtype", "e4m3"),
            "--scale", scale if "," in scale else scale + "," + scale]
    if row.get("out"):
        args += ["--out", row["out"]]
    if row.get("accum"):
        args += ["--accum", row["accum"]]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        return None
    try:
        return json.loads(done.stdout)
    except ValueError:
        return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--w8a8", required=True, help="the w8a8 binary")
    ap.add_argument("--on", required=True, help="ARCH:NAME:SMS:BYTES, as cache explain --on")
    ap.add_argument("--over", type=float, default=1.08, help="flag rows this much slower")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    rows = []
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    line = line.strip()
                    if line.startswith("{"):
                        r = json.loads(line)
                        if r.get("provider") == "w8a8jit" and r.get("match") == "exact" and "us" in r:
                            rows.append(r)
        except (OSError, ValueError) as e:
            print("stale_rows: %s: %s" % (path, e), file=sys.stderr)
            return 2
    compared, slow = 0, []
    for r in rows:
        try:
            e = explain(args.w8a8, args.on, r)
        except OSError as err:
            print("stale_rows: %s: %s" % (args.w8a8, err.strerror), file=sys.stderr)
            return 2
        if not e or e.get("config") != r.get("config") or not e.get("median_us"):
            continue  # no row now, or a row naming another config: nothing to compare
        compared += 1
        ratio = r["us"] / e["median_us"]
        if ratio > args.over:
            slow.append((ratio, r, e))
    slow.sort(key=lambda t: -t[0])
    for ratio, r, e in slow:
        print("%5d %6d %6d %-6s %-12s now %9.2f us  tuned %9.2f us  x%.2f  %s %s  [%s]"
              % (r["m"], r["n"], r["k"], r.get("dtype", ""), r.get("scale", ""), r["us"],
                 e["median_us"], ratio, e.get("family", ""), e.get("config", ""),
                 e.get("source", "")))
    print("stale_rows: %d of %d rows compared run over %.2fx their tuned time"
          % (len(slow), compared, args.over))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
