# One torch._scaled_mm call six times on M,N,K (argv[1]), block scales or per-tensor fast
# accumulation (argv[2]: block|tensor), for Nsight Compute to profile cuBLASLt's kernel
# (d5.sh, d7.sh).
import sys, torch
m, n, k = (int(v) for v in sys.argv[1].split(","))
FP8 = torch.float8_e4m3fn
x = torch.randn(m, k, device="cuda").to(FP8); w = torch.randn(n, k, device="cuda").to(FP8)
one = torch.tensor(1.0, device="cuda")
sab = (torch.rand(k // 128, m, device="cuda") + 0.5).t()
swb = (torch.rand(n // 128, k // 128, device="cuda") + 0.5).t()
for _ in range(6):
    if sys.argv[2] == "block":
        torch._scaled_mm(x, w.t(), scale_a=sab, scale_b=swb, out_dtype=torch.bfloat16)
    else:
        torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                         use_fast_accum=True)
torch.cuda.synchronize()
