#!/usr/bin/env python3
"""Scores a tuning space's rank() offline, on measurements already taken: no GPU.

Reads the JSON lines of `w8a8 tune --json` runs (a tune resumed across calls: give every
file), or tuning databases (their verified "ok" rows, any pass), keeps each key's "ok"
measurements of the space's family (the quick pass of a log), and asks
`w8a8 compile --space SPACE --rank M,N,K --max-configs 256 --json` for the order the space
gives that key now. For k in 4 … 256: on how many keys does the space's top k hold a measured
config within --within of the fastest measured one, and how far from it is the best of the
top k (geometric mean over keys; a key whose top k holds no measured config counts 1.5); then
where the fastest measured config of each key stands in the space's order, and the mean
Spearman correlation of order and measured time over the measured configs of the first 256.
A parameter the measured build did not have counts as 0 there (how this project adds them).
"unmeasured" counts top-k configs the runs never timed: they count as misses, so a space
whose order drifts far from the one the runs followed scores low for lack of data, not of
speed; keep it small for the table to mean something.

    bench/rank_offline.py --w8a8 build/default/w8a8 --space scripts/sm90_gemm.lua \\
        tune-1.jsonl.gz tune-2.jsonl.gz [--min-m 16] [--within 0.02] [--arch sm_90a]
    bench/rank_offline.py --w8a8 build/ci/w8a8 --space sm80_gemm --arch sm_90 --dtype int8 \\
        --scale row --min-m 2048 tuning.db

Compare a change to a space with the space before it on the same files (`git show
HEAD:scripts/sm90_gemm.lua > /tmp/old.lua`). Keys are e4m3/bf16 per-tensor unless the runs
say otherwise (--dtype, --scale, --out, --accum are passed on to w8a8 compile).
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows import RowsError, geomean, quick_pass_rows  # noqa: E402

TOPS = (4, 8, 16, 32, 64, 128, 256)


def is_database(path):
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError as e:
        raise RowsError("cannot read %s: %s" % (path, e.strerror or e)) from None


def database_rows(path, family, filters):
    """family's verified "ok" rows of a tuning database as dicts like a log's (m: the bucket);
    filters: {column: value} of measurement_rows (a_type, a_scale, out_type, accum)."""
    where = "".join(" AND %s = ?" % column for column in filters)
    try:
        con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        rows = con.execute("SELECT m_bucket, n, k, config, median_us FROM measurement_rows"
                           " WHERE family = ? AND status = 'ok' AND verified = 1" + where,
                           [family] + list(filters.values())).fetchall()
        con.close()
    except sqlite3.Error as e:
        raise RowsError("cannot read %s: %s" % (path, e)) from None
    return [{"family": family, "m": m, "n": n, "k": k, "config": c, "us": us}
            for m, n, k, c, us in rows]


def base_config(config, variants):
    """config without the space's variants (launch arguments the tuner tries on its finalists,
    outside the cross product the order ranks): a variant's time counts for its base config."""
    return ",".join(item for item in config.split(",") if item.split("=")[0] not in variants)


def load(paths, family, min_m, filters, variants=()):
    """{(m, n, k): {config: fastest us}} of family's "ok" measurements (a log's quick pass),
    variants folded into their base configs."""
    keys = defaultdict(dict)
    logs = [p for p in paths if not is_database(p)]
    rows = list(quick_pass_rows(logs)) if logs else []
    for p in paths:
        if p not in logs:
            rows += database_rows(p, family, filters)
    for row in rows:
        if row.get("family") != family or row.get("m", 0) < min_m:
            continue
        key, us = (row["m"], row["n"], row["k"]), row["us"]
        config = base_config(row["config"], variants)
        keys[key][config] = min(keys[key].get(config, us), us)
    return keys


def as_measured(config, names):
    """config without the parameters the measured build lacked (names: those it had), when
    they are 0; one it lacked at another value matches nothing it measured."""
    return ",".join(item for item in config.split(",")
                    if item.split("=")[0] in names or not item.endswith("=0"))


def spearman(xs, ys):
    """Rank correlation of two equally long lists without ties that matter here."""
    def ranks(v):
        r = [0.0] * len(v)
        for pos, i in enumerate(sorted(range(len(v)), key=lambda i: v[i])):
            r[i] = float(pos)
        return r
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    norm = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / norm if norm else 0.0


def ranked(w8a8, space, arch, keys, passthrough):
    """{key: [config, …]} in the space's order, the first 256."""
    order = defaultdict(list)
    for first in range(0, len(keys), 64):  # w8a8 compile takes up to 256 --rank shapes
        cmd = [w8a8, "compile", "--arch", arch, "--space", space, "--max-configs",
               str(TOPS[-1]), "--json"] + passthrough
        for m, n, k in keys[first:first + 64]:
            cmd += ["--rank", "%d,%d,%d" % (m, n, k)]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            raise RowsError("%s failed (%d): %s" % (" ".join(cmd[:6]), run.returncode,
                                                    run.stderr.strip()[-500:]))
        for line in run.stdout.splitlines():
            row = json.loads(line)
            order[(row["m"], row["n"], row["k"])].append(row["config"])
    return order


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", help="w8a8 tune --json output (.jsonl or .jsonl.gz), "
                    "or tuning databases")
    ap.add_argument("--w8a8", default="w8a8", help="the w8a8 command (default: on PATH)")
    ap.add_argument("--space", required=True, help="space name or .lua file to score")
    ap.add_argument("--family", help="its template (default: the file's stem)")
    ap.add_argument("--arch", default="sm_90a", help="nominal device (default sm_90a)")
    ap.add_argument("--min-m", type=int, default=16, help="keys with M >= this (default 16)")
    ap.add_argument("--within", type=float, default=0.02, help="default 0.02 (2 %%)")
    ap.add_argument("--dtype")
    ap.add_argument("--scale")
    ap.add_argument("--out")
    ap.add_argument("--accum", choices=("fast", "promoted"))
    ap.add_argument("--variants", default="trigger",
                    help="the space's variant parameters, comma-separated, folded into their "
                         "base configs (default trigger, sm90_gemm's; '' for none)")
    a = ap.parse_args()
    family = a.family or os.path.splitext(os.path.basename(a.space))[0]
    passthrough = []
    filters = {}
    for opt, column in (("dtype", "a_type"), ("scale", "a_scale"), ("out", "out_type"),
                        ("accum", "accum")):
        if getattr(a, opt):
            passthrough += ["--" + opt, getattr(a, opt)]
            # a database's keys of that kind (--scale A,B: A's scale)
            filters[column] = getattr(a, opt).split(",")[0]
    try:
        keys = load(a.logs, family, a.min_m, filters,
                    tuple(v for v in a.variants.split(",") if v))
        if not keys:
            raise RowsError("no ok quick-pass measurement of %s at M >= %d in %s"
                            % (family, a.min_m, ", ".join(a.logs)))
        order = ranked(a.w8a8, a.space, a.arch, sorted(keys), passthrough)
    except (RowsError, OSError, ValueError) as e:
        print("rank_offline: %s" % e, file=sys.stderr)
        return 1
    hits = dict.fromkeys(TOPS, 0)
    unmeasured = dict.fromkeys(TOPS, 0)
    loss = {t: [] for t in TOPS}
    positions, rhos = [], []
    for key, measured in keys.items():
        best = min(measured.values())
        names = {item.split("=")[0] for c in measured for item in c.split(",")}
        top = [as_measured(c, names) for c in order.get(key, [])]
        placed = [(i, measured[c]) for i, c in enumerate(top) if c in measured]
        if placed:
            positions += [i for i, us in placed if us == best][:1]
            rhos.append(spearman([i for i, _ in placed], [us for _, us in placed]))
        for t in TOPS:
            found = [measured[c] for c in top[:t] if c in measured]
            unmeasured[t] += sum(1 for c in top[:t] if c not in measured)
            hits[t] += bool(found) and min(found) <= best * (1 + a.within)
            loss[t].append(min(found) / best if found else 1.5)
    print("%s: %d keys of %s, M >= %d, %d measured configs" % (
        a.space, len(keys), family, a.min_m, sum(len(v) for v in keys.values())))
    print("| top k | keys within %g %% | best of top k / fastest (geomean) | unmeasured in top k |"
          % (100 * a.within))
    print("|---|---|---|---|")
    for t in TOPS:
        print("| %d | %d of %d | %.3f | %d |" % (t, hits[t], len(keys), geomean(loss[t]),
                                                 unmeasured[t]))
    if positions:
        print("fastest measured config at positions %d-%d of the space's order (%d keys); "
              "mean spearman %.2f (order against measured time, %d keys)"
              % (min(positions), max(positions), len(positions), sum(rhos) / len(rhos),
                 len(rhos)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
