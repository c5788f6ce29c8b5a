#!/usr/bin/env python3
"""Compiles every sm90_gemm winner of tuning caches for sm_90a (no GPU needed) with
`w8a8 compile --arch sm_90a --winners`, which builds each winner with the defines the
dispatcher compiles it with (the family's own: N and K for specialize=1, PROMOTE=1 for
promoted per-tensor / per-row FP8, A_ROWS at M <= 96 without swap), each kernel once, and
checks its SASS with cuobjdump: tensor-core instructions present (QGMMA for FP8, IGMMA for
INT8), no HMMA fallback, no local memory (LDL/STL), no spills, stack frame or
wgmma-serialization note reported by ptxas, and no wgmma serialized without a note (a
WARPGROUP.DEPBAR after every QGMMA/IGMMA: ptxas does this silently in some loops, seen with
two accumulator sets in flight across a back edge).

usage: sass_check.py CACHE... [--w8a8 build/default/w8a8] [--cuobjdump PATH]
CACHE: tuning databases (.db) or exported / shipped .sql files (cache/h200-*.sql), read as
read-only layers (W8A8_CACHE_PATH); no user database is opened. (cuobjdump: the toolkit's, or
the one Triton's wheel carries in triton/backends/nvidia/bin.)
"""
import argparse, glob, json, os, re, subprocess, sys, tempfile

from template_diff import winners_env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cache", nargs="+")
    ap.add_argument("--w8a8", default="build/default/w8a8")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    args = ap.parse_args()
    missing = [c for c in args.cache if not os.path.isfile(c)]
    if missing:
        print(f"sass_check: no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    store = tempfile.mkdtemp(prefix="w8a8-sass-")
    env = winners_env(args.cache, store)
    r = subprocess.run([args.w8a8, "compile", "--arch", "sm_90a", "--winners", "--json"],
                       env=env, capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    kernels = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    if not kernels:
        print("sass_check: no sm90_gemm winner compiled", file=sys.stderr)
        return 2
    failed = 0
    for info in kernels:
        if (info["status"] != "ok" or info.get("rejected") or info.get("spill_stores")
                or info.get("spill_loads") or info.get("stack_bytes")):
            print("FAIL compile/spill/stack:", info["config"], info["status"],
                  info.get("reject_reason", info.get("error", "")),
                  f"stack {info.get('stack_bytes')} B")
            failed += 1
    cubins = sorted(glob.glob(os.path.join(store, "*.cubin")))
    for cubin in cubins:
        sass = subprocess.run([args.cuobjdump, "-sass", cubin], capture_output=True, text=True).stdout
        mma = len(re.findall(r"\b[QI]GMMA\b", sass))
        bad = len(re.findall(r"\b(HMMA|LDL|STL)\b", sass))
        waits = len(re.findall(r"WARPGROUP\.DEPBAR", sass))
        # a K block issues 4 (or 8) wgmmas under one wait; a wait each means serialized
        serialized = mma > 4 and waits >= mma
        if mma == 0 or bad or serialized:
            print(f"FAIL sass: {cubin}: {mma} QGMMA/IGMMA, {waits} waits, {bad} HMMA/LDL/STL")
            failed += 1
    print(f"{len(kernels)} kernels of the winners, {len(cubins)} cubins: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
