# One torch._scaled_mm call six times on M,N,K (argv[1]), block scales or per-tensor fast
# accumulation (argv[2]: block|tensor), for Nsight Compute to profile cuBLASLt's kernel
# (d5.sh, d7.sh): bench/cublas_kernels.py's calls, the operands and scale layouts peers.py
# passes.
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # bench/
from cublas_kernels import calls  # noqa: E402

m, n, k = (int(v) for v in sys.argv[1].split(","))
fn = calls(m, n, k, "cuda")["block" if sys.argv[2] == "block" else "tensor.fast"]
for _ in range(6):
    fn()
torch.cuda.synchronize()
