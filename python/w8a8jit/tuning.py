"""Tuning and explanations from Python: w8a8_tune, w8a8_dispatch_explain and the tune-on-miss
policy (W8A8_TUNE, read by the library when a context's dispatcher first runs)."""
from __future__ import annotations

import ctypes as C
from typing import Iterable, Optional, Sequence

import torch

from . import _lib
from .ops import BLOCK, _AB_TYPES, _OUT_TYPES

_SCALES = {"tensor": _lib.SCALE_TENSOR, "row": _lib.SCALE_ROW, "block": _lib.SCALE_BLOCK}
_TUNE_STATUS_OK = (_lib.OK, 12)  # W8A8_OK, W8A8_BUDGET_SPENT (partial results)


def problem(m: int, n: int, k: int, dtype: torch.dtype = torch.float8_e4m3fn,
            scales: Sequence[str] = ("tensor", "tensor"), out_dtype: torch.dtype = torch.bfloat16,
            bias: bool = False) -> _lib.Problem:
    """A problem class: sizes, the operand dtype, the scale kinds of A and B ("tensor",
    "row", "block": 1×128 for A, 128×128 for B), the output dtype, whether a bias is added."""
    if dtype not in _AB_TYPES or out_dtype not in _OUT_TYPES:
        raise _lib.InvalidError(f"w8a8jit: unsupported dtypes {dtype} → {out_dtype}")
    if len(scales) != 2 or any(s not in _SCALES for s in scales):
        raise _lib.InvalidError(f"w8a8jit: scales must be two of {sorted(_SCALES)}, got {scales!r}")
    p = _lib.Problem(m=m, n=n, k=k, a_type=_AB_TYPES[dtype], b_type=_AB_TYPES[dtype],
                     out_type=_OUT_TYPES[out_dtype])
    p.bias_type = p.out_type if bias else _lib.DTYPE_NONE
    for layout, kind, rows in ((p.a_scale, scales[0], 1), (p.b_scale, scales[1], BLOCK)):
        layout.kind = _SCALES[kind]
        if kind == "block":
            layout.group_rows, layout.group_k = rows, BLOCK
    return p


def _device_ordinal(device) -> Optional[int]:
    if device is None:
        return torch.cuda.current_device() if torch.cuda.is_available() else None
    device = torch.device(device)
    if device.type == "cpu":
        return None
    return device.index if device.index is not None else torch.cuda.current_device()


def explain(m: int, n: int, k: int, dtype: torch.dtype = torch.float8_e4m3fn,
            scales: Sequence[str] = ("tensor", "tensor"), out_dtype: torch.dtype = torch.bfloat16,
            bias: bool = False, device=None) -> dict:
    """Which kernel scaled_mm runs for this problem on `device` (default: the current CUDA
    device, else CPU), and why: family, config, match ("exact", "product", "arch", "bucket",
    "epilogue", "space default", "reference"), reason, source database, … Compiles nothing."""
    ctx = _lib.context(_device_ordinal(device))
    p = problem(m, n, k, dtype, scales, out_dtype, bias)
    out = _lib.Explain()
    ctx.check(_lib.lib.w8a8_dispatch_explain(ctx.handle, C.byref(p), C.byref(out)),
              "w8a8jit.explain")
    return _lib.struct_dict(out)


def set_tune_mode(mode: str, device=None) -> None:
    """Overrides W8A8_TUNE for a device's context: "off" (cache, then defaults), "record"
    (also remember missed keys for `w8a8 tune --untuned`) or "online" (tune a missed key on
    its first call). Keys already dispatched keep their kernel."""
    parsed = C.c_int()
    ctx = _lib.context(_device_ordinal(device))
    ctx.check(_lib.lib.w8a8_tune_mode_parse(str(mode).encode(), C.byref(parsed)),
              "w8a8jit.set_tune_mode")
    ctx.check(_lib.lib.w8a8_dispatch_set_tune_mode(ctx.handle, parsed.value),
              "w8a8jit.set_tune_mode")


def tune(shapes: Iterable[Sequence[int]], dtype: torch.dtype = torch.float8_e4m3fn,
         scales: Sequence[str] = ("tensor", "tensor"), out_dtype: torch.dtype = torch.bfloat16,
         bias: bool = False, budget: Optional[float] = None, space: Optional[str] = None,
         force: bool = False, max_candidates: int = 0, settle_ms: int = 0,
         seed: bool = False, device=None) -> dict:
    """Tunes (m, n, k) shapes on a CUDA device (m rounds up to its bucket) and stores every
    measurement in the user's tuning database; this process's dispatched keys switch to the
    winners. budget: seconds for the whole call. settle_ms (0..1000): the GPU idles that long
    before each finalist's timing, as `w8a8 tune --settle` (steadier final times, 24 idles a
    key). seed (with space): also time the cache's winners that the space's template runs,
    as a tune without space always does, so the winner is never slower than what ran before
    (`w8a8 tune --space S --seed`). Returns {"results": [per shape: family, config, best_us,
    default_us, status, …],
    "seconds", "budget_spent", "profile"}."""
    if not 0 <= int(settle_ms) <= 1000:
        raise _lib.InvalidError(f"w8a8jit.tune: settle_ms {settle_ms} is not 0..1000")
    if seed and not space:
        raise _lib.InvalidError("w8a8jit.tune: seed goes with space (a tune without one "
                                "always times the cache's winners first)")
    ordinal = _device_ordinal(device)
    if ordinal is None:
        raise _lib.NoDeviceError("w8a8jit.tune: tuning needs a CUDA device")
    ctx = _lib.context(ordinal)
    shapes = [tuple(int(v) for v in s) for s in shapes]
    if not shapes or any(len(s) != 3 for s in shapes):
        raise _lib.InvalidError("w8a8jit.tune: shapes must be a non-empty list of (m, n, k)")
    problems = (_lib.Problem * len(shapes))(*(problem(m, n, k, dtype, scales, out_dtype, bias)
                                              for m, n, k in shapes))
    options = _lib.TuneOptions(problems=problems, problem_count=len(shapes),
                               space=space.encode() if space else None,
                               budget_seconds=float(budget or 0), force=int(force),
                               max_candidates=int(max_candidates),
                               final_settle_ms=int(settle_ms), seed_space=int(bool(seed)))
    report = _lib.TuneReport()
    status = _lib.lib.w8a8_tune(ctx.handle, C.byref(options), None, None, C.byref(report))
    try:
        if status not in _TUNE_STATUS_OK:
            ctx.check(status, "w8a8jit.tune")
        results = []
        for i in range(report.count):
            r = _lib.struct_dict(report.results[i])
            r["status"] = _lib.lib.w8a8_status_string(r["status"]).decode()
            results.append(r)
        return {"results": results, "seconds": report.seconds,
                "budget_spent": bool(report.budget_spent),
                "profile": _lib.struct_dict(report.profile)}
    finally:
        _lib.lib.w8a8_tune_report_free(C.byref(report))


def host_overhead(m: int, n: int, k: int, dtype: torch.dtype = torch.float8_e4m3fn,
                  scales: Sequence[str] = ("tensor", "tensor"),
                  out_dtype: torch.dtype = torch.bfloat16, calls: int = 2000, device=None):
    """Host µs per w8a8_scaled_mm call from C on a warmed key (median chunk, fastest chunk):
    the C path's cost, to compare with the Python op's."""
    ordinal = _device_ordinal(device)
    if ordinal is None:
        raise _lib.NoDeviceError("w8a8jit.host_overhead: needs a CUDA device")
    ctx = _lib.context(ordinal)
    p = problem(m, n, k, dtype, scales, out_dtype)
    med, best = C.c_double(), C.c_double()
    ctx.check(_lib.lib.w8a8_bench_host_overhead(ctx.handle, C.byref(p), calls, C.byref(med),
                                                C.byref(best)), "w8a8jit.host_overhead")
    return med.value, best.value
