#!/usr/bin/env python3
"""Compiles every sm90_gemm winner of a tuning database for sm_90a with `w8a8 compile` (no
GPU needed), with the defines the dispatcher compiles it with (src/sm90_gemm.c's
sm90_compiled_defines: N and K for specialize=1, PROMOTE=1 for promoted per-tensor / per-row
FP8, A_ROWS at M <= 96 without swap), and checks its SASS with cuobjdump: tensor-core
instructions present (QGMMA for FP8, IGMMA for INT8), no HMMA fallback, no local memory
(LDL/STL), no spills, stack frame or wgmma-serialization note reported by ptxas, and no
wgmma serialized without a note (a WARPGROUP.DEPBAR after every QGMMA/IGMMA: ptxas does this
silently in some loops, seen with two accumulator sets in flight across a back edge).

usage: sass_check.py DB [--w8a8 build/default/w8a8] [--cuobjdump PATH]
(cuobjdump: the toolkit's, or the one Triton's wheel carries in triton/backends/nvidia/bin.
The shipped caches are SQL files: `w8a8 cache --db X.db import cache/h200-decode.sql` first.)
"""
import argparse, glob, json, os, re, sqlite3, subprocess, sys, tempfile

CODES = {"e4m3": 1, "e5m2": 2, "int8": 3, "bf16": 4, "fp16": 5, "fp32": 6, "none": 0}
SCALES = {"tensor": 0, "row": 1, "block": 2}
AZP = {"none": 0, "tensor": 1, "token": 2}


def winners(path):
    # read-only: a missing or foreign file is an error, never created or changed
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return db.execute("select distinct p.a_type, p.b_type, p.out_type, p.bias_type, p.a_scale, "
                      "p.b_scale, p.azp, p.n, p.k, p.m_bucket, p.accum, w.config from winners w "
                      "join problems p on p.id = w.problem_id where w.family = 'sm90_gemm'"
                      ).fetchall()


def compiled_extras(config, a, b, sa, sb, n, k, m_bucket, accum):
    """What src/sm90_gemm.c adds to a config's compiled items: N and K (specialize=1),
    PROMOTE=1 (promoted FP8 per-tensor / per-row: gemm_promotes) and A_ROWS (sm90_a_rows: at
    M <= 96 without swap, max(8, the M bucket) when below block_m; a key's m_bucket is its
    bucket)."""
    items = dict(i.split("=", 1) for i in config.split(",") if "=" in i)
    extras = ""
    if items.get("specialize") == "1":
        extras += f",N={n},K={k}"
    fp8 = a in ("e4m3", "e5m2") and b in ("e4m3", "e5m2")
    if accum == "promoted" and fp8 and sa != "block" and sb != "block":
        extras += ",PROMOTE=1"
    if items.get("swap", "0") != "1" and m_bucket <= 96:
        rows = max(8, m_bucket)
        if rows < int(items["block_m"]):
            extras += f",A_ROWS={rows}"
    return extras


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--w8a8", default="build/default/w8a8")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    args = ap.parse_args()
    store = tempfile.mkdtemp(prefix="w8a8-sass-")
    env = dict(os.environ, W8A8_KERNEL_DIR=store)
    failed = 0
    try:
        rows = winners(args.db)
    except sqlite3.Error as e:
        print(f"sass_check: {args.db}: {e}", file=sys.stderr)
        return 2
    for a, b, out, bias, sa, sb, azp, n, k, m_bucket, accum, config in rows:
        defines = (f"{config}{compiled_extras(config, a, b, sa, sb, n, k, m_bucket, accum)},"
                   f"A_TYPE={CODES[a]},B_TYPE={CODES[b]},OUT_TYPE={CODES[out]},"
                   f"BIAS_TYPE={CODES[bias]},A_SCALE={SCALES[sa]},B_SCALE={SCALES[sb]},AZP={AZP[azp]}")
        r = subprocess.run([args.w8a8, "compile", "--arch", "sm_90a", "sm90_gemm", "--define", defines,
                            "--json"], env=env, capture_output=True, text=True)
        info = json.loads(r.stdout.splitlines()[0]) if r.stdout else {"status": "no output"}
        if (info["status"] != "ok" or info.get("rejected") or info.get("spill_stores")
                or info.get("spill_loads") or info.get("stack_bytes")):
            print("FAIL compile/spill/stack:", defines, info.get("status"),
                  info.get("reject_reason", ""), f"stack {info.get('stack_bytes')} B")
            failed += 1
    for cubin in sorted(glob.glob(os.path.join(store, "*.cubin"))):
        sass = subprocess.run([args.cuobjdump, "-sass", cubin], capture_output=True, text=True).stdout
        mma = len(re.findall(r"\b[QI]GMMA\b", sass))
        bad = len(re.findall(r"\b(HMMA|LDL|STL)\b", sass))
        waits = len(re.findall(r"WARPGROUP\.DEPBAR", sass))
        # a K block issues 4 (or 8) wgmmas under one wait; a wait each means serialized
        serialized = mma > 4 and waits >= mma
        if mma == 0 or bad or serialized:
            print(f"FAIL sass: {cubin}: {mma} QGMMA/IGMMA, {waits} waits, {bad} HMMA/LDL/STL")
            failed += 1
    print(f"{len(rows)} winners, {len(glob.glob(os.path.join(store, '*.cubin')))} cubins: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
