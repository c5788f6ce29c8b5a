#!/usr/bin/env python3
"""Session 42, D1 and D3: the shipped H200 sm90_gemm rows of chosen keys, and the same rows
with some config values replaced, as .sql files for `w8a8 cache import`; plus the bench
arguments that time those keys.

    python3 bench/results-2026-11-29-s42/overlap_rows.py [--keys S:A:M:N:K,...] OUTDIR VARIANT...
    (from the root; --keys: scale, accumulation, M bucket, N, K of the keys instead of KEYS)

A VARIANT is NAME:key=value,key=value (each item replaces the config's, or is appended). Writes OUTDIR/base.sql, OUTDIR/NAME.sql (a
variant only where the key's K blocks are a multiple of its overlap's group: no padded blocks)
and OUTDIR/<set>.args, one line of `--shape M,N,K ...` plus the scale flags per set (block;
promoted per-tensor; promoted per-row).
"""
import glob
import os
import re
import sys

sys.path.insert(0, "bench")
from merge_rows import PREFIX, row_reader  # noqa: E402

# (scale, accum, M bucket, N, K): the block-scaled and promoted rows at M >= 128 whose
# shipped config already overlaps (overlap >= 1) and whose K is 16 or more K blocks
KEYS = [
    ("block", "fast", 256, 8192, 8192), ("block", "fast", 512, 4096, 14336),
    ("block", "fast", 512, 8192, 8192), ("block", "fast", 256, 8192, 28672),
    ("block", "fast", 512, 8192, 28672), ("block", "fast", 256, 4096, 14336),
    ("block", "fast", 512, 28672, 4096), ("block", "fast", 128, 8192, 28672),
    ("block", "fast", 512, 10240, 8192), ("block", "fast", 256, 7168, 16384),
    ("block", "fast", 1024, 7168, 16384), ("block", "fast", 2048, 7168, 16384),
    ("block", "fast", 512, 7168, 2048), ("block", "fast", 1024, 7168, 2048),
    ("block", "fast", 2048, 7168, 2048),
    ("tensor", "promoted", 512, 8192, 8192), ("row", "promoted", 512, 8192, 8192),
]
SETS = {"block": ("block", "fast"), "ptensor": ("tensor", "promoted"),
        "prow": ("row", "promoted"), "tensor": ("tensor", "fast"), "row": ("row", "fast")}


def main():
    global KEYS
    args = sys.argv[1:]
    if args and args[0] == "--keys":  # SCALE:ACCUM:M:N:K,... instead of KEYS (D6)
        KEYS = [(a, b, int(m), int(n), int(k)) for a, b, m, n, k in
                (spec.split(":") for spec in args[1].split(","))]
        args = args[2:]
    out = args[0]
    variants = []
    for v in args[1:]:
        name, _, items = v.partition(":")
        variants.append((name, dict(i.split("=", 1) for i in items.split(","))))
    os.makedirs(out, exist_ok=True)
    found = {}
    for path in sorted(glob.glob("cache/h200-*.sql")):
        lines = [l for l in open(path) if l.startswith(PREFIX)]
        if not lines:
            continue
        fields = row_reader(lines[0], "a_scale, accum, m_bucket, n, k, family, config, out_type, "
                            "bias_type, a_type", "overlap_rows")
        for line in lines:
            sa, accum, mb, n, k, fam, cfg, ot, bt, at = fields(line)
            key = (sa, accum, mb, n, k)
            if (key in KEYS and key not in found and fam == "sm90_gemm" and ot == "bf16"
                    and bt == "none" and at == "e4m3"):
                found[key] = (line, cfg)
    missing = [k for k in KEYS if k not in found]
    if missing:
        raise SystemExit("overlap_rows: no shipped row for %s" % missing)
    with open(os.path.join(out, "base.sql"), "w") as f:
        f.writelines(found[k][0] for k in KEYS)
    for name, items in variants:
        with open(os.path.join(out, name + ".sql"), "w") as f:
            for k in KEYS:
                line, cfg = found[k]
                if ((k[4] + 127) // 128) % (1 << int(items.get("overlap", 0))):
                    continue
                new = cfg
                for key, value in items.items():
                    new, count = re.subn(r"\b%s=\w+" % key, "%s=%s" % (key, value), new)
                    if not count:
                        new += ",%s=%s" % (key, value)
                f.write(line.replace("'%s'" % cfg, "'%s'" % new, 1))
    for name, (sa, accum) in SETS.items():
        shapes = " ".join("--shape %d,%d,%d" % k[2:] for k in KEYS if k[:2] == (sa, accum))
        with open(os.path.join(out, name + ".args"), "w") as f:
            f.write("%s --scale %s,%s --accum %s\n" % (shapes, sa, sa, accum))
    for k in KEYS:
        print(*k, found[k][1])


main()
