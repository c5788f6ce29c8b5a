"""Kernel by kernel inside CUDA-graph replays: our scaled_mm (w8a8jit) beside torch._scaled_mm.

A graph of N calls (N weight and activation buffers, as peers.py builds it) is replayed under
torch.profiler (CUPTI); for each provider and shape one JSON line gives the graph-timed time a
call (CUDA events over whole replays, as peers.py reports it: graph_us) and the host's time in
the replay call (replay_host_us, which that timing includes when the GPU waits for it), the
kernels' own durations, the gaps from one kernel's end to the next one's start inside a replay
(negative when they overlap), a replay's span from its first kernel's start to its last one's
end (replay_span_us), the kernel names and the first replay's activities. Where a provider's
kernel alone runs as fast as the peer's yet its graph time trails, the difference lies between
the kernels (session 33, D3-D7: it was the host's replay call, the same for both).

    python3 bench/graph_trace.py --shape 1,57344,8192 [--shape ...] [--scale tensor|row]
        [--calls 20] [--replays 10] [--out FILE]

Needs a GPU, torch with CUDA and the w8a8jit package (scripts/gpu-python.sh install)."""
import argparse
import json
import statistics
import sys

import torch
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile


def providers(m, n, k, scale, calls):
    e4m3 = torch.float8_e4m3fn
    xs = [torch.randn(m, k, device="cuda").to(e4m3) for _ in range(calls)]
    ws = [torch.randn(n, k, device="cuda").to(e4m3) for _ in range(calls)]
    if scale == "tensor":
        sa = [torch.ones(1, 1, device="cuda") for _ in range(calls)]
        sb = [torch.ones(1, 1, device="cuda") for _ in range(calls)]
    else:
        sa = [torch.rand(m, 1, device="cuda") + 0.5 for _ in range(calls)]
        sb = [torch.rand(1, n, device="cuda") + 0.5 for _ in range(calls)]
    import w8a8jit

    def ours(i):
        return w8a8jit.scaled_mm(xs[i], ws[i].t(), sa[i], sb[i], torch.bfloat16)

    def theirs(i):
        return torch._scaled_mm(xs[i], ws[i].t(), scale_a=sa[i], scale_b=sb[i],
                                out_dtype=torch.bfloat16, use_fast_accum=True)

    return {"w8a8jit": ours, f"torch.{scale}.fast": theirs}


def graph_of(fn, calls):
    for i in range(calls):  # compile / load the kernels before the capture
        fn(i)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            fn(i)
    return g


def graph_us(g, calls, replays):
    g.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(replays):
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0 / calls)
    return statistics.median(times)


def kernels(g, replays):
    """The replays' GPU activities in time order, and per replay the time from the end of a
    small marker kernel launched right before it to the replay's first activity (the host's
    launch of the replay included whenever the marker ends before the replay is submitted)."""
    marker = torch.zeros(1, device="cuda")
    g.replay()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(replays):
            marker.add_(1)
            g.replay()
            torch.cuda.synchronize()
    evs = sorted((e.time_range.start, e.time_range.end, e.name) for e in prof.events()
                 if e.device_type == DeviceType.CUDA)
    out, startup, last_marker = [], [], None
    for s, e, name in evs:
        if "elementwise" in name:  # the marker's add_
            last_marker = e
            continue
        if last_marker is not None:
            startup.append(s - last_marker)
            last_marker = None
        out.append((s, e, name))
    return out, startup


def summarize(evs, calls):
    """Durations and gaps of the GPU activities (kernels, memsets, copies) in time order; the
    gaps inside a replay (the first `calls` activities of it when each call is one kernel)."""
    if not evs:
        return {"kernels": 0}
    durs = [e - s for s, e, _ in evs]
    per_replay = len(evs) // max(1, len(evs) // calls)
    gaps = []
    for r in range(len(evs) // per_replay):
        chunk = evs[r * per_replay:(r + 1) * per_replay]
        gaps += [chunk[i + 1][0] - chunk[i][1] for i in range(len(chunk) - 1)]
    q = statistics.quantiles(gaps, n=10) if len(gaps) > 1 else [None] * 9
    span = [evs[(r + 1) * per_replay - 1][1] - evs[r * per_replay][0]
            for r in range(len(evs) // per_replay)]
    return {"kernels": len(evs), "per_replay": per_replay,
            "kernel_us": statistics.median(durs), "kernel_us_min": min(durs),
            "kernel_us_mean": statistics.fmean(durs),
            "gap_us": statistics.median(gaps) if gaps else None,
            "gap_us_mean": statistics.fmean(gaps) if gaps else None,
            "gap_us_p10": q[0], "gap_us_p90": q[-1], "gap_us_max": max(gaps) if gaps else None,
            "replay_span_us": statistics.median(span) if span else None,
            "names": sorted({n[:90] for _, _, n in evs}),
            "first_replay": [[round(s - evs[0][0], 2), round(e - s, 2)]
                             for s, e, _ in evs[:per_replay]]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", action="append", required=True, help="M,N,K (repeatable)")
    ap.add_argument("--scale", default="tensor", choices=("tensor", "row"))
    ap.add_argument("--calls", type=int, default=20, help="calls a graph (buffers: as many)")
    ap.add_argument("--replays", type=int, default=10)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    sink = open(args.out, "a") if args.out else sys.stdout
    for shape in args.shape:
        m, n, k = (int(v) for v in shape.split(","))
        for name, fn in providers(m, n, k, args.scale, args.calls).items():
            g = graph_of(fn, args.calls)
            row = {"provider": name, "m": m, "n": n, "k": k, "scale": args.scale,
                   "graph_us": graph_us(g, args.calls, args.replays)}
            evs, startup = kernels(g, args.replays)
            row.update(summarize(evs, args.calls))
            row["startup_us"] = statistics.median(startup) if startup else None
            row["startup_us_max"] = max(startup) if startup else None
            print(json.dumps(row), file=sink, flush=True)
            del g
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
