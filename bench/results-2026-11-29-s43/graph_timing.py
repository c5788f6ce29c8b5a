#!/usr/bin/env python3
"""Session 43, D7: peers.py's timing of a CUDA graph of 20 calls (CUDA events around each
replay, median of 10) beside the GPU time of the kernels in those same replays (Kineto), for
torch.block and ours: how much of a call's graph time is not kernel time?

    W8A8_LIBRARY=... W8A8_CACHE_PATH=cache W8A8_TUNE=off PYTHONPATH=python \\
      python3 bench/results-2026-11-29-s43/graph_timing.py M,N,K ... > out.jsonl
"""
import json
import math
import statistics
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import w8a8jit

L2 = torch.cuda.get_device_properties(0).L2_cache_size
INNER, REPS = 20, 10


def graph_of(fn, nrot):
    """peers.py's timed_us up to the replay: warm-up, a side-stream pass, the capture."""
    for i in range(3):
        fn(i % nrot)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(nrot):
            fn(i)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for j in range(INNER):
            fn(j % nrot)
    g.replay()
    torch.cuda.synchronize()
    return g


def event_us(g):
    samples = []
    for _ in range(REPS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        samples.append(s.elapsed_time(e) * 1e3 / INNER)
    return statistics.median(samples)


def kernel_us(g):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(REPS):
            g.replay()
        torch.cuda.synchronize()
    per = {}
    for evt in prof.key_averages():
        t = getattr(evt, "device_time_total", None)
        if t is None:
            t = getattr(evt, "cuda_time_total", 0.0)
        if t > 0:
            per[evt.key[:60]] = round(t / (REPS * INNER), 2)
    return per


def main():
    dev = "cuda"
    fp8 = torch.float8_e4m3fn
    for spec in sys.argv[1:]:
        m, n, k = (int(v) for v in spec.split(","))
        kb, nb = math.ceil(k / 128), math.ceil(n / 128)
        nrot = max(1, min(8, math.ceil(4 * L2 / (n * k + m * k))))
        xs = [torch.randn(m, k, device=dev).to(fp8) for _ in range(nrot)]
        ws = [torch.randn(n, k, device=dev).to(fp8) for _ in range(nrot)]
        sas = [(torch.rand(kb, m, device=dev) + 0.5).t() for _ in range(nrot)]
        sws = [(torch.rand(nb, kb, device=dev) + 0.5).t() for _ in range(nrot)]
        fns = {
            "torch.block": lambda i: torch._scaled_mm(xs[i], ws[i].t(), scale_a=sas[i],
                                                      scale_b=sws[i], out_dtype=torch.bfloat16),
            "w8a8jit": lambda i: w8a8jit.scaled_mm(xs[i], ws[i].t(), sas[i], sws[i],
                                                   torch.bfloat16),
        }
        for round_ in (1, 2):
            for name, fn in fns.items():
                g = graph_of(fn, nrot)
                ev = event_us(g)
                kern = kernel_us(g)
                ev2 = event_us(g)
                print(json.dumps({"provider": name, "round": round_, "m": m, "n": n, "k": k,
                                  "graph_event_us": round(ev, 2),
                                  "graph_event_us_after": round(ev2, 2),
                                  "kernels_us": kern,
                                  "tflops_event": round(2 * m * n * k / ev / 1e6, 1)}),
                      flush=True)
                del g


main()
