#!/usr/bin/env python3
"""Session 43, D7: peers.py's timing of a CUDA graph of 20 calls (CUDA events around each
replay, median of 10) beside the GPU time of the kernels in those same replays (Kineto), for
torch.block and ours: how much of a call's graph time is not kernel time?

    W8A8_LIBRARY=... W8A8_CACHE_PATH=cache W8A8_TUNE=off PYTHONPATH=python \\
      python3 bench/results-2026-11-29-s43/graph_timing.py M,N,K ... > out.jsonl
"""
import json
import statistics
import sys

import torch
from torch.profiler import ProfilerActivity, profile

from block_calls import block_fns, device_us, graph_of

INNER, REPS = 20, 10


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
        t = device_us(evt)
        if t > 0:
            per[evt.key[:60]] = round(t / (REPS * INNER), 2)
    return per


def main():
    for spec in sys.argv[1:]:
        m, n, k = (int(v) for v in spec.split(","))
        fns, nrot = block_fns(m, n, k)
        for round_ in (1, 2):
            for name, fn in fns.items():
                g = graph_of(fn, nrot, INNER)
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
