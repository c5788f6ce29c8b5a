#!/usr/bin/env python3
"""D6's inputs: for each DeepSeek-V3 block key at M >= 1024 of D4's tune, the tune's six
fastest finalists (the configs its CUDA-graph pass timed with the most samples), written as
six SQL files: file i holds, for every key, its i-th config as the key's row (the winner row
of d4/winners.sql with the config and time replaced). `w8a8 bench --graph` over a database
made from file i then runs each key's i-th finalist, in the sustained state the closing
grids time (20-call replays, shape after shape), where the tune's final pass ran each
config for a few samples between other work.
    make_dbs.py D4_TUNE.jsonl.gz D4_WINNERS.sql OUTDIR"""
import gzip, json, re, sys

tune, winners, out = sys.argv[1:4]
rows = {}
for line in open(winners):
    if not line.startswith("INSERT"):
        continue
    vals = line.split(" VALUES (", 1)[1]
    f = [v.strip() for v in vals.split(", ")]
    n, k, m = int(f[16]), int(f[17]), int(f[18])
    rows[(m, n, k)] = line
by = {}
for line in gzip.open(tune, "rt"):
    r = json.loads(line)
    if r.get("type") != "measurement" or r["status"] != "ok" or r["m"] < 1024:
        continue
    by.setdefault((r["m"], r["n"], r["k"]), []).append(r)
keys = sorted(k for k in by if k in rows and (k[2] >= 7168 or k[1] >= 24576 or k[0] >= 4096))
files = [[] for _ in range(6)]
for key in keys:
    ms = by[key]
    most = max(r["samples"] for r in ms)
    fin = sorted((r for r in ms if r["samples"] == most), key=lambda r: r["us"])
    seen, picks = set(), []
    for r in fin:
        if r["config"] not in seen:
            seen.add(r["config"]); picks.append(r)
    while len(picks) < 6:
        picks.append(picks[-1])
    for i, r in enumerate(picks[:6]):
        line = rows[key]
        line = re.sub(r"'sm90_gemm', '[^']*', [0-9.e+-]+,", "'%s', '%s', %.4f," % (r["family"], r["config"], r["us"]), line, count=1)
        files[i].append(line)
    print(*key, len(fin), " ".join("%.1f" % r["us"] for r in picks[:6]))
for i, lines in enumerate(files):
    with open("%s/rank%d.sql" % (out, i + 1), "w") as f:
        f.write("-- D6: the %d-th finalist of each key (make_dbs.py)\n" % (i + 1))
        f.writelines(lines)
