#!/usr/bin/env python3
"""Ship a device call's tuned rows where they ran >= 1.02x the shipped row in both rounds of an
A B B A comparison: each such key's winner in the call's tuned database, merged by
bench/merge_rows.py's ship() into the cache/h200-*.sql file that holds the key.

    bench/ship_tuned.py DIR SCALE ACCUM [--w8a8 CMD] [--dry-run]   (from the repository root)

DIR holds tune/table.txt (bench/ab_rounds.py's table of shipped
against tuned rows: a line per shape "M N K ship <us> us tuned <us> us <round 1> <round 2>
<config>") and tune/tuned.sql.gz (`w8a8 cache export` of the tuned database). SCALE (tensor,
row, block) and ACCUM (fast, promoted) select the tuned rows that are shipped: the table's
keys of that granularity on an H200. CMD is the w8a8 command (default build/ci/w8a8): the rows
go in only when it runs each of them (`w8a8 compile --winners --check` over them: a config its
family refuses, such as one a build with another parameter spelled, would be skipped by the
dispatcher). Exit 0; 1 when a faster key has no tuned winner, a row's config is refused or
no shipped file holds its key; 2 on bad
arguments, a missing command or an unreadable table. (Sessions 44 and 45 timed their retunes
this way; a retune is otherwise bench/sweep_rows.sh, shipped by bench/ship_rows.sh.)"""
import argparse
import glob
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from merge_rows import PREFIX, row_reader, ship  # noqa: E402

MIN_SPEED = 1.02
DEVICE = "NVIDIA H200"


def faster_keys(table):
    """(M, N, K) of the table's shapes whose tuned row ran >= MIN_SPEED in both rounds."""
    keys = set()
    for line in open(table):
        p = line.split()
        if len(p) >= 11 and p[0].isdigit() and p[3] == "ship":
            if min(float(p[9]), float(p[10])) >= MIN_SPEED:
                keys.add((int(p[0]), int(p[1]), int(p[2])))
    return keys


def tuned_winners(sql_gz, w8a8):
    """The winners of the tuned database exported as INSERT lines (imported into a scratch
    database, exported again with --winners)."""
    with tempfile.TemporaryDirectory() as tmp:
        sql = os.path.join(tmp, "tuned.sql")
        with gzip.open(sql_gz, "rt") as f, open(sql, "w") as out:
            out.write(f.read())
        env = dict(os.environ, W8A8_CACHE_DB=os.path.join(tmp, "t.db"), W8A8_CACHE_PATH=tmp)
        subprocess.run([w8a8, "cache", "import", sql], env=env, check=True)
        winners = os.path.join(tmp, "winners.sql")
        subprocess.run([w8a8, "cache", "export", winners, "--winners"], env=env, check=True)
        return [l for l in open(winners) if l.startswith(PREFIX)]


def refused(lines, w8a8):
    """The output of `w8a8 compile --winners --check` over the rows (a scratch layer of them),
    for both the sm_90a family and the sm_90 ones, when it refuses any; else None."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "rows.sql"), "w") as f:
            f.write("".join(lines))
        env = dict(os.environ, W8A8_CACHE_DB=os.path.join(tmp, "none", "t.db"),
                   W8A8_CACHE_PATH=tmp)
        said = []
        for arch in ("sm_90a", "sm_90"):
            r = subprocess.run([w8a8, "compile", "--arch", arch, "--winners", "--check"],
                               env=env, capture_output=True, text=True)
            if r.returncode != 0 and "nothing to check" not in r.stderr:
                said.append(r.stdout + r.stderr)
        return "".join(said) or None


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1].strip())
    ap.add_argument("dir")
    ap.add_argument("scale", choices=("tensor", "row", "block"))
    ap.add_argument("accum", choices=("fast", "promoted"))
    ap.add_argument("--w8a8", default="build/ci/w8a8")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    if not shutil.which(a.w8a8):
        print("ship_tuned: no w8a8 command at '%s' (--w8a8)" % a.w8a8, file=sys.stderr)
        return 2
    try:
        keys = faster_keys(os.path.join(a.dir, "tune", "table.txt"))
    except OSError as e:
        print("ship_tuned: %s" % e, file=sys.stderr)
        return 2
    lines = tuned_winners(os.path.join(a.dir, "tune", "tuned.sql.gz"), a.w8a8)
    if not lines:
        raise SystemExit("ship_tuned: the tuned database has no winners")
    fields = row_reader(lines[0], "m_bucket, n, k, a_scale, accum, device_name", "ship_tuned")
    rows = []
    for line in lines:
        mb, n, k, scale, accum, dev = fields(line)
        if (scale, accum, dev) == (a.scale, a.accum, DEVICE) and (mb, n, k) in keys:
            rows.append(line)
            keys.discard((mb, n, k))
    if keys:
        raise SystemExit("ship_tuned: no tuned winner for %s" % sorted(keys))
    bad = refused(rows, a.w8a8)
    if bad:
        raise SystemExit("ship_tuned: %s refuses rows to be shipped:\n%s" % (a.w8a8, bad))
    print("ship_tuned: %d rows" % len(rows))
    ship(rows, glob.glob("cache/h200-*.sql"), "ship_tuned", a.dry_run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
