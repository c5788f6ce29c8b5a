#!/usr/bin/env python3
"""How well sm80_gemm's rank() orders what a tune measured (issue 14's cost model), offline.

    bench/sm80_rank_check.py W8A8 DB [--space FILE] [--arch sm_90] [--min-m 2048]

For every INT8 per-row key of the tuning database DB at M >= --min-m: the configs the tune
timed (each at its best median) against their positions in `W8A8 compile --space FILE --rank`
on the nominal device of --arch. Prints per key the measured winner's position in the model's
order, how close the best of the model's first 8 / 32 measured configs comes to the winner,
and the Spearman correlation of model position and measured time over the measured configs.
A tune times only the model's first candidates, so this judges the order among those, not
what the model left out. Exit 0; 2 on bad arguments."""
import argparse
import json
import math
import sqlite3
import subprocess
import sys


# parameters added after some databases were written: their absence means 0
LATE = ("prefetch", "epilogue")


def canonical(config):
    return ",".join(item for item in config.split(",")
                    if not (item.split("=")[0] in LATE and item.endswith("=0")))


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        for pos, i in enumerate(order):
            r[i] = float(pos)
        return r
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return cov / (sx * sy) if sx and sy else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("w8a8")
    ap.add_argument("db")
    ap.add_argument("--space", default="sm80_gemm")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--min-m", type=int, default=2048)
    a = ap.parse_args()
    con = sqlite3.connect(a.db)
    rows = con.execute(
        "SELECT m_bucket, n, k, config, MIN(median_us) FROM measurement_rows"
        " WHERE family = 'sm80_gemm' AND status = 'ok' AND verified = 1 AND a_type = 'int8'"
        " AND a_scale = 'row' AND m_bucket >= ? GROUP BY m_bucket, n, k, config",
        (a.min_m,)).fetchall()
    keys = {}
    for m, n, k, config, us in rows:
        keys.setdefault((m, n, k), {})[canonical(config)] = us
    if not keys:
        print("no INT8 per-row sm80_gemm rows at M >= %d in %s" % (a.min_m, a.db))
        return 0
    print("%-18s %5s %9s %10s %10s %9s" % ("key", "timed", "winner at", "best of 8", "best of 32",
                                           "spearman"))
    ratios8, ratios32, rhos = [], [], []
    for (m, n, k), measured in sorted(keys.items()):
        out = subprocess.run([a.w8a8, "compile", "--arch", a.arch, "--space", a.space, "--rank",
                              "%d,%d,%d" % (m, n, k), "--dtype", "int8", "--scale", "row",
                              "--json"], capture_output=True, text=True, check=True).stdout
        position = {canonical(r["config"]): r["position"] for r in map(json.loads, out.splitlines())}
        timed = sorted((position[c], us) for c, us in measured.items() if c in position)
        if not timed:
            print("%-18s none of the timed configs is in the space's list" % ("%dx%dx%d" % (m, n, k)))
            continue
        best = min(us for _, us in timed)
        winner_at = next(p for p, us in timed if us == best)
        of8 = best / min(us for _, us in timed[:8])
        of32 = best / min(us for _, us in timed[:32])
        rho = spearman([p for p, _ in timed], [us for _, us in timed])
        ratios8.append(of8)
        ratios32.append(of32)
        rhos.append(rho)
        print("%-18s %5d %9d %10.3f %10.3f %9.2f" % ("%dx%dx%d" % (m, n, k), len(timed),
                                                     winner_at, of8, of32, rho))
    if not rhos:
        return 0
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    print("geomean: best of the model's first 8 at %.3f of the winner's speed, of 32 at %.3f;"
          " mean spearman %.2f (%d keys)" % (gm(ratios8), gm(ratios32), sum(rhos) / len(rhos),
                                              len(rhos)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
