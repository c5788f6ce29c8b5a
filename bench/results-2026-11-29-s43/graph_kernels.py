#!/usr/bin/env python3
"""Session 43, D6: every kernel (name, count, average µs) that Kineto sees for torch.block and
for ours at one shape, called eagerly back to back and replayed as peers.py's CUDA graph (20
calls on rotating buffers), with nothing filtered out: does the graph run other kernels, or
other algorithms, than the eager calls?

    W8A8_LIBRARY=... W8A8_CACHE_PATH=cache W8A8_TUNE=off PYTHONPATH=python \\
      python3 bench/results-2026-11-29-s43/graph_kernels.py M,N,K ... > out.jsonl
"""
import json
import math
import sys

import torch
from torch.profiler import ProfilerActivity, profile

import w8a8jit

L2 = torch.cuda.get_device_properties(0).L2_cache_size


def kernels(run, reps):
    run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            run()
        torch.cuda.synchronize()
    out = []
    for evt in prof.key_averages():
        t = getattr(evt, "device_time_total", None)
        if t is None:
            t = getattr(evt, "cuda_time_total", 0.0)
        if t > 0 and evt.count:
            out.append({"name": evt.key[:90], "count": evt.count, "avg_us": round(t / evt.count, 2)})
    return out


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
        for name, fn in fns.items():
            for i in range(3):
                fn(i % nrot)
            torch.cuda.synchronize()
            eager = kernels(lambda: [fn(j % nrot) for j in range(20)], 5)
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for i in range(nrot):
                    fn(i)
            torch.cuda.current_stream().wait_stream(side)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for j in range(20):
                    fn(j % nrot)
            graph = kernels(g.replay, 5)
            print(json.dumps({"provider": name, "m": m, "n": n, "k": k, "eager": eager,
                              "graph": graph}), flush=True)


main()
