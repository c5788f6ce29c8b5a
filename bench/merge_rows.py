#!/usr/bin/env python3
"""Replace a shipped cache file's rows with a newer tune's, key by key.

    bench/merge_rows.py SHIPPED.sql NEW.sql [--dry-run]

SHIPPED.sql and NEW.sql are `w8a8 cache export --winners` files (INSERT INTO measurement_rows
lines). Every row of SHIPPED whose key — device (arch, name, SMs, memory), dtypes, scale
layouts, zero point, N, K, M bucket, accumulation — has a row in NEW is dropped; NEW's rows
are appended, their configs without the default `tail=1` the tuner spells out (shipped rows
leave it out so that builds older than `tail` still parse them, session 31; every way into a
shipped file goes through here); SHIPPED's header comments and the order of its other rows
stay. Prints how many
rows were kept and replaced, and warns when an .sql file beside SHIPPED that sorts before it
holds some of the new keys (the library reads a folder's files in name order and takes the
first file's row for a key, so those new rows would not be used). (`w8a8 cache merge` unions
databases instead: both rows would stay and the lower median would win, though the two were
timed in different runs.)
Exit status: 0; 2 on a bad argument or an unreadable file; 1 on a line that is no row.
"""
import argparse
import glob
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

PREFIX = "INSERT INTO measurement_rows"
KEY = ("arch, device_name, sm_count, memory_bytes, a_type, b_type, out_type, bias_type, "
       "a_scale, b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp, "
       "n, k, m_bucket, accum")


def row_reader(first_row, columns, tool):
    """A function from one INSERT line of an export to the tuple of `columns` (an SQL select
    list) it holds, parsed by SQLite against first_row's column list. Files exported before
    the accumulation was part of the key name no `accum` column: their rows are 'fast', as
    the library reads them. A line that is no row ends the program (exit 1, naming `tool`)."""
    header = re.match(PREFIX + r" \(([^)]*)\)", first_row)
    names = [c.strip() for c in header.group(1).split(",")]
    if "accum" not in names:
        names.append("accum")
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE measurement_rows (%s)" % ", ".join(
        c + (" DEFAULT 'fast'" if c == "accum" else "") for c in names))

    def fields(line):
        db.execute("DELETE FROM measurement_rows")
        try:
            db.execute(line)
        except sqlite3.Error as e:
            raise SystemExit(f"{tool}: not a measurement row ({e}): {line[:120]}")
        return db.execute(f"SELECT {columns} FROM measurement_rows").fetchone()

    return fields


def ship(rows, shipped, tool, dry_run=False):
    """Merges `rows` (INSERT lines) into the shipped files, each row into the first of
    `shipped` (.sql paths, taken in name order, as the library reads them) whose rows hold its
    key, by this script; returns the files merged into. A row whose key no file holds ends the
    program (exit 1, naming `tool`)."""
    if not rows:
        return []
    key = row_reader(rows[0], KEY, tool)
    holder = {}  # key -> the first shipped file that holds it
    for path in sorted(shipped):
        for line in read_lines(path) or []:
            if line.startswith(PREFIX):
                holder.setdefault(key(line), path)
    by_file = {}
    for line in rows:
        if key(line) not in holder:
            raise SystemExit(f"{tool}: no shipped file holds the key of {line[:100]}")
        by_file.setdefault(holder[key(line)], []).append(line)
    for path, lines in sorted(by_file.items()):
        with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
            f.write("".join(lines))
        try:
            subprocess.run([sys.executable, os.path.abspath(__file__), path, f.name]
                           + (["--dry-run"] if dry_run else []), check=True)
        finally:
            os.unlink(f.name)
    return sorted(by_file)


TAIL_DEFAULT = re.compile(r",tail=1(?=[,'])")


def without_default_tail(row):
    """row (an INSERT line) with its config's default ",tail=1" item dropped."""
    return TAIL_DEFAULT.sub("", row)


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines(keepends=True)
    except OSError as e:
        print(f"merge_rows: cannot read {path}: {e.strerror}", file=sys.stderr)
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 usage="merge_rows.py SHIPPED.sql NEW.sql [--dry-run]")
    ap.add_argument("shipped")
    ap.add_argument("new")
    ap.add_argument("--dry-run", action="store_true", help="count, write nothing")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        return e.code
    shipped, new = read_lines(a.shipped), read_lines(a.new)
    if shipped is None or new is None:
        return 2
    old_rows = [l for l in shipped if l.startswith(PREFIX)]
    new_rows = [without_default_tail(l) for l in new if l.startswith(PREFIX)]
    if not new_rows:
        print(f"merge_rows: {a.new} holds no {PREFIX} lines", file=sys.stderr)
        return 2
    key = row_reader(new_rows[0], KEY, "merge_rows")
    replaced_keys = {key(l) for l in new_rows}
    kept = [l for l in old_rows if key(l) not in replaced_keys]
    print(f"{a.shipped}: {len(old_rows)} rows, {len(kept)} kept, "
          f"{len(old_rows) - len(kept)} replaced, {len(new_rows)} from {a.new}")
    # the library reads a folder's files in name order and, for a key several hold, takes the
    # earlier file's row: new rows whose key an earlier file holds would not be used
    folder, name = os.path.split(os.path.abspath(a.shipped))
    for other in sorted(glob.glob(os.path.join(folder, "*.sql"))):
        if os.path.basename(other) >= name or os.path.samefile(other, a.new):
            continue
        lines = read_lines(other) or []
        held = {key(l) for l in lines if l.startswith(PREFIX)}
        shadowed = sum(1 for k in replaced_keys if k in held)
        if shadowed:
            print(f"merge_rows: warning: {shadowed} of the new rows' keys are also in "
                  f"{os.path.basename(other)}, which is read first: its rows win there")
    if not a.dry_run:
        others = [l for l in shipped if not l.startswith(PREFIX)]
        with open(a.shipped, "w", encoding="utf-8") as f:
            f.write("".join(others) + "".join(kept) + "".join(new_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
