#!/usr/bin/env python3
"""Times what a user would otherwise call for a scaled FP8/INT8 matmul, on the shapes of
`w8a8 bench --grid G`, and writes JSON lines that join with its output on (m, n, k).

Providers (torch calls cuBLASLt for all of them):
  torch.tensor        torch._scaled_mm, per-tensor scales
  torch.row           torch._scaled_mm, per-token x per-channel scales
  torch.block         torch._scaled_mm, 1x128 activation x 128x128 weight blocks (CUDA >= 12.9)
  torch.tensor.fast, torch.row.fast, torch.block.fast
                      the same with use_fast_accum=True: FP8 products summed in the tensor
                      core's reduced-precision accumulator, as our FP8 kernels sum (torch
                      refuses it for some scalings: the row then carries the error)
  torch.int8          torch._int_mm, INT8 x INT8 -> INT32, no scales (torch wants M > 16)
  torch.bf16          torch.mm in bf16, the unquantized baseline

Timing: --calls launches are captured in a CUDA graph over rotated buffer sets (enough sets
that they span 4x the L2, so every call reads its weights from HBM, as a serving step does),
the graph is replayed --replays times, and the median replay over the calls is the time of one
call: GPU time, without Python's launch overhead.

Output, one object per line (the fields of `w8a8 bench --json`):
  {"provider", "dtype", "scale", "m", "n", "k", "us", "tflops", "gbps"}
or {"provider", "m", "n", "k", "error"} when the provider fails on a shape. gbps counts each
operand read once and the output written once, in the provider's own element sizes (scales not
counted).

Needs torch with a CUDA device; without them it says so in one line and exits 2 (so does a
usage error). --help and --list need neither.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

# (N, K) pairs x Ms: the grids of `w8a8 bench --grid` (src/cli/bench.c), shape for shape.
GRIDS = {
    # Llama-3.1 8B and 70B linear layers at TP=1, M from decode to prefill
    "llama3": ([(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
                (10240, 8192), (8192, 8192), (57344, 8192), (8192, 28672)],
               [1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192]),
    "small": ([(4096, 4096), (28672, 4096)], [1, 128, 4096]),
    # DeepSeek-V3 block-FP8 linear layers at TP=1
    "dsv3": ([(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384), (4096, 7168),
              (7168, 2048)],
             [1, 16, 64, 128, 512, 1024, 2048, 4096]),
    # weights far larger than L2, M = a batch of tokens
    "decode": ([(4096, 14336), (8192, 8192), (8192, 28672), (28672, 4096), (57344, 8192)],
               [1, 2, 4, 8, 16, 32]),
}

# provider: (dtype, scale) as the JSON rows name them
PROVIDERS = {
    "torch.tensor": ("e4m3", "tensor"),
    "torch.tensor.fast": ("e4m3", "tensor"),
    "torch.row": ("e4m3", "row"),
    "torch.row.fast": ("e4m3", "row"),
    "torch.block": ("e4m3", "block"),
    "torch.block.fast": ("e4m3", "block"),
    "torch.int8": ("int8", "none"),
    "torch.bf16": ("bf16", "none"),
}

BLOCK = 128                    # the K (and weight N) extent of one block scale
ROTATION_L2_MULTIPLE = 4       # buffer sets span this many L2s: weights come from HBM
MAX_ROTATION_SETS = 16
MEMORY_FRACTION = 0.25         # of the free device memory, at most, for one provider's sets
FALLBACK_L2_BYTES = 128 << 20  # when torch does not report the L2 size (more sets, not fewer)
ELEMENT_BYTES = {"e4m3": 1, "int8": 1, "bf16": 2}
OUTPUT_BYTES = {"e4m3": 2, "int8": 4, "bf16": 2}  # bf16 out; INT32 out for torch._int_mm


class PeersUnavailable(Exception):
    """torch or its CUDA device is missing; str() is the whole message."""


def require_cuda():
    """torch, imported, with a CUDA device present; raises PeersUnavailable otherwise."""
    try:
        import torch
    except Exception as e:  # ImportError, or OSError from a broken install's libraries
        raise PeersUnavailable(f"torch is not importable ({e}); the peers need torch with CUDA")
    if not torch.cuda.is_available():
        raise PeersUnavailable(f"torch {torch.__version__} sees no CUDA device "
                               "(torch.cuda.is_available() is false)")
    return torch


def grid_shapes(grid, min_m=0, max_m=None):
    """The (M, N, K) of a grid in `w8a8 bench --grid` order: each (N, K), then each M."""
    nks, ms = GRIDS[grid]
    return [(m, n, k) for n, k in nks for m in ms
            if m >= min_m and (max_m is None or m <= max_m)]


def parse_shape(text):
    """'M,N,K' as a tuple of three positive ints; ValueError otherwise."""
    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise ValueError(f"'{text}' is not M,N,K with three positive integers")
    return tuple(int(p) for p in parts)


def result_row(provider, shape, us):
    """The JSON row of one timed provider on one shape, rounded as `w8a8 bench --json` rounds."""
    m, n, k = shape
    dtype, scale = PROVIDERS[provider]
    nbytes = (m * k + n * k) * ELEMENT_BYTES[dtype] + m * n * OUTPUT_BYTES[dtype]
    return {"provider": provider, "dtype": dtype, "scale": scale, "m": m, "n": n, "k": k,
            "us": round(us, 2), "tflops": round(2 * m * n * k / us / 1e6, 1),
            "gbps": round(nbytes / us / 1e3, 1)}


def error_row(provider, shape, message):
    m, n, k = shape
    first_line = str(message).strip().splitlines()[0] if str(message).strip() else "failed"
    return {"provider": provider, "m": m, "n": n, "k": k, "error": first_line[:300]}


class Timer:
    """Times launch(i), one call on buffer set i, as a replayed CUDA graph."""

    def __init__(self, torch, calls, replays):
        self.torch, self.calls, self.replays = torch, calls, replays

    def median_us(self, launch, sets):
        torch = self.torch
        calls = math.ceil(self.calls / sets) * sets  # every set equally often
        # warm-up on a side stream, as torch.cuda.graph wants: cuBLASLt's heuristics, its
        # workspace and the allocator's blocks exist before the capture
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for i in range(sets):
                launch(i)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for j in range(calls):
                launch(j % sets)
        graph.replay()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(self.replays):
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1e3 / calls)  # ms per replay -> us per call
        del graph
        return statistics.median(samples)


class Operands:
    """The buffer sets of one shape, made when a provider first asks: FP8 sets (INT8 views of
    the same bytes serve torch.int8; the values do not change the time), bf16 sets, scales."""

    def __init__(self, torch, shape, l2_bytes):
        self.torch, self.shape, self.l2_bytes = torch, shape, l2_bytes
        self.device = torch.device("cuda")
        self.fp8 = self.bf16 = None
        self.scales = {}

    def set_count(self, element_bytes):
        m, n, k = self.shape
        set_bytes = (m * k + n * k) * element_bytes
        wanted = math.ceil(ROTATION_L2_MULTIPLE * self.l2_bytes / set_bytes)
        free_bytes, _ = self.torch.cuda.mem_get_info()
        room = int(free_bytes * MEMORY_FRACTION // set_bytes)
        return max(1, min(wanted, MAX_ROTATION_SETS, room))

    def fp8_sets(self):
        if self.fp8 is None:
            torch, (m, n, k) = self.torch, self.shape
            fp8 = torch.float8_e4m3fn
            self.fp8 = [(torch.randn(m, k, device=self.device, dtype=torch.bfloat16).to(fp8),
                         torch.randn(n, k, device=self.device, dtype=torch.bfloat16).to(fp8))
                        for _ in range(self.set_count(ELEMENT_BYTES["e4m3"]))]
        return self.fp8

    def bf16_sets(self):
        if self.bf16 is None:
            torch, (m, n, k) = self.torch, self.shape
            self.bf16 = [(torch.randn(m, k, device=self.device, dtype=torch.bfloat16),
                          torch.randn(n, k, device=self.device, dtype=torch.bfloat16))
                         for _ in range(self.set_count(ELEMENT_BYTES["bf16"]))]
        return self.bf16

    def scale_sets(self, kind, padded=False):
        """[(scale_a, scale_b)] per FP8 set, in the layout torch._scaled_mm reads for kind.
        Block: scale_a (M, K/128) M-major; scale_b (K/128, N/128), the transpose of a row-major
        (N/128, K/128); padded: that row's stride rounded up to 4, as some torch builds want."""
        key = (kind, padded)
        if key not in self.scales:
            (m, n, k), rand = self.shape, self._scale_values
            count = len(self.fp8_sets())
            if kind == "tensor":
                made = [(rand(()), rand(())) for _ in range(count)]
            elif kind == "row":
                made = [(rand((m, 1)), rand((1, n))) for _ in range(count)]
            else:
                k_blocks, n_blocks = -(-k // BLOCK), -(-n // BLOCK)
                stride = -(-k_blocks // 4) * 4 if padded else k_blocks
                made = [(rand((k_blocks, m)).t(), rand((n_blocks, stride))[:, :k_blocks].t())
                        for _ in range(count)]
            self.scales[key] = made
        return self.scales[key]

    def _scale_values(self, size):
        # in [0.5, 1.5): away from 1, which a library could treat as "no scale"
        return self.torch.rand(size, device=self.device, dtype=self.torch.float32) + 0.5


def launcher(torch, operands, provider, padded=False):
    """(launch(i), sets) for one provider on one shape."""
    if provider == "torch.bf16":
        sets = operands.bf16_sets()
        return (lambda i: torch.mm(sets[i][0], sets[i][1].t())), len(sets)
    sets = operands.fp8_sets()
    if provider == "torch.int8":
        views = [(x.view(torch.int8), w.view(torch.int8)) for x, w in sets]
        return (lambda i: torch._int_mm(views[i][0], views[i][1].t())), len(views)
    kind = PROVIDERS[provider][1]
    fast = provider.endswith(".fast")
    scales = operands.scale_sets(kind, padded)

    def launch(i):
        x, w = sets[i]
        scale_a, scale_b = scales[i]
        return torch._scaled_mm(x, w.t(), scale_a=scale_a, scale_b=scale_b,
                                out_dtype=torch.bfloat16, use_fast_accum=fast)
    return launch, len(sets)


def time_provider(torch, timer, operands, provider):
    """One provider on one shape: its result row, or an error row."""
    layouts = [False, True] if PROVIDERS[provider][1] == "block" else [False]
    first_error = None
    for padded in layouts:
        try:
            launch, sets = launcher(torch, operands, provider, padded)
            return result_row(provider, operands.shape, timer.median_us(launch, sets))
        except (RuntimeError, ValueError, TypeError) as e:  # torch's refusals; keep going
            first_error = first_error or e
            torch.cuda.synchronize()
    return error_row(provider, operands.shape, first_error)


def run(shapes, providers, emit, calls=20, replays=10, budget_s=None, log=sys.stderr):
    """Times every provider on every shape and passes each row to emit(row). Stops between
    shapes, saying so on log, once budget_s seconds are spent. Raises PeersUnavailable."""
    torch = require_cuda()
    properties = torch.cuda.get_device_properties(0)
    l2_bytes = getattr(properties, "L2_cache_size", 0) or FALLBACK_L2_BYTES
    print(f"peers: {properties.name}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"L2 {l2_bytes >> 20} MiB", file=log)
    timer = Timer(torch, calls, replays)
    started = time.monotonic()
    for done, shape in enumerate(shapes):
        if budget_s is not None and time.monotonic() - started > budget_s:
            print(f"peers: budget of {budget_s:g} s spent after {done} of {len(shapes)} shapes; "
                  "stopping", file=log)
            break
        operands = Operands(torch, shape, l2_bytes)
        for provider in providers:
            emit(time_provider(torch, timer, operands, provider))
        del operands
        torch.cuda.empty_cache()


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="peers.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__)
    ap.add_argument("--grid", choices=sorted(GRIDS), default=None,
                    help="the shapes of `w8a8 bench --grid G` (default small)")
    ap.add_argument("--shape", action="append", default=[], metavar="M,N,K",
                    help="a shape (repeatable; instead of --grid)")
    ap.add_argument("--providers", default=",".join(PROVIDERS), metavar="LIST",
                    help="comma-separated providers (default: all)")
    ap.add_argument("--min-m", type=int, default=0, metavar="M",
                    help="grid rows with M >= this")
    ap.add_argument("--max-m", type=int, default=None, metavar="M",
                    help="grid rows with M <= this")
    ap.add_argument("--out", default=None, metavar="FILE",
                    help="write the lines here (default stdout)")
    ap.add_argument("--calls", type=int, default=20, metavar="N",
                    help="calls captured in one graph (default 20)")
    ap.add_argument("--replays", type=int, default=10, metavar="N",
                    help="timed replays; the median counts (default 10)")
    ap.add_argument("--budget", type=float, default=None, metavar="S",
                    help="stop between shapes once S seconds are spent")
    ap.add_argument("--list", action="store_true", help="print the providers and grids, and exit")
    args = ap.parse_args(argv)
    if args.grid and args.shape:
        ap.error("--grid and --shape exclude each other")
    try:
        args.shapes = [parse_shape(s) for s in args.shape]
    except ValueError as e:
        ap.error(f"--shape: {e}")
    if not args.shapes:
        args.shapes = grid_shapes(args.grid or "small", args.min_m, args.max_m)
    args.providers = [p for p in args.providers.split(",") if p]
    unknown = [p for p in args.providers if p not in PROVIDERS]
    if unknown or not args.providers:
        ap.error(f"--providers: unknown '{','.join(unknown)}' (known: {', '.join(PROVIDERS)})")
    if args.calls < 1 or args.replays < 1:
        ap.error("--calls and --replays must be at least 1")
    return args


def main(argv):
    args = parse_args(argv)
    if args.list:
        for name, (dtype, scale) in PROVIDERS.items():
            print(f"{name:18} {dtype:5} {scale}")
        for name in GRIDS:
            print(f"grid {name}: {len(grid_shapes(name))} shapes")
        return 0
    try:
        require_cuda()  # before --out is created: no empty file from a host without torch
        out = open(args.out, "w") if args.out else sys.stdout
    except PeersUnavailable as e:
        print(f"peers: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"peers: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return 2

    def emit(row):
        print(json.dumps(row), file=out, flush=True)
    try:
        run(args.shapes, args.providers, emit, args.calls, args.replays, args.budget)
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # the reader (head, less) left: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
