"""Runs torch._scaled_mm (per-tensor e4m3, bf16 out, fast accumulation) on one shape a few
times, for ncu: python3 torch_one.py M N K"""
import sys
import torch
m, n, k = (int(x) for x in sys.argv[1:4])
a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
s = torch.ones((), device="cuda")
for _ in range(3):
    torch._scaled_mm(a, b.t(), scale_a=s, scale_b=s, out_dtype=torch.bfloat16, use_fast_accum=True)
torch.cuda.synchronize()
