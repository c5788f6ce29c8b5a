#!/usr/bin/env python3
"""Host overhead and the decode grid through the Python binding.

  overhead: host µs per call (back-to-back calls, the host clock; the GPU never waits) of
    w8a8jit.scaled_mm from Python, torch._scaled_mm (per-tensor and per-row FP8), and
    w8a8_scaled_mm from C on the same key (w8a8_bench_host_overhead): the gap between the
    first and the last is the binding's cost.
  decode: the decode grid (M = 1…32 on Llama-3.1-8B's N×K) timed as a CUDA graph of 20 calls
    through the Python op beside the C path's host time per call.
Prints a table; --json prints JSON lines."""
import argparse
import json
import statistics
import time

import torch

import w8a8jit

E4M3 = torch.float8_e4m3fn
LLAMA_8B_NK = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336)]


def host_us(fn, calls=2000, chunk=100):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(calls // chunk):
        t0 = time.perf_counter()
        for _ in range(chunk):
            fn()
        per.append((time.perf_counter() - t0) * 1e6 / chunk)
        torch.cuda.synchronize()  # between chunks only: the queue never blocks the host
    return statistics.median(per), min(per)


def overhead_rows(m, n, k):
    a = (torch.randn(m, k, device="cuda")).to(E4M3)
    w = (torch.randn(n, k, device="cuda")).to(E4M3)
    one = torch.ones(1, 1, device="cuda")
    sa_row, sb_row = torch.rand(m, 1, device="cuda"), torch.rand(1, n, device="cuda")
    rows = []
    cases = {
        "w8a8jit.scaled_mm tensor": lambda: w8a8jit.scaled_mm(a, w.t(), one, one, torch.bfloat16),
        "w8a8jit.scaled_mm row": lambda: w8a8jit.scaled_mm(a, w.t(), sa_row, sb_row,
                                                           torch.bfloat16),
        "torch.ops.w8a8jit.scaled_mm tensor": lambda: torch.ops.w8a8jit.scaled_mm(
            a, w.t(), one, one, torch.bfloat16, None, None, None),
        "torch._scaled_mm tensor": lambda: torch._scaled_mm(a, w.t(), one.reshape(()),
                                                            one.reshape(()),
                                                            out_dtype=torch.bfloat16),
        "torch._scaled_mm row": lambda: torch._scaled_mm(a, w.t(), sa_row, sb_row,
                                                         out_dtype=torch.bfloat16),
    }
    for name, fn in cases.items():
        try:
            med, best = host_us(fn)
        except Exception as exc:  # a peer this torch lacks
            rows.append({"m": m, "n": n, "k": k, "path": name, "error": str(exc)[:200]})
            continue
        rows.append({"m": m, "n": n, "k": k, "path": name, "host_us": med, "min_us": best})
    for scales in (("tensor", "tensor"), ("row", "row")):
        med, best = w8a8jit.host_overhead(m, n, k, scales=scales)
        rows.append({"m": m, "n": n, "k": k, "path": f"C w8a8_scaled_mm {scales[0]}",
                     "host_us": med, "min_us": best})
    return rows


def graph_us(fn, reps=20, replays=10):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / reps)
    return statistics.median(times)


def decode_rows():
    rows = []
    for n, k in LLAMA_8B_NK:
        w = torch.randn(n, k, device="cuda").to(E4M3)
        sb = torch.rand(1, n, device="cuda")
        for m in (1, 2, 4, 8, 16, 32):
            a = torch.randn(m, k, device="cuda").to(E4M3)
            sa = torch.rand(m, 1, device="cuda")
            fn = lambda: w8a8jit.scaled_mm(a, w.t(), sa, sb, torch.bfloat16)
            gpu_us = graph_us(fn)
            py_host, _ = host_us(fn, calls=1000)
            c_host, _ = w8a8jit.host_overhead(m, n, k, scales=("row", "row"), calls=1000)
            rows.append({"m": m, "n": n, "k": k, "graph_us": gpu_us, "python_host_us": py_host,
                         "c_host_us": c_host, "binding_us": py_host - c_host})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skip-decode", action="store_true")
    args = ap.parse_args()
    rows = overhead_rows(16, 4096, 4096) + overhead_rows(1, 4096, 4096)
    if not args.skip_decode:
        rows += decode_rows()
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    for r in rows:
        if "path" in r:
            val = r.get("error") or f"{r['host_us']:8.2f} µs/call (min {r['min_us']:.2f})"
            print(f"overhead M={r['m']:<3} {r['n']}x{r['k']}  {r['path']:<36} {val}")
        else:
            print(f"decode   M={r['m']:<3} {r['n']:>5}x{r['k']:<5} graph {r['graph_us']:8.2f} µs"
                  f"  host: python {r['python_host_us']:6.2f} µs, C {r['c_host_us']:6.2f} µs,"
                  f" binding {r['binding_us']:6.2f} µs")


if __name__ == "__main__":
    main()
