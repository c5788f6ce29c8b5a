#!/usr/bin/env python3
"""Lists tuning-cache rows whose config lacks parameters of its family's current space: rows
tuned before those parameters existed, where a retune may find more (session 33: the H200's
INT8 rows had no `epilogue=2` and no `specialize`; a seeded retune ran 1.06-1.17x faster over
64 keys and shipped 46 rows).

    w8a8 cache --json list | bench/old_rows.py --lacks specialize[,epilogue...]
        [--family sm90_gemm] [--device H200] [--without swap=1] [--groups DIR]

Reads `w8a8 cache --json list` lines (stdin or files). A row is listed when its family is
--family and its config lacks any of --lacks' parameters. --device keeps rows whose device
name holds that text; --without drops rows whose config holds that name=value (e.g. swap=1: the swap space never had the parameter). Prints one line a
row (device, dtype and scales, M N K, the parameters it lacks, its file), then a count per
device and granularity; with --groups DIR, instead, one `bench/sweep_rows.sh` groups file a
device and granularity, DIR/groups-<device>-<granularity>.txt, whose line `- M,N,K ...` asks
for a seeded plain retune of those keys (run each with its SCALE, and DTYPE=int8 for int8), and
the files' names.
Exit status: 0; 2 on bad arguments or an unreadable file."""
import argparse
import collections
import json
import os
import sys


def granularity(row):
    if row.get("a_type") == "int8":
        return "int8"
    a, b = row.get("a_scale", "tensor"), row.get("b_scale", "tensor")
    return a if a == b else f"{a},{b}"


def read_lines(path):
    with open(path) as f:
        return f.readlines()


def config_of(text):
    return dict(kv.split("=", 1) for kv in text.split(",") if "=" in kv)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="`w8a8 cache --json list` output (default: stdin)")
    ap.add_argument("--lacks", required=True, help="parameter names, comma-separated")
    ap.add_argument("--family", default="sm90_gemm")
    ap.add_argument("--device", default="", help="a part of the device name")
    ap.add_argument("--without", action="append", default=[], help="NAME=VALUE (repeatable)")
    ap.add_argument("--groups", metavar="DIR", help="write sweep_rows.sh groups files there")
    args = ap.parse_args()
    lacks = [p for p in args.lacks.split(",") if p]
    without = []
    for w in args.without:
        if "=" not in w:
            ap.error(f"--without {w}: not NAME=VALUE")
        without.append(tuple(w.split("=", 1)))
    rows = []
    try:
        lines = [line for f in args.files for line in read_lines(f)] if args.files else sys.stdin
    except OSError as e:
        print(f"old_rows: {e}", file=sys.stderr)
        return 2
    for line in lines:
        line = line.strip()
        if not line.startswith("{"):
            continue
        row = json.loads(line)
        if row.get("family") != args.family or args.device not in row.get("device", ""):
            continue
        config = config_of(row.get("config", ""))
        if any(config.get(name) == value for name, value in without):
            continue
        missing = [p for p in lacks if p not in config]
        if missing:
            rows.append((row, missing))
    rows.sort(key=lambda rm: (rm[0].get("device", ""), granularity(rm[0]), rm[0]["n"],
                              rm[0]["k"], rm[0]["m_bucket"]))
    if args.groups:
        shapes = collections.defaultdict(list)
        for row, _ in rows:
            shapes[(row.get("device", ""), granularity(row))].append(
                f"{row['m_bucket']},{row['n']},{row['k']}")
        try:
            os.makedirs(args.groups, exist_ok=True)
            for (device, gran), keys in sorted(shapes.items()):
                name = "-".join(device.split()) + "-" + gran.replace(",", "-")
                path = os.path.join(args.groups, f"groups-{name}.txt")
                with open(path, "w") as f:
                    f.write("- " + " ".join(keys) + "\n")
                print(f"{path}: {len(keys)} keys")
        except OSError as e:
            print(f"old_rows: {e}", file=sys.stderr)
            return 2
        return 0
    counts = collections.Counter()
    for row, missing in rows:
        gran = granularity(row)
        counts[(row.get("device", ""), gran)] += 1
        source = row.get("source", "").rsplit("/", 1)[-1]
        print(f"{row.get('device', '')}  {row.get('a_type')} {gran:10} "
              f"{row['m_bucket']:6} {row['n']:6} {row['k']:6}  lacks {','.join(missing):24} "
              f"{source}")
    for (device, gran), n in sorted(counts.items()):
        print(f"{n} rows: {device} {gran}")
    print(f"{len(rows)} rows lack {','.join(lacks)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
