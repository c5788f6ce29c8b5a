#!/usr/bin/env python3
"""C4's and C5's spaces: every shipped H200 sm90_gemm row (not swap-AB, wave or split) of one
granularity and accumulation (default block scales, fast; C5: tensor or row, promoted) at M
bucket >= 64, grouped by its config less overlap; per group a copy of scripts/sm90_gemm.lua
narrowed to that config with overlap 0..3 (bench/narrow_space.py). Writes OUT/gNN.lua and
OUT/groups.txt (one line a group: the space file, then its shapes M,N,K with M the bucket).

    w8a8 cache list --json | c4_prepare.py OUT [SCALE ACCUM [DEVICE]]

DEVICE: a part of the rows' device name (default H200; C7: H100)."""
import json
import os
import subprocess
import sys

PARAMS = ["block_m", "block_n", "stages", "consumers", "pingpong", "raster", "group", "cluster",
          "epilogue", "split", "specialize", "overlap", "stagger", "wave"]
DEFAULTS = {"raster": "0", "group": "8", "cluster": "1", "epilogue": "0", "split": "1",
            "specialize": "0", "overlap": "0", "stagger": "0", "wave": "0"}
out = sys.argv[1]
scale, accum = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("block", "fast")
device = sys.argv[4] if len(sys.argv) > 4 else "H200"
groups = {}
for line in sys.stdin:
    r = json.loads(line)
    if (r["a_scale"] != scale or r["b_scale"] != scale or r["accum"] != accum
            or device not in r["device"] or r["family"] != "sm90_gemm"
            or "swap=1" in r["config"] or r["m_bucket"] < 64 or not r.get("winner")):
        continue
    c = dict(DEFAULTS)
    c.update(kv.split("=") for kv in r["config"].split(","))
    if c["split"] != "1":
        continue  # overlap needs split 1
    c["overlap"] = "0/1/2/3"
    if c["wave"] == "1":
        continue  # wave needs overlap 0
    spec = ",".join("%s=%s" % (p, c[p]) for p in PARAMS)
    groups.setdefault(spec, set()).add("%d,%d,%d" % (r["m_bucket"], r["n"], r["k"]))
with open(os.path.join(out, "groups.txt"), "w") as f:
    for i, (spec, shapes) in enumerate(sorted(groups.items())):
        path = os.path.join(out, "g%02d.lua" % i)
        text = subprocess.run([sys.executable, "bench/narrow_space.py",
                               "scripts/sm90_gemm.lua", spec],
                              check=True, capture_output=True, text=True).stdout
        open(path, "w").write(text)
        f.write("%s %s\n" % (path, " ".join(sorted(shapes))))
print(len(groups), "groups,", sum(len(s) for s in groups.values()), "keys", file=sys.stderr)
