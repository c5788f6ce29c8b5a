#!/usr/bin/env python3
"""Summarizes an `scripts/gpu-session.sh sm80-peak+sm80-tune:…` run: the sm80_gemm family's
TFLOP/s per shape as a fraction of the mma.sync peak measured on the same GPU (M >= 2048), and
its GB/s as a fraction of the device-to-device copy bandwidth (M <= 16). On Hopper, where the
family runs FP8 as f16 m16n8k16 mmas, FP8 rows are also given against the f16 peak.

    scripts/sm80_summary.py LOG_DIR    (reads sm80-peak.jsonl, sm80-copy.jsonl,
                                        sm80-bench-*.jsonl and, when there, sm80-peers.jsonl;
                                        prints a table and the geometric means; exit 0)

With sm80-peers.jsonl (peers.py's torch.int8: torch._int_mm, which runs CUTLASS's sm80 INT8
kernels on Hopper too) each INT8 row at M >= 2048 also gives that peer's fraction of the same
peak, and the geometric means compare the two on the shapes both timed.

GB/s is w8a8 bench's figure (operand bytes read plus output bytes written over the time);
the copy's counts its read plus its write, so the two compare like for like."""
import glob
import json
import math
import os
import sys


def rows(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return out


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 2
    d = argv[1]
    peaks = [r for r in rows(os.path.join(d, "sm80-peak.jsonl"))
             if r.get("provider") == "mma.sync.peak"]
    peak = {r["dtype"]: r["tflops"] for r in peaks}
    copies = [r["gbps"] for r in rows(os.path.join(d, "sm80-copy.jsonl"))
              if r.get("provider") == "copy"]
    copy = max(copies) if copies else float("nan")
    print("mma.sync peak: " + ", ".join(f"{k} {v:.1f} TFLOP/s" for k, v in peak.items())
          + f"; copy {copy:.0f} GB/s")
    cutlass = {(r["m"], r["n"], r["k"]): r["tflops"]
               for r in rows(os.path.join(d, "sm80-peers.jsonl"))
               if r.get("provider") == "torch.int8" and "tflops" in r}
    # FP8 on Hopper (plain sm_90) runs as f16 mmas: its rows also against that instruction's peak
    hopper = any(r.get("arch", "").startswith("sm_90") for r in peaks)
    f16_peak = peak.get("fp16") if hopper else None
    big, small, both, vs_f16 = {}, {}, [], {}
    for path in sorted(glob.glob(os.path.join(d, "sm80-bench-*.jsonl"))):
        for r in rows(path):
            if r.get("provider") != "w8a8jit" or "tflops" not in r:
                continue
            dtype = r["dtype"]
            if r["m"] >= 2048 and dtype in peak:
                f = r["tflops"] / peak[dtype]
                big.setdefault(dtype, []).append(f)
                peer = cutlass.get((r["m"], r["n"], r["k"])) if dtype == "int8" else None
                extra = ""
                if f16_peak and dtype in ("e4m3", "e5m2"):
                    vs_f16.setdefault(dtype, []).append(r["tflops"] / f16_peak)
                    extra = f"   {100 * r['tflops'] / f16_peak:5.1f} % of the f16 peak"
                if peer:
                    both.append((f, peer / peak[dtype]))
                    extra = f"   torch._int_mm {100 * peer / peak[dtype]:5.1f} %"
                print(f"{dtype:5} {r['m']:6}x{r['n']}x{r['k']:<6} {r['tflops']:8.1f} TFLOP/s  "
                      f"{100 * f:5.1f} % of mma.sync peak{extra}")
            elif r["m"] <= 16:
                f = r["gbps"] / copy
                small.setdefault(dtype, []).append(f)
                print(f"{dtype:5} {r['m']:6}x{r['n']}x{r['k']:<6} {r['gbps']:8.0f} GB/s     "
                      f"{100 * f:5.1f} % of copy bandwidth")
    for dtype, fs in big.items():
        print(f"{dtype} M >= 2048: geomean {100 * geomean(fs):.1f} % of peak, worst "
              f"{100 * min(fs):.1f} % ({len(fs)} shapes)")
    for dtype, fs in vs_f16.items():
        print(f"{dtype} M >= 2048: geomean {100 * geomean(fs):.1f} % of the f16 mma.sync peak "
              f"(the instruction FP8 runs as on sm_90), worst {100 * min(fs):.1f} %")
    if both:
        print(f"int8 M >= 2048, {len(both)} shapes timed by both: ours "
              f"{100 * geomean([a for a, _ in both]):.1f} %, torch._int_mm (CUTLASS sm80) "
              f"{100 * geomean([b for _, b in both]):.1f} % of the peak")
    for dtype, fs in small.items():
        print(f"{dtype} M <= 16: geomean {100 * geomean(fs):.1f} % of copy, worst "
              f"{100 * min(fs):.1f} % ({len(fs)} shapes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
