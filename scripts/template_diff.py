#!/usr/bin/env python3
"""What a template change does to the shipped winners' kernels, without a GPU: compiles every
cached winner (`w8a8 compile --arch ARCH --winners --json`, the defines the dispatcher builds
them with) once with the templates in OLD and once with NEW (default: the ones embedded in
the w8a8 binary), and lists each kernel whose registers, spills, stack frame or outcome
changed. A kernel is worse when it no longer compiles, is newly rejected (the tuner refuses
spilling kernels), or stores, loads or stacks more bytes than before.

usage: template_diff.py OLD [NEW] [--arch ARCH ...] [--cache FILE ...] [--w8a8 BIN] [--json]
  OLD, NEW   template folders (as W8A8_TEMPLATE_DIR takes them: the repository's templates/,
             or an old commit's: `git archive REV templates | tar -x -C DIR`)
  --arch     default sm_90a and sm_90 (sm80_decode's winners build for plain sm_90 on Hopper)
  --cache    read-only cache layers (.db or .sql; default cache/*.sql), no user database
  --w8a8     default build/static/w8a8
  --json     one JSON object a changed kernel, then one for the summary
Exit 0 when no kernel got worse, 1 when one did, 2 on bad arguments or when w8a8 cannot run.
(scripts/sass_check.py reads the SASS itself, but needs cuobjdump.)"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ("registers", "spill_stores", "spill_loads", "stack_bytes")


class RunError(Exception):
    """w8a8 could not run, or its compile gave nothing to compare (exit 2)."""


def winners_env(caches, kernel_dir):
    """The environment of `w8a8 compile --winners` over read-only cache layers: the caches as
    W8A8_CACHE_PATH, a user database that does not exist, cubins into kernel_dir (also
    scripts/sass_check.py's)."""
    return dict(os.environ, W8A8_KERNEL_DIR=kernel_dir,
                W8A8_CACHE_PATH=":".join(os.path.abspath(c) for c in caches),
                W8A8_CACHE_DB=os.path.join(kernel_dir, "no-user-database", "tuning.db"))


def compile_winners(w8a8, arch, templates, caches, store):
    """{(template, arch, config): the compile's JSON object} for one template folder."""
    env = winners_env(caches, os.path.join(store, "kernels"))
    env.pop("W8A8_TEMPLATE_DIR", None)
    if templates:
        env["W8A8_TEMPLATE_DIR"] = os.path.abspath(templates)
    try:
        r = subprocess.run([w8a8, "compile", "--arch", arch, "--winners", "--json"], env=env,
                           capture_output=True, text=True)
    except OSError as exc:
        raise RunError(f"cannot run {w8a8}: {exc.strerror}")
    kernels = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            k = json.loads(line)
            kernels[(k["template"], k.get("arch", arch), k["config"])] = k
    if r.returncode not in (0, 1) or (not kernels and "nothing to compile" not in r.stderr):
        sys.stderr.write(r.stderr)
        raise RunError(f"{w8a8} compile --arch {arch} --winners exited {r.returncode}")
    return kernels


def worse(a, b):
    if a.get("status") == "ok" and b.get("status") != "ok":
        return True
    if b.get("rejected") and not a.get("rejected"):
        return True
    return any(b.get(f, 0) > a.get(f, 0) for f in FIELDS[1:])


def better(a, b):
    if a.get("status") != "ok" and b.get("status") == "ok":
        return True
    if a.get("rejected") and not b.get("rejected"):
        return True
    return any(b.get(f, 0) < a.get(f, 0) for f in FIELDS[1:])  # (asked after worse())


def describe(a, b):
    parts = [f"{f} {a.get(f, 0)} -> {b.get(f, 0)}" for f in FIELDS if a.get(f, 0) != b.get(f, 0)]
    for f in ("status", "rejected"):
        if a.get(f) != b.get(f):
            parts.append(f"{f} {a.get(f)} -> {b.get(f)}")
    return ", ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new", nargs="?")
    ap.add_argument("--arch", action="append")
    ap.add_argument("--cache", action="append")
    ap.add_argument("--w8a8", default=os.path.join(ROOT, "build", "static", "w8a8"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    for d in [args.old] + ([args.new] if args.new else []):
        if not os.path.isdir(d):
            print(f"template_diff: {d} is not a folder", file=sys.stderr)
            return 2
    caches = args.cache or sorted(glob.glob(os.path.join(ROOT, "cache", "*.sql")))
    missing = [c for c in caches if not os.path.isfile(c)]
    if missing or not caches:
        print(f"template_diff: no such cache: {', '.join(missing) or 'cache/*.sql'}",
              file=sys.stderr)
        return 2
    counts = {"kernels": 0, "worse": 0, "better": 0, "registers_only": 0, "unmatched": 0}
    with tempfile.TemporaryDirectory(prefix="w8a8-template-diff-") as store:
        for arch in args.arch or ["sm_90a", "sm_90"]:
            old = compile_winners(args.w8a8, arch, args.old, caches, store)
            new = compile_winners(args.w8a8, arch, args.new, caches, store)
            for key in sorted(old.keys() | new.keys()):
                counts["kernels"] += 1
                if key not in old or key not in new:
                    counts["unmatched"] += 1
                    continue
                a, b = old[key], new[key]
                what = describe(a, b)
                if not what:
                    continue
                verdict = ("worse" if worse(a, b) else "better" if better(a, b)
                           else "registers_only")
                counts[verdict] += 1
                if args.json:
                    print(json.dumps({"verdict": verdict, "template": key[0], "arch": key[1],
                                      "config": key[2], "old": {f: a.get(f) for f in FIELDS},
                                      "new": {f: b.get(f) for f in FIELDS},
                                      "change": what}))
                else:
                    print(f"{verdict:<14} {key[0]} {key[1]} {key[2]}: {what}")
    if args.json:
        print(json.dumps({"summary": counts}))
    else:
        print(f"{counts['kernels']} kernels: {counts['worse']} worse, {counts['better']} "
              f"better, {counts['registers_only']} with other registers only"
              + (f", {counts['unmatched']} in one side only" if counts["unmatched"] else ""))
    return 1 if counts["worse"] else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RunError as exc:
        print(f"template_diff: {exc}", file=sys.stderr)
        sys.exit(2)
