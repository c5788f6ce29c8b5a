"""Session 43's shared pieces for timing block-scaled FP8 from Python (cold.py, graph_kernels.py,
graph_timing.py): the inputs in torch's block convention, the two providers' calls, peers.py's
graph capture and a Kineto event's GPU time."""
import math

import torch

import w8a8jit

L2 = torch.cuda.get_device_properties(0).L2_cache_size


def block_inputs(m, n, k, sets, dev="cuda"):
    """`sets` sets of (x, w, sa, sw): FP8 operands and torch's block scales (peers.py's
    convention: sa (M, K/128) and sw (K/128, N/128), both column-major; ours takes the same)."""
    fp8 = torch.float8_e4m3fn
    kb, nb = math.ceil(k / 128), math.ceil(n / 128)
    return [(torch.randn(m, k, device=dev).to(fp8), torch.randn(n, k, device=dev).to(fp8),
             (torch.rand(kb, m, device=dev) + 0.5).t(), (torch.rand(nb, kb, device=dev) + 0.5).t())
            for _ in range(sets)]


def block_fns(m, n, k):
    """peers.py's rotating buffers (enough sets to total 4x L2, at most 8): {provider: fn(i)}
    for torch.block and ours on set i, and the number of sets."""
    nrot = max(1, min(8, math.ceil(4 * L2 / (n * k + m * k))))
    sets = block_inputs(m, n, k, nrot)
    fns = {
        "torch.block": lambda i: torch._scaled_mm(sets[i][0], sets[i][1].t(), scale_a=sets[i][2],
                                                  scale_b=sets[i][3], out_dtype=torch.bfloat16),
        "w8a8jit": lambda i: w8a8jit.scaled_mm(sets[i][0], sets[i][1].t(), sets[i][2], sets[i][3],
                                               torch.bfloat16),
    }
    return fns, nrot


def graph_of(fn, nrot, inner):
    """peers.py's timed_us up to the replay: warm-up, a side-stream pass, the capture of `inner`
    calls on rotating sets, one replay."""
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
        for j in range(inner):
            fn(j % nrot)
    g.replay()
    torch.cuda.synchronize()
    return g


def device_us(evt):
    """A Kineto key average's total GPU time, µs (device_time_total, cuda_time_total before)."""
    t = getattr(evt, "device_time_total", None)
    return getattr(evt, "cuda_time_total", 0.0) if t is None else t
