#!/usr/bin/env python3
"""Which kernel cuBLASLt runs for torch._scaled_mm (the peers of peers.py) on given shapes: the
CUDA kernels of one call, by name and time, through torch.profiler. The tile, cluster and
split-K choices in those names say what the library picked where it beats us.

    python3 bench/results-2026-11-29-s41/cublas_kernels.py M,N,K ... > kernels.txt
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

FP8 = torch.float8_e4m3fn


def cases(m, n, k):
    dev = "cuda"
    w = torch.randn(n, k, device=dev).to(FP8)
    x = torch.randn(m, k, device=dev).to(FP8)
    sa, sb = torch.rand(m, 1, device=dev) + 0.5, torch.rand(1, n, device=dev) + 0.5
    one = torch.tensor(1.0, device=dev)
    sab = (torch.rand(k // 128, m, device=dev) + 0.5).t()
    swb = (torch.rand(n // 128, k // 128, device=dev) + 0.5).t()
    bf = torch.bfloat16
    return {
        "torch.tensor.fast": lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one,
                                                      out_dtype=bf, use_fast_accum=True),
        "torch.row.fast": lambda: torch._scaled_mm(x, w.t(), scale_a=sa, scale_b=sb,
                                                   out_dtype=bf, use_fast_accum=True),
        "torch.block": lambda: torch._scaled_mm(x, w.t(), scale_a=sab, scale_b=swb, out_dtype=bf),
        "torch.int8": lambda: torch._int_mm(x.view(torch.int8), w.view(torch.int8).t()),
    }


def main():
    for arg in sys.argv[1:]:
        m, n, k = (int(v) for v in arg.split(","))
        for name, fn in cases(m, n, k).items():
            if name == "torch.int8" and m <= 16:
                continue
            try:
                for _ in range(3):
                    fn()
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(5):
                        fn()
                    torch.cuda.synchronize()
                seen = {}
                for ev in prof.events():
                    if ev.device_type == torch.autograd.DeviceType.CUDA:
                        seen.setdefault(ev.name, []).append(ev.device_time)
                for kname, ts in seen.items():
                    print("%d,%d,%d\t%s\t%.2f us\t%s" % (m, n, k, name, sorted(ts)[len(ts) // 2],
                                                       kname))
            except Exception as ex:  # report and go on
                print("%d,%d,%d\t%s\terror %s" % (m, n, k, name, str(ex)[:160]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
