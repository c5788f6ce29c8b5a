#!/usr/bin/env python3
"""The rows a sweep (bench/sweep_rows.sh) ships: keys whose tuned winner (B) differs from the
shipped config (A; configs compared with the values their strings leave out filled in,
bench/sweep_prepare.py's parse_config) and ran >= 1.02x A in both of the A B B A pairs (A1/B1
and A2/B2). Writes DIR/select-<shipped file>.sql with
NEW.sql's rows of those keys, split by the shipped file that held each key; then
`bench/merge_rows.py cache/<file> DIR/select-<file>` puts them in.

    bench/select_rows.py AB.jsonl NEW.sql SHIPPED.jsonl DIR [DEVICE [FILE]]

AB.jsonl: `w8a8 bench --json` lines with build (A/B) and seq (1..4); NEW.sql: `w8a8 cache
export --winners` of the sweep's database; SHIPPED.jsonl: `w8a8 cache list --json` over the
shipped caches; DEVICE: a part of the device name whose rows (NEW's and the shipped ones)
count (default H200); FILE: the shipped file (a name in cache/) that takes the keys no shipped
row holds (A then ran the nearest bucket's row; without FILE they are left out, said so on
stderr). Session 24
measured the criterion's noise: of 78 keys whose config came back unchanged, 2 passed it
(bench/results-2026-11-26-s24, C4).

A key is held back (said so on stderr) when A ran its shipped row itself (the same device and
config) more than A_DRIFT times slower than the time that row was tuned at: B's win is then
likely A's bad run or a regression of A's kernel, not B's merit. Session 35 took back four
shipped rows, three of them with A at 1.12-1.25x its tuned time (a call's outlier, and
ping-pong kernels slowed by a template change; bench/results-2026-11-28-s35), where A's faster
run was otherwise 0.92-1.07x the tuned time. Exit 0; 1 when a tuned row disagrees with what B ran."""
import collections
import json
import os
import sys

from merge_rows import PREFIX, row_reader
from sweep_prepare import parse_config

A_DRIFT = 1.10

if len(sys.argv) not in (5, 6, 7):
    sys.exit(__doc__)
ab, new, shipped, out = sys.argv[1:5]
device = sys.argv[5] if len(sys.argv) > 5 else "H200"
fresh_file = sys.argv[6] if len(sys.argv) > 6 else None
runs, cfg = collections.defaultdict(dict), {}
for line in open(ab):
    r = json.loads(line)
    # the A operand's type keys too: INT8 and FP8 rows of one (scale, shape) are two keys
    key = (r.get("dtype", "e4m3"), r["scale"], r["accum"], r["m"], r["n"], r["k"])
    runs[key][r["seq"]] = r["us"]
    cfg[(r["build"], key)] = r["config"]
win = {k for k, s in runs.items()
       if len(s) == 4 and parse_config(cfg[("A", k)]) != parse_config(cfg[("B", k)])
       and s[1] / s[2] >= 1.02 and s[4] / s[3] >= 1.02}
src, tuned = {}, {}
for line in open(shipped):
    r = json.loads(line)
    if device in r["device"]:
        key = (r["a_type"], r["a_scale"], r["accum"], r["m_bucket"], r["n"], r["k"])
        src[key] = os.path.basename(r["source"])
        tuned[key] = (r["median_us"], r["config"])
for key in sorted(win):
    us, config = tuned.get(key, (0, None))
    a = min(runs[key][1], runs[key][4])
    if us > 0 and parse_config(config) == parse_config(cfg[("A", key)]) and a > A_DRIFT * us:
        print("select_rows: %s: A ran %.2f us, its row was tuned at %.2f us (x%.2f): held back"
              % (key, a, us, a / us), file=sys.stderr)
        win.discard(key)
lines = [l for l in open(new).read().splitlines() if l.startswith(PREFIX)]
fields = row_reader(lines[0], "a_type, a_scale, accum, m_bucket, n, k, config, device_name",
                    "select_rows")
sel = collections.defaultdict(list)
for line in lines:
    row = fields(line)
    key = row[:6]
    if key not in win or device not in row[7]:
        continue
    if row[6] != cfg[("B", key)]:
        sys.exit("select_rows: %s: the tune's row is %s, B ran %s" % (key, row[6], cfg[("B", key)]))
    if key not in src and not fresh_file:
        print("select_rows: no shipped %s row holds %s: left out" % (device, key), file=sys.stderr)
        continue
    sel[src.get(key, fresh_file)].append(line)
os.makedirs(out, exist_ok=True)
for name, rows in sorted(sel.items()):
    with open(os.path.join(out, "select-" + name), "w") as f:
        f.write("\n".join(rows) + "\n")
    print(name, len(rows))
print(sum(len(rows) for rows in sel.values()), "keys")
