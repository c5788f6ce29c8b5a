"""Which kernels cuBLASLt runs for torch's scaled matmuls: name, grid, block, registers, shared
memory and GPU time of each kernel launched by one call, read from a torch.profiler trace.

The names of cuBLASLt's Hopper kernels carry their tile, cluster and schedule; the grid says
whether the kernel is persistent (one CTA per SM) or one CTA per tile. One JSON object per
provider and shape:
  {"provider", "m", "n", "k", "kernels": [{"name", "grid", "block", "regs", "smem", "us"}]}

Usage (GPU host, python3 with torch):
  python3 bench/cublas_kernels.py --shape M,N,K [--shape ...] [--providers block,tensor.fast,...]
"""
import argparse, json, os, sys, tempfile
import torch
from torch.profiler import ProfilerActivity, profile

FP8 = torch.float8_e4m3fn


def calls(m, n, k, dev):
    """provider -> a function of no argument running one call on (m, n, k)."""
    x = torch.randn(m, k, device=dev).to(FP8)
    w = torch.randn(n, k, device=dev).to(FP8)
    one = torch.tensor(1.0, device=dev)
    sa = torch.rand(m, 1, device=dev) + 0.5
    sb = torch.rand(1, n, device=dev) + 0.5
    out = {
        "tensor": lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one,
                                           out_dtype=torch.bfloat16),
        "tensor.fast": lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one,
                                                out_dtype=torch.bfloat16, use_fast_accum=True),
        "row.fast": lambda: torch._scaled_mm(x, w.t(), scale_a=sa, scale_b=sb,
                                             out_dtype=torch.bfloat16, use_fast_accum=True),
        "bf16": (lambda xb, wb: lambda: torch.mm(xb, wb.t()))(
            x.to(torch.bfloat16), w.to(torch.bfloat16)),
    }
    if n % 128 == 0 and k % 128 == 0:
        # the layouts peers.py passes: A's scales M-major, B's K-major
        sab = (torch.rand(k // 128, m, device=dev) + 0.5).t()
        swb = (torch.rand(n // 128, k // 128, device=dev) + 0.5).t()
        out["block"] = lambda: torch._scaled_mm(x, w.t(), scale_a=sab, scale_b=swb,
                                                out_dtype=torch.bfloat16)
    if m > 16:
        xi, wi = x.view(torch.int8), w.view(torch.int8)
        out["int8"] = lambda: torch._int_mm(xi, wi.t())
    return out


def kernels_of(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    path = os.path.join(tempfile.mkdtemp(), "trace.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f).get("traceEvents", [])
    seen = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        a = e.get("args", {})
        key = e["name"]
        s = seen.setdefault(key, {"name": key, "grid": a.get("grid"), "block": a.get("block"),
                                  "regs": a.get("registers per thread"),
                                  "smem": a.get("shared memory"), "us": [], })
        s["us"].append(e.get("dur", 0.0))
    out = []
    for s in seen.values():
        us = sorted(s["us"])
        s["calls"] = len(us)
        s["us"] = us[len(us) // 2] if us else None
        out.append(s)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", action="append", required=True, help="M,N,K (repeatable)")
    ap.add_argument("--providers", default="block,tensor.fast,row.fast,int8,bf16")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    dev = torch.device("cuda")
    for s in args.shape:
        m, n, k = (int(v) for v in s.split(","))
        fns = calls(m, n, k, dev)
        for p in args.providers.split(","):
            if p not in fns:
                continue
            try:
                ks = kernels_of(fns[p], args.reps)
            except RuntimeError as e:
                print(json.dumps({"provider": p, "m": m, "n": n, "k": k, "error": str(e)}))
                continue
            print(json.dumps({"provider": p, "m": m, "n": n, "k": k, "kernels": ks}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
