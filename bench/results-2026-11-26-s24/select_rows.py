#!/usr/bin/env python3
"""The rows C4 and C5 ship: keys whose tuned winner (B) differs from the shipped config (A, a
config string compared with wave and stagger defaulted) and ran >= 1.02x A in both of the
A B B A runs (A1/B1 and A2/B2). Writes DIR/select-<shipped file>.sql with NEW.sql's rows of
those keys, split by the shipped file that held each key.

    select_rows.py AB.jsonl NEW.sql SHIPPED.jsonl DIR [DEVICE]
AB.jsonl: `w8a8 bench --json` lines with build (A/B) and seq (1..4); NEW.sql: `w8a8 cache
export --winners` of the tune; SHIPPED.jsonl: `w8a8 cache list --json` over the shipped
caches; DEVICE: a part of the device name whose rows count (default H200)."""
import collections
import json
import os
import re
import sqlite3
import sys

ab, new, shipped, out = sys.argv[1:5]
device = sys.argv[5] if len(sys.argv) > 5 else "H200"
runs, cfg = collections.defaultdict(dict), {}
for line in open(ab):
    r = json.loads(line)
    key = (r["scale"], r["accum"], r["m"], r["n"], r["k"])
    runs[key][r["seq"]] = r["us"]
    cfg[(r["build"], key)] = r["config"]


def norm(c):
    d = dict(kv.split("=") for kv in c.split(","))
    d.setdefault("wave", "0")
    d.setdefault("stagger", "0")
    return tuple(sorted(d.items()))


win = {k for k, s in runs.items() if len(s) == 4 and norm(cfg[("A", k)]) != norm(cfg[("B", k)])
       and s[1] / s[2] >= 1.02 and s[4] / s[3] >= 1.02}
src = {}
for line in open(shipped):
    r = json.loads(line)
    if device in r["device"]:
        key = (r["a_scale"], r["accum"], r["m_bucket"], r["n"], r["k"])
        src[key] = os.path.basename(r["source"])
lines = [l for l in open(new).read().splitlines() if l.startswith("INSERT")]
cols = re.search(r"measurement_rows \((.*?)\) VALUES", lines[0]).group(1)
db = sqlite3.connect(":memory:")
db.execute("create table measurement_rows (%s)" % cols)
sel = collections.defaultdict(list)
for line in lines:
    db.execute("delete from measurement_rows")
    db.execute(line)
    row = db.execute("select a_scale, accum, m_bucket, n, k, config "
                     "from measurement_rows").fetchone()
    if row[:5] in win:
        if row[5] != cfg[("B", row[:5])]:
            sys.exit("select_rows: %s: the tune's row is %s, B ran %s" %
                     (row[:5], row[5], cfg[("B", row[:5])]))
        sel[src[row[:5]]].append(line)
for name, rows in sorted(sel.items()):
    with open(os.path.join(out, "select-" + name), "w") as f:
        f.write("\n".join(rows) + "\n")
    print(name, len(rows))
print(len(win), "keys")
