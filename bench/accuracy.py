#!/usr/bin/env python3
"""Accuracy of scaled FP8 matmuls against a float64 reference: ours (w8a8jit.scaled_mm, fast and
promoted accumulation) beside torch._scaled_mm (cuBLASLt: default = promoted, use_fast_accum),
on the same quantized inputs, for per-tensor, per-row and 1x128 x 128x128 block scales.

Inputs are bf16-like activations (normal, with a few large outlier columns, as LLM activations
have) and weights (normal, std 0.02), quantized to e4m3 the way vLLM does (amax / 448 per
tensor, row or block). The reference is the float64 product of the dequantized codes, so only
the matmul's own error is measured (accumulation, rounding of the output), not quantization.

Error per provider: RMS relative, sqrt(mean((out - ref)^2)) / sqrt(mean(ref^2)), and max
relative, max|out - ref| / max|ref|.

usage: PYTHONPATH=python W8A8_LIBRARY=build/static/libw8a8jit.so \\
       python3 bench/accuracy.py [--m 512] [--n 4096] [--k 1024,4096,7168,16384]
                                 [--out bf16,fp32] [--json FILE]
Prints one table row per (scale kind, K, out dtype, provider); --json also writes the rows as
JSON lines. A provider that cannot run a combination (torch's block path with fp32 out, say)
prints "n/a" with the reason in the JSON.
"""
import argparse
import json
import sys

import torch

import w8a8jit

E4M3 = torch.float8_e4m3fn
FP8_MAX = 448.0
GROUP = 128
OUTS = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
DEV = "cuda" if torch.cuda.is_available() else "cpu"  # cpu: a dry run of the script itself


def activations(m, k, gen):
    x = torch.randn(m, k, generator=gen, device=DEV)
    outliers = torch.randperm(k, generator=gen, device=DEV)[: max(1, k // 256)]
    x[:, outliers] *= 20.0
    return x.to(torch.bfloat16).float()


def weights(n, k, gen):
    return (torch.randn(n, k, generator=gen, device=DEV) * 0.02).to(torch.bfloat16).float()


def quantize(t, rows, cols):
    """Codes and float32 scales of t with one scale per rows x cols block (t's shape: one
    scale)."""
    r, c = t.shape
    rb, cb = -(-r // rows), -(-c // cols)
    padded = torch.zeros(rb * rows, cb * cols, device=t.device)
    padded[:r, :c] = t
    blocks = padded.view(rb, rows, cb, cols)
    amax = blocks.abs().amax(dim=(1, 3)).clamp_min(1e-12)
    scale = amax / FP8_MAX
    codes = (blocks / scale[:, None, :, None]).clamp(-FP8_MAX, FP8_MAX).to(E4M3)
    return codes.view(rb * rows, cb * cols)[:r, :c].contiguous(), scale.float()


def dequantize(codes, scale, rows, cols):
    s = scale.repeat_interleave(rows, 0).repeat_interleave(cols, 1)[: codes.shape[0], : codes.shape[1]]
    return codes.double() * s.double()


def case(kind, m, n, k, gen):
    """Codes, the scales in our and torch's layouts, and the float64 reference."""
    x, w = activations(m, k, gen), weights(n, k, gen)
    if kind == "tensor":
        xa, xs = quantize(x, m, k)
        wa, ws = quantize(w, n, k)
        ref = dequantize(xa, xs, m, k) @ dequantize(wa, ws, n, k).t()
        sa, sb = xs.reshape(1, 1), ws.reshape(1, 1)
        return xa, wa, (sa, sb), (sa.reshape(()), sb.reshape(())), ref
    if kind == "row":
        xa, xs = quantize(x, 1, k)
        wa, ws = quantize(w, 1, k)
        ref = dequantize(xa, xs, 1, k) @ dequantize(wa, ws, 1, k).t()
        sa, sb = xs.reshape(m, 1), ws.reshape(1, n)
        return xa, wa, (sa, sb), (sa, sb), ref
    xa, xs = quantize(x, 1, GROUP)      # (m, k/128)
    wa, ws = quantize(w, GROUP, GROUP)  # (n/128, k/128)
    ref = dequantize(xa, xs, 1, GROUP) @ dequantize(wa, ws, GROUP, GROUP).t()
    # torch wants A's scales column-major (M, K/128) and B's as (K/128, N/128) column-major;
    # ours takes either order, so both get the same tensors
    sa = xs.t().contiguous().t()
    sb = ws.contiguous().t()
    return xa, wa, (sa, sb), (sa, sb), ref


def errors(out, ref):
    d = out.double() - ref
    return (float(d.pow(2).mean().sqrt() / ref.pow(2).mean().sqrt()),
            float(d.abs().max() / ref.abs().max()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--m", type=int, default=512)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", default="1024,4096,7168,16384")
    ap.add_argument("--out", default="bf16,fp32")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    sink = open(args.json, "w") if args.json else None
    print(f"{'scale':7} {'K':>6} {'out':5} {'provider':22} {'rms rel':>10} {'max rel':>10}")
    for kind in ("tensor", "row", "block"):
        for k in (int(v) for v in args.k.split(",")):
            gen = torch.Generator(device=DEV).manual_seed(args.seed + k)
            xa, wa, ours_s, torch_s, ref = case(kind, args.m, args.n, k, gen)
            for out_name in args.out.split(","):
                dtype = OUTS[out_name]
                providers = {
                    "w8a8jit.fast": lambda: w8a8jit.scaled_mm(xa, wa.t(), *ours_s, dtype,
                                                              use_fast_accum=True),
                    "w8a8jit.promoted": lambda: w8a8jit.scaled_mm(xa, wa.t(), *ours_s, dtype,
                                                                  use_fast_accum=False),
                    "torch": lambda: torch._scaled_mm(xa, wa.t(), scale_a=torch_s[0],
                                                      scale_b=torch_s[1], out_dtype=dtype),
                    "torch.fast": lambda: torch._scaled_mm(xa, wa.t(), scale_a=torch_s[0],
                                                           scale_b=torch_s[1], out_dtype=dtype,
                                                           use_fast_accum=True),
                }
                if kind == "block":  # block scales always promote: one path each
                    providers = {"w8a8jit": providers["w8a8jit.promoted"],
                                 "torch": providers["torch"]}
                for name, run in providers.items():
                    row = {"scale": kind, "m": args.m, "n": args.n, "k": k, "out": out_name,
                           "provider": name}
                    try:
                        row["rms_rel"], row["max_rel"] = errors(run(), ref)
                        print(f"{kind:7} {k:>6} {out_name:5} {name:22} {row['rms_rel']:10.3e} "
                              f"{row['max_rel']:10.3e}")
                    except Exception as e:  # noqa: BLE001 - a peer's unsupported combination
                        row["error"] = str(e).splitlines()[0][:200]
                        print(f"{kind:7} {k:>6} {out_name:5} {name:22} {'n/a':>10} {'n/a':>10}")
                    rows.append(row)
                    if sink:
                        sink.write(json.dumps(row) + "\n")
                        sink.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
