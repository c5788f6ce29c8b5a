#!/usr/bin/env python3
"""D1's fit of sm90_gemm's WAVE_FACTOR: per key, the cost model's ratio (shipped config /
wave variant) with no wave factor, against the measured ratio (geometric mean of D1's two
rounds); then the mean and RMS of log(measured · f / model) for a few factors f (the factor
multiplies the wave tile's per-K-block time, so about its whole cost).

    python3 bench/results-2026-11-29-s44/wave_fit.py [w128|w144] [W8A8]   (from the root;
    W8A8 default build/ci/w8a8)
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TILES = {"w128": dict(block_m="256", block_n="128", stages="3", overlap="0", wave="1", tail="1",
                      epilogue="1", stagger="0"),
         "w144": dict(block_m="256", block_n="144", stages="3", overlap="0", wave="1", tail="1",
                      epilogue="2", stagger="0", specialize="0")}


def load(path):
    out = {}
    for line in open(path):
        if line.startswith("{"):
            r = json.loads(line)
            if r.get("provider") == "w8a8jit" and r.get("us"):
                out[(r["m"], r["n"], r["k"])] = r["us"]
    return out


def norm(config):
    d = dict(x.split("=") for x in config.split(","))
    d.pop("trigger", None)
    for name in ("tail", "wave", "stagger", "overlap"):
        d.setdefault(name, "1" if name == "tail" else "0")
    return tuple(sorted(d.items()))


def main():
    variant = sys.argv[1] if len(sys.argv) > 1 else "w128"
    w8a8 = sys.argv[2] if len(sys.argv) > 2 else "build/ci/w8a8"
    d = os.path.join(HERE, "d1", "wave")
    base = [load("%s/base-block-r%d.jsonl" % (d, r)) for r in (1, 2)]
    wave = [load("%s/%s-block-r%d.jsonl" % (d, variant, r)) for r in (1, 2)]
    configs = {}
    for line in open(os.path.join(d, "rows.txt")):
        p = line.split()
        if len(p) == 6:
            configs[(int(p[2]), int(p[3]), int(p[4]))] = p[5]
    text = open("scripts/sm90_gemm.lua").read()
    text, count = re.subn(r"^local WAVE_FACTOR = [0-9.]+", "local WAVE_FACTOR = 1.0", text, flags=re.M)
    if count != 1:
        raise SystemExit("wave_fit: no `local WAVE_FACTOR = ...` line in scripts/sm90_gemm.lua")
    pairs = []
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as space:
        space.write(text)
        space.flush()
        for key, config in sorted(configs.items()):
            if key not in base[0] or key not in wave[0] or key not in base[1] or key not in wave[1]:
                continue
            ranked = subprocess.run([w8a8, "compile", "--arch", "sm_90a", "--space", space.name,
                                     "--rank", "%d,%d,%d" % key, "--scale", "block,block",
                                     "--dtype", "e4m3"], capture_output=True, text=True).stdout
            cost = {}
            for line in ranked.splitlines():
                p = line.split()
                try:
                    cost[norm(p[3])] = float(p[2])
                except (IndexError, ValueError):
                    pass
            d_wave = dict(x.split("=") for x in config.split(","))
            d_wave.update(TILES[variant])
            cb = cost.get(norm(config))
            cw = cost.get(norm(",".join("%s=%s" % kv for kv in d_wave.items())))
            measured = math.sqrt(base[0][key] / wave[0][key] * base[1][key] / wave[1][key])
            model = "%.3f" % (cb / cw) if cb and cw else "    -"
            print("%5d %6d %6d  model %s  measured %.3f" % (*key, model, measured))
            if cb and cw:
                pairs.append((cb / cw, measured))
    for f in (1.0, 1.05, 1.1, 1.15, 1.2):
        err = [math.log(m * f / r) for r, m in pairs]
        print("factor %.2f: mean log error %+.3f, rms %.3f (%d keys)" % (
            f, sum(err) / len(err), math.sqrt(sum(e * e for e in err) / len(err)), len(err)))


main()
