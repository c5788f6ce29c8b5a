#!/usr/bin/env python3
"""Session 43, D6: every kernel (name, count, average µs) that Kineto sees for torch.block and
for ours at one shape, called eagerly back to back and replayed as peers.py's CUDA graph (20
calls on rotating buffers), with nothing filtered out: does the graph run other kernels, or
other algorithms, than the eager calls?

    W8A8_LIBRARY=... W8A8_CACHE_PATH=cache W8A8_TUNE=off PYTHONPATH=python \\
      python3 bench/results-2026-11-29-s43/graph_kernels.py M,N,K ... > out.jsonl
"""
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

from block_calls import block_fns, device_us, graph_of


def kernels(run, reps):
    run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            run()
        torch.cuda.synchronize()
    out = []
    for evt in prof.key_averages():
        t = device_us(evt)
        if t > 0 and evt.count:
            out.append({"name": evt.key[:90], "count": evt.count, "avg_us": round(t / evt.count, 2)})
    return out


def main():
    for spec in sys.argv[1:]:
        m, n, k = (int(v) for v in spec.split(","))
        fns, nrot = block_fns(m, n, k)
        for name, fn in fns.items():
            for i in range(3):
                fn(i % nrot)
            torch.cuda.synchronize()
            eager = kernels(lambda: [fn(j % nrot) for j in range(20)], 5)
            graph = kernels(graph_of(fn, nrot, 20).replay, 5)
            print(json.dumps({"provider": name, "m": m, "n": n, "k": k, "eager": eager,
                              "graph": graph}), flush=True)


main()
