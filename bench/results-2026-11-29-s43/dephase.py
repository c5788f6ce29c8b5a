#!/usr/bin/env python3
"""Session 43, D2: copies of templates/ whose sm80_gemm kernel delays some CTAs of the first
wave at its start, so the two CTAs that share an SM run out of phase (one's epilogue and next
fill under the other's main loop) instead of in lockstep.

    python3 bench/results-2026-11-29-s43/dephase.py OUTDIR NAME:RULE:NS ...

RULE slot: CTAs nsmid <= blockIdx.x < 2 * nsmid (the second CTA of each SM, if the block
scheduler fills one CTA an SM first); odd: odd blockIdx.x below 2 * nsmid. NS: the delay in
nanoseconds (__nanosleep in steps of at most 1000). Writes OUTDIR/NAME/ (a whole template
tree) per variant."""
import os
import shutil
import sys

CALL = "    w8a8_pdl_wait();\n    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    out = argv[1]
    for spec in argv[2:]:
        name, rule, ns = spec.split(":")
        cond = {"slot": "b >= n && b < 2 * n", "odd": "(b & 1) && b < 2 * n"}[rule]
        d = os.path.join(out, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree("templates", d)
        path = os.path.join(d, "sm80_gemm.cuh")
        src = open(path).read()
        assert src.count(CALL) == 1, "the kernel's start moved"
        delay = (
            "    w8a8_pdl_wait();\n"
            "    {\n"
            "        unsigned n, b = blockIdx.x;\n"
            "        asm volatile(\"mov.u32 %%0, %%%%nsmid;\" : \"=r\"(n));\n"
            "        if (%s)\n"
            "            for (int t = 0; t < %d; t += 1000)\n"
            "                __nanosleep(%d < t + 1000 ? %d - t : 1000);\n"
            "    }\n"
            "    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;\n"
            % (cond, int(ns), int(ns), int(ns)))
        open(path, "w").write(src.replace(CALL, delay))
        print(name, rule, ns)
    return 0


sys.exit(main(sys.argv))
