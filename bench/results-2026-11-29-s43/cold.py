#!/usr/bin/env python3
"""Session 43, D4: block-scaled FP8 timed the way DeepGEMM publishes its TFLOP/s, beside our
usual graph replays. DeepGEMM's deep_gemm/testing/bench.py (bench_kineto) writes 8 GB of
zeros before every call ("chill time", and an L2 flush) and takes the kernels' average GPU
time from the Kineto profiler; its tables come from that. Here both our kernel (w8a8jit's
torch op through the shipped cache) and torch._scaled_mm's block path (cuBLASLt) are timed
that way on DeepSeek-V3 shapes, one JSON line per provider and shape.

    W8A8_LIBRARY=... W8A8_CACHE_PATH=cache W8A8_TUNE=off PYTHONPATH=python \
      python3 bench/results-2026-11-29-s43/cold.py [--flush-gb 8] [--samples 30] > out.jsonl

--flush-gb 0: no memset, the calls back to back (a sustained load, as graph replays are).
--quick: only the M = 4096 shapes of N = 4096 / 7168 and 128x4096x7168."""
import argparse
import json

import torch
from torch.profiler import ProfilerActivity, profile

import w8a8jit
from block_calls import block_inputs, device_us

SHAPES = [(4096, 2112, 7168), (4096, 24576, 1536), (4096, 32768, 512), (4096, 7168, 16384),
          (4096, 4096, 7168), (4096, 7168, 2048), (2048, 7168, 16384), (1024, 4096, 7168),
          (128, 2112, 7168), (128, 4096, 7168), (128, 7168, 2048), (64, 2112, 7168)]
SKIP = ("fill", "Fill", "memset", "Memset", "elementwise", "zero")


def kineto_us(fn, flush, samples):
    """Average GPU time per call of the kernels fn launches, each call after flush.zero_()
    (no flush when flush is None)."""
    for _ in range(3):
        if flush is not None:
            flush.zero_()
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(samples):
            if flush is not None:
                flush.zero_()
            fn()
        torch.cuda.synchronize()
    total, names = 0.0, []
    for evt in prof.key_averages():
        if any(s in evt.key for s in SKIP):
            continue
        t = device_us(evt)
        if t > 0:
            total += t
            names.append(evt.key[:60])
    return total / samples, names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flush-gb", type=float, default=8.0)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    flush = None
    if args.flush_gb > 0:
        flush = torch.empty(int(args.flush_gb * 2**30) // 4, dtype=torch.int32, device="cuda")
    method = ("kineto after %g GB memset" % args.flush_gb if flush is not None
              else "kineto, back to back")
    shapes = SHAPES
    if args.quick:
        shapes = [s for s in SHAPES if s in ((4096, 4096, 7168), (4096, 7168, 16384),
                                             (4096, 7168, 2048), (128, 4096, 7168))]
    for m, n, k in shapes:
        (x, w, sa, sw), = block_inputs(m, n, k, 1)
        cases = {"w8a8jit": lambda: w8a8jit.scaled_mm(x, w.t(), sa, sw, torch.bfloat16)}
        if n % 128 == 0 and k % 128 == 0:
            cases["torch.block"] = lambda: torch._scaled_mm(x, w.t(), scale_a=sa, scale_b=sw,
                                                            out_dtype=torch.bfloat16)
        check = None
        if "torch.block" in cases:
            ours, ref = cases["w8a8jit"]().float(), cases["torch.block"]().float()
            check = float((ours - ref).abs().max() / ref.abs().max())
        for name, fn in cases.items():
            us, kernels = kineto_us(fn, flush, args.samples)
            print(json.dumps({"provider": name, "method": method,
                              "m": m, "n": n, "k": k, "us": round(us, 2),
                              "tflops": round(2 * m * n * k / us / 1e6, 1), "kernels": kernels,
                              "max_diff_vs_torch": check}), flush=True)
        del x, w, sa, sw


main()
