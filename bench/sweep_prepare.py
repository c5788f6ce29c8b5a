#!/usr/bin/env python3
"""The spaces of a sweep of shipped rows (bench/sweep_rows.sh): every winning sm90_gemm row of
one granularity, accumulation and device (not swap-AB) at M bucket >= --min-m, grouped by its
config less the swept parameter; per group a copy of scripts/sm90_gemm.lua narrowed to that
config with the parameter's values (bench/narrow_space.py). Values the config cannot take
(overlap beside wave or split, for instance) are left to the space's valid(), which rejects
them in the tune; the row's own value is always among the candidates when listed.

    w8a8 cache list --json | bench/sweep_prepare.py OUT [--scale block] [--accum fast]
        [--device H200] [--param overlap=0/1/2/3] [--min-m 64]

Writes OUT/gNN.lua and OUT/groups.txt (one line a group: the space file, then its shapes
M,N,K with M the bucket). Session 24 swept overlap this way (bench/results-2026-11-26-s24,
C4, C5, C7). Exit 0; 2 on bad arguments or input."""
import argparse
import json
import os
import subprocess
import sys

PARAMS = ["block_m", "block_n", "stages", "consumers", "pingpong", "raster", "group", "cluster",
          "epilogue", "split", "specialize", "overlap", "stagger", "wave", "tail"]
# what a config string leaves out (older rows) means these values: src/sm90_gemm.c's sm90_params
DEFAULTS = {"raster": "0", "group": "8", "cluster": "1", "epilogue": "0", "split": "1",
            "specialize": "0", "overlap": "0", "stagger": "0", "wave": "0", "swap": "0",
            "evict": "0", "tail": "1"}


def parse_config(text):
    """A config string as a dict, with the values it leaves out filled in (DEFAULTS)."""
    config = dict(DEFAULTS)
    config.update(kv.split("=", 1) for kv in text.split(","))
    return config


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--scale", default="block")
    ap.add_argument("--accum", default="fast")
    ap.add_argument("--device", default="H200", help="a part of the rows' device name")
    ap.add_argument("--param", default="overlap=0/1/2/3", help="NAME=V/V/...")
    ap.add_argument("--min-m", type=int, default=64)
    a = ap.parse_args()
    name, _, values = a.param.partition("=")
    if name not in PARAMS or not values:
        ap.error("--param: NAME=V/V/... with NAME one of " + ", ".join(PARAMS))
    here = os.path.dirname(os.path.abspath(__file__))
    space = os.path.join(here, "..", "scripts", "sm90_gemm.lua")
    groups = {}
    for line in sys.stdin:
        try:
            r = json.loads(line)
        except ValueError:
            sys.exit("sweep_prepare: not a `w8a8 cache list --json` line: " + line[:80])
        if (r["a_scale"] != a.scale or r["b_scale"] != a.scale or r["accum"] != a.accum
                or a.device not in r["device"] or r["family"] != "sm90_gemm"
                or "swap=1" in r["config"] or r["m_bucket"] < a.min_m or not r.get("winner")):
            continue
        c = parse_config(r["config"])
        c[name] = values
        spec = ",".join("%s=%s" % (p, c[p]) for p in PARAMS)
        groups.setdefault(spec, set()).add("%d,%d,%d" % (r["m_bucket"], r["n"], r["k"]))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "groups.txt"), "w") as f:
        for i, (spec, shapes) in enumerate(sorted(groups.items())):
            path = os.path.join(a.out, "g%02d.lua" % i)
            text = subprocess.run([sys.executable, os.path.join(here, "narrow_space.py"), space,
                                   spec], check=True, capture_output=True, text=True).stdout
            with open(path, "w") as g:
                g.write(text)
            f.write("%s %s\n" % (path, " ".join(sorted(shapes))))
    print(len(groups), "groups,", sum(len(s) for s in groups.values()), "keys", file=sys.stderr)


if __name__ == "__main__":
    main()
