"""The torch ops: scaled_mm and quantization, registered as torch.library custom ops
(namespace `w8a8jit`) with fake implementations, so they trace under torch.compile and run
inside captured CUDA graphs.

CUDA tensors run on the GPU, asynchronously on the current stream, with no host
synchronization (w8a8_scaled_mm / w8a8_quantize). CPU tensors run the library's CPU
reference (fp64 accumulation; slow, for tests). Every argument is checked before anything
runs; a bad one raises InvalidError (a ValueError) carrying the library's message.

CUDA graphs: the first call for a problem class compiles or loads its kernel, which is not
allowed while a stream captures. Run each shape once before capturing (what vLLM's and
torch.compile's warm-up does anyway)."""
from __future__ import annotations

import ctypes as C
from typing import Optional

import torch
from torch.utils import _python_dispatch

from . import _lib
from ._lib import InvalidError

BLOCK = 128  # vLLM's block FP8: A in 1×128 groups, B in 128×128 blocks

_AB_TYPES = {torch.float8_e4m3fn: _lib.E4M3, torch.float8_e5m2: _lib.E5M2, torch.int8: _lib.INT8}
_OUT_TYPES = {torch.bfloat16: _lib.BF16, torch.float16: _lib.FP16, torch.float32: _lib.FP32}
_Q_TYPES = {torch.float8_e4m3fn: _lib.E4M3, torch.int8: _lib.INT8}
_MODES = {"static": _lib.QUANT_STATIC, "tensor": _lib.QUANT_TENSOR, "token": _lib.QUANT_TOKEN,
          "group": _lib.QUANT_GROUP}


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _ptr(t: Optional[torch.Tensor]):
    return None if t is None else t.data_ptr()


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise InvalidError(message)


def _context_for(t: torch.Tensor) -> _lib.Context:
    if t.device.type == "cuda":
        return _lib.context(t.device.index if t.device.index is not None
                            else torch.cuda.current_device())
    if t.device.type == "cpu":
        return _lib.context(None)
    raise InvalidError(f"w8a8jit: tensors on {t.device} are not supported (CUDA or CPU)")


def _same_device(name: str, t: Optional[torch.Tensor], device: torch.device) -> None:
    if t is not None and t.device != device:
        raise InvalidError(f"w8a8jit: {name} is on {t.device}, a is on {device}")


if hasattr(torch._C, "_cuda_getCurrentRawStream"):
    def _stream(device: torch.device):
        return torch._C._cuda_getCurrentRawStream(device.index)
else:  # pragma: no cover - older torch
    def _stream(device: torch.device):
        return torch.cuda.current_stream(device).cuda_stream


# ---- scaled_mm ------------------------------------------------------------------------------
def _row_scale_ok(s: torch.Tensor, rows: int) -> bool:
    """A per-row scale vector: rows floats, shape (rows,), (rows, 1) or (1, rows), dense."""
    if s.numel() != rows or s.dim() > 2 or (s.dim() == 2 and 1 not in s.shape):
        return False
    if rows == 1:
        return True
    return s.stride(list(s.shape).index(rows)) == 1


def _block_layout(s: torch.Tensor, rows_dim: int, group_rows: int, name: str,
                  shape: tuple) -> _lib.ScaleLayout:
    """Block scales given as a 2-D tensor of `shape`; rows_dim is the dimension that runs
    over the operand's row blocks (A: 0 of (M, K/128); B: 1 of (K/128, N/128))."""
    _require(s.dim() == 2 and tuple(s.shape) == shape,
             f"w8a8jit: {name} of block scales must have shape {shape}, got {tuple(s.shape)}")
    k_dim = 1 - rows_dim
    layout = _lib.ScaleLayout(kind=_lib.SCALE_BLOCK, group_rows=group_rows, group_k=BLOCK)
    if s.stride(k_dim) == 1 or s.shape[k_dim] == 1:
        # [row block][k block]: row-major in the library's terms
        layout.k_major, layout.ld = 0, max(s.stride(rows_dim), s.shape[k_dim])
    elif s.stride(rows_dim) == 1 or s.shape[rows_dim] == 1:
        layout.k_major, layout.ld = 1, max(s.stride(k_dim), s.shape[rows_dim])
    else:
        raise InvalidError(f"w8a8jit: {name} must be dense along one dimension, got strides "
                           f"{tuple(s.stride())}")
    return layout


def _scale_layouts(a, b, scale_a, scale_b):
    m, k = a.shape
    n = b.shape[1]
    k_blocks = _cdiv(k, BLOCK)
    for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
        _require(s.dtype == torch.float32, f"w8a8jit: {name} must be float32, got {s.dtype}")
    # A: (1,1) per tensor; (M,1) per token; (M, K/128) 1×128 groups.
    if scale_a.numel() == 1:
        la = _lib.ScaleLayout(kind=_lib.SCALE_TENSOR)
    elif scale_a.dim() == 2 and tuple(scale_a.shape) == (m, k_blocks) and k_blocks > 1:
        la = _block_layout(scale_a, 0, 1, "scale_a", (m, k_blocks))
    elif _row_scale_ok(scale_a, m):
        la = _lib.ScaleLayout(kind=_lib.SCALE_ROW)
    else:
        raise InvalidError(f"w8a8jit: scale_a has shape {tuple(scale_a.shape)} (strides "
                           f"{tuple(scale_a.stride())}); for a of {m}×{k} expected (1, 1), "
                           f"({m}, 1) or ({m}, {k_blocks}) (1×{BLOCK} groups)")
    # B: (1,1) per tensor; (1,N) / (N,1) per channel; (K/128, N/128) 128×128 blocks.
    n_blocks = _cdiv(n, BLOCK)
    block_shape = (k_blocks, n_blocks)
    if scale_b.numel() == 1:
        lb = _lib.ScaleLayout(kind=_lib.SCALE_TENSOR)
    elif la.kind == _lib.SCALE_BLOCK and scale_b.dim() == 2 and tuple(scale_b.shape) == block_shape:
        lb = _block_layout(scale_b, 1, BLOCK, "scale_b", block_shape)
    elif _row_scale_ok(scale_b, n):
        lb = _lib.ScaleLayout(kind=_lib.SCALE_ROW)
    elif scale_b.dim() == 2 and tuple(scale_b.shape) == block_shape:
        lb = _block_layout(scale_b, 1, BLOCK, "scale_b", block_shape)
    else:
        raise InvalidError(f"w8a8jit: scale_b has shape {tuple(scale_b.shape)} (strides "
                           f"{tuple(scale_b.stride())}); for b of {k}×{n} expected (1, 1), "
                           f"(1, {n}) or ({n}, 1), or {block_shape} ({BLOCK}×{BLOCK} blocks)")
    return la, lb


def _mm_problem(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp,
                use_fast_accum=True) -> _lib.Problem:
    """The library's problem for vLLM's conventions, from shapes, strides and dtypes only (so
    fake tensors work), validated by the library."""
    _require(isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor),
             "w8a8jit: a and b must be tensors")
    _require(a.dim() == 2 and b.dim() == 2,
             f"w8a8jit: a and b must be 2-D (a: M×K, b: K×N), got {a.dim()}-D and {b.dim()}-D")
    m, k = a.shape
    k_b, n = b.shape
    _require(k == k_b, f"w8a8jit: a is {m}×{k} but b is {k_b}×{n}: inner dimensions differ")
    _require(a.dtype in _AB_TYPES, f"w8a8jit: a must be float8_e4m3fn, float8_e5m2 or int8, "
             f"got {a.dtype}")
    _require(b.dtype in _AB_TYPES, f"w8a8jit: b must be float8_e4m3fn, float8_e5m2 or int8, "
             f"got {b.dtype}")
    _require(out_dtype in _OUT_TYPES,
             f"w8a8jit: out_dtype must be bfloat16, float16 or float32, got {out_dtype}")
    _require(m >= 1 and n >= 1 and k >= 1, f"w8a8jit: empty product ({m}×{k} by {k}×{n})")
    _require(a.stride(1) == 1 or k == 1,
             f"w8a8jit: a must have contiguous rows (stride (lda, 1)), got {tuple(a.stride())}")
    _require(b.stride(0) == 1 or k == 1,
             f"w8a8jit: b must be the K×N column-major view of an N×K weight (weight.t()), "
             f"got strides {tuple(b.stride())}")
    device = a.device
    for name, t in (("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias),
                    ("azp_adj", azp_adj), ("azp", azp)):
        _same_device(name, t, device)
    p = _lib.Problem(m=m, n=n, k=k, a_type=_AB_TYPES[a.dtype], b_type=_AB_TYPES[b.dtype],
                     out_type=_OUT_TYPES[out_dtype],
                     lda=a.stride(0) if m > 1 else k, ldb=b.stride(1) if n > 1 else k,
                     accum=_lib.ACCUM_FAST if use_fast_accum else _lib.ACCUM_PROMOTED)
    p.a_scale, p.b_scale = _scale_layouts(a, b, scale_a, scale_b)
    if bias is not None:
        _require(bias.dtype in (out_dtype, torch.float32),
                 f"w8a8jit: bias must be {out_dtype} or float32, got {bias.dtype}")
        _require(bias.numel() == n and (bias.dim() == 1 or bias.is_contiguous()),
                 f"w8a8jit: bias must have {n} elements, got shape {tuple(bias.shape)}")
        _require(bias.is_contiguous(), "w8a8jit: bias must be contiguous")
        p.bias_type = _OUT_TYPES[bias.dtype]
    if azp is not None and azp_adj is None:
        raise InvalidError("w8a8jit: azp needs azp_adj (the weight's column sums, int32)")
    if azp_adj is not None:
        _require(azp_adj.dtype == torch.int32 and azp_adj.numel() == n and azp_adj.is_contiguous(),
                 f"w8a8jit: azp_adj must be {n} contiguous int32 values, got "
                 f"{azp_adj.dtype} of shape {tuple(azp_adj.shape)}")
        if azp is None:
            p.azp = _lib.AZP_TENSOR  # vLLM folds a per-tensor zero point into azp_adj
        else:
            _require(azp.dtype == torch.int32 and azp.numel() == m and azp.is_contiguous(),
                     f"w8a8jit: azp must be {m} contiguous int32 values (one per token), got "
                     f"{azp.dtype} of shape {tuple(azp.shape)}")
            p.azp = _lib.AZP_TOKEN
    _lib.context(None).check(_lib.lib.w8a8_problem_validate(_lib.context(None).handle,
                                                            C.byref(p)), "w8a8jit.scaled_mm")
    return p


_ones_i32: dict = {}


def _one_int32(device: torch.device) -> torch.Tensor:
    """A device-resident int32 1: the per-tensor zero point when vLLM folded it into azp_adj."""
    t = _ones_i32.get(device)
    if t is None:
        t = _ones_i32[device] = torch.ones(1, dtype=torch.int32, device=device)
    return t


# Validated problems by what validation reads (dtype, shape, strides, device of every tensor;
# the other arguments): a serving loop calls a few dozen shapes over and over, and building and
# validating a problem costs more host time than the rest of the call (2026-12-04, on this
# project's CPU host: 9–10 µs of a scaled_mm call). Only problems that passed are kept; the
# library's own validation still runs on every call, in C.
_PROBLEMS: dict = {}
_PROBLEMS_MAX = 4096


def _sig(t: Optional[torch.Tensor]):
    return None if t is None else (t.dtype, t.shape, t.stride(), t.device)


def _key(tag: str, tensors: tuple, others: tuple):
    """A memo key: the tag, each tensor's signature, the other arguments; None when an
    argument is not what it should be (the builder then says what is wrong)."""
    try:
        return (tag, *[_sig(t) for t in tensors], *others)
    except (AttributeError, TypeError):
        return None


def _memo(key, build, *args):
    """build(*args)'s answer for key, from _PROBLEMS when a call with the same key passed
    before (a key None or unhashable: not memoized)."""
    try:
        hit = _PROBLEMS.get(key)
    except TypeError:
        key = hit = None
    if hit is None:
        hit = build(*args)
        if key is not None:
            if len(_PROBLEMS) >= _PROBLEMS_MAX:
                _PROBLEMS.clear()
            _PROBLEMS[key] = hit
    return hit


def _mm_entry(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, use_fast_accum):
    """What a call needs of its problem, read once: (problem, a's context, M, N, zero-point
    kind, device, on CUDA)."""
    p = _mm_problem(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, use_fast_accum)
    return (p, _context_for(a), p.m, p.n, p.azp, a.device, a.device.type == "cuda")


def _scaled_mm_impl(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp,
                    use_fast_accum=True) -> torch.Tensor:
    key = _key("mm", (a, b, scale_a, scale_b, bias, azp_adj, azp),
               (out_dtype, bool(use_fast_accum)))
    p, ctx, m, n, azp_kind, device, on_cuda = _memo(
        key, _mm_entry, a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, use_fast_accum)
    out = torch.empty((m, n), dtype=out_dtype, device=device)
    azp_ptr = None
    if azp_kind == _lib.AZP_TOKEN:
        azp_ptr = azp.data_ptr()
    elif azp_kind == _lib.AZP_TENSOR:
        azp_ptr = _one_int32(device).data_ptr()
    t = _lib.Tensors(a.data_ptr(), b.data_ptr(), out.data_ptr(), scale_a.data_ptr(),
                     scale_b.data_ptr(), _ptr(bias), azp_ptr, _ptr(azp_adj))
    if on_cuda:
        status = _lib.lib.w8a8_scaled_mm(ctx.handle, C.byref(p), C.byref(t), _stream(device))
    else:
        status = _lib.lib.w8a8_scaled_mm_cpu(ctx.handle, C.byref(p), C.byref(t))
    ctx.check(status, "w8a8jit.scaled_mm")
    return out


@torch.library.custom_op("w8a8jit::scaled_mm", mutates_args=())
def _scaled_mm_op(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor,
                  scale_b: torch.Tensor, out_dtype: torch.dtype, bias: Optional[torch.Tensor],
                  azp_adj: Optional[torch.Tensor], azp: Optional[torch.Tensor],
                  use_fast_accum: bool = True) -> torch.Tensor:
    return _scaled_mm_impl(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp,
                           use_fast_accum)


def _plain_eager(*tensors) -> bool:
    """True when a call can skip the torch dispatcher and run the op's body directly: not
    under torch.compile or a dispatch mode (fake tensors, tracing), on CUDA or the CPU, every
    tensor a plain torch.Tensor that needs no gradient. The dispatcher's Python custom-op path
    costs more host time than the whole call otherwise (on an H100 host, 2026-11-23: 45 µs a
    call through it, against 20 µs for torch._scaled_mm)."""
    if torch.compiler.is_compiling() or _python_dispatch._get_current_dispatch_mode() is not None:
        return False
    if tensors[0].device.type not in ("cuda", "cpu"):  # meta tensors: the fake impl answers
        return False
    for t in tensors:
        if t is not None and (type(t) is not torch.Tensor or t.requires_grad):
            return False
    return True


@_scaled_mm_op.register_fake
def _(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, use_fast_accum=True):
    _mm_problem(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, use_fast_accum)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


def scaled_mm(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
              out_dtype: torch.dtype, bias: Optional[torch.Tensor] = None,
              azp_adj: Optional[torch.Tensor] = None,
              azp: Optional[torch.Tensor] = None,
              use_fast_accum: bool = True) -> torch.Tensor:
    """out = (scale_a ⊙ a) @ (scale_b ⊙ b) (+ bias), vLLM's cutlass_scaled_mm conventions.

    a        M×K float8_e4m3fn / float8_e5m2 / int8, rows contiguous.
    b        K×N, the column-major view of an N×K weight (`weight.t()`), same family.
    scale_a  float32: (1, 1) per tensor, (M, 1) per token, or (M, K/128) 1×128 groups
             (row- or column-major).
    scale_b  float32: (1, 1) per tensor, (1, N) or (N, 1) per channel, or (K/128, N/128)
             128×128 blocks (either major order). Any A kind with any B kind.
    bias     N values of out_dtype or float32.
    azp_adj  int8 only: int32 (N,) = Σ_k w[n, k] (per-token azp) or azp · Σ_k w[n, k]
             (per-tensor, azp None): out = sa·sb·(a·b − azp·azp_adj) (+ bias).
    azp      int32 (M,) per-token zero points, with azp_adj.
    use_fast_accum  FP8 with per-tensor / per-row scales: True (the default) sums in the
             tensor core's reduced-precision accumulator over the whole K; False promotes
             partial sums of 128 into fp32 (torch._scaled_mm's default, more accurate on
             long K). Block scales always promote and INT8 sums exactly: no effect there.
    Returns a new M×N tensor of out_dtype."""
    if _plain_eager(a, b, scale_a, scale_b, bias, azp_adj, azp):
        return _scaled_mm_impl(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp,
                               use_fast_accum)
    return _scaled_mm_op(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, use_fast_accum)


# ---- quantization ---------------------------------------------------------------------------
def _quant_problem(x, out_dtype, mode, group_k, scale_k_major, asymmetric, min_amax, m_pad,
                   scale_ld=0) -> _lib.QuantProblem:
    _require(x.dim() == 2, f"w8a8jit: quantize takes a 2-D input (M×K), got {x.dim()}-D")
    _require(x.dtype in _OUT_TYPES,
             f"w8a8jit: quantize input must be bfloat16, float16 or float32, got {x.dtype}")
    _require(out_dtype in _Q_TYPES,
             f"w8a8jit: quantize output must be float8_e4m3fn or int8, got {out_dtype}")
    _require(x.stride(1) == 1 or x.shape[1] == 1,
             f"w8a8jit: quantize input rows must be contiguous, got strides {tuple(x.stride())}")
    m, k = x.shape
    q = _lib.QuantProblem(m=m, k=k, in_type=_OUT_TYPES[x.dtype], out_type=_Q_TYPES[out_dtype],
                          mode=mode, group_k=group_k, scale_k_major=int(scale_k_major),
                          scale_ld=scale_ld, m_pad=m_pad, asymmetric=int(asymmetric),
                          min_amax=min_amax, ld_in=x.stride(0) if m > 1 else k)
    ctx = _lib.context(None)
    ctx.check(_lib.lib.w8a8_quant_problem_validate(ctx.handle, C.byref(q)), "w8a8jit.quantize")
    return q


def _dynamic_outputs(x, out_dtype, q):
    """Allocates codes, scales and zero points of a dynamic quantization; returns them with the
    scale leading dimension the library must use."""
    m_out = _lib.lib.w8a8_quant_rows_out(C.byref(q))
    k = q.k
    codes = x.new_empty((m_out, k), dtype=out_dtype)
    if q.mode == _lib.QUANT_TENSOR:
        scale = x.new_empty((1,), dtype=torch.float32)
        rows = 1
    elif q.mode == _lib.QUANT_TOKEN:
        scale = x.new_empty((m_out, 1), dtype=torch.float32)
        rows = m_out
    else:
        groups = _cdiv(k, q.group_k or BLOCK)
        if q.scale_k_major:  # (M, G) viewed over a (G, ld) buffer, ld = M rounded up to 4
            ld = _cdiv(m_out, 4) * 4
            scale = x.new_empty((groups, ld), dtype=torch.float32)[:, :m_out].t()
            q.scale_ld = ld
        else:
            scale = x.new_empty((m_out, groups), dtype=torch.float32)
        rows = 0
    azp = x.new_empty((rows,) if q.asymmetric else (0,), dtype=torch.int32)
    return codes, scale, azp


def _run_quant(x, q, qt):
    ctx = _context_for(x)
    if x.device.type == "cuda":
        status = _lib.lib.w8a8_quantize(ctx.handle, C.byref(q), C.byref(qt), _stream(x.device))
    else:
        status = _lib.lib.w8a8_quantize_cpu(ctx.handle, C.byref(q), C.byref(qt))
    ctx.check(status, "w8a8jit.quantize")


def _dynamic_problem(x, out_dtype, mode, group_k, scale_k_major, asymmetric, scale_ub,
                     min_amax, m_pad) -> _lib.QuantProblem:
    _require(mode in ("tensor", "token", "group"),
             f"w8a8jit: dynamic quantization granularity must be tensor, token or group, got {mode!r}")
    q = _quant_problem(x, out_dtype, _MODES[mode], group_k, scale_k_major, asymmetric,
                       min_amax, m_pad)
    if scale_ub is not None:
        _same_device("scale_ub", scale_ub, x.device)
        _require(scale_ub.dtype == torch.float32 and scale_ub.numel() == 1,
                 f"w8a8jit: scale_ub must be one float32, got {scale_ub.dtype} "
                 f"of shape {tuple(scale_ub.shape)}")
    return q


def _quantize_dynamic_impl(x, out_dtype, mode, group_k, scale_k_major, asymmetric, scale_ub,
                           min_amax, m_pad):
    key = _key("qd", (x, scale_ub),
               (out_dtype, mode, group_k, scale_k_major, asymmetric, min_amax, m_pad))
    # (_dynamic_outputs sets the memoized problem's scale_ld: the same for every call of key)
    q = _memo(key, _dynamic_problem, x, out_dtype, mode, group_k, scale_k_major, asymmetric,
              scale_ub, min_amax, m_pad)
    codes, scale, azp = _dynamic_outputs(x, out_dtype, q)
    qt = _lib.QuantTensors(x.data_ptr(), codes.data_ptr(), scale.data_ptr(),
                           azp.data_ptr() if asymmetric else None, _ptr(scale_ub))
    _run_quant(x, q, qt)
    return codes, scale, azp


@torch.library.custom_op("w8a8jit::quantize_dynamic", mutates_args=())
def _quantize_dynamic_op(x: torch.Tensor, out_dtype: torch.dtype, mode: str, group_k: int,
                         scale_k_major: bool, asymmetric: bool, scale_ub: Optional[torch.Tensor],
                         min_amax: float, m_pad: int
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _quantize_dynamic_impl(x, out_dtype, mode, group_k, scale_k_major, asymmetric,
                                  scale_ub, min_amax, m_pad)


@_quantize_dynamic_op.register_fake
def _(x, out_dtype, mode, group_k, scale_k_major, asymmetric, scale_ub, min_amax, m_pad):
    _require(mode in ("tensor", "token", "group"),
             f"w8a8jit: dynamic quantization granularity must be tensor, token or group, got {mode!r}")
    q = _quant_problem(x, out_dtype, _MODES[mode], group_k, scale_k_major, asymmetric,
                       min_amax, m_pad)
    return _dynamic_outputs(x, out_dtype, q)


def _quantize_static_impl(x, scale, out_dtype, azp, m_pad):
    q = _memo(_key("qs", (x, scale, azp), (out_dtype, m_pad)), _static_problem, x, scale,
              out_dtype, azp, m_pad)
    codes = x.new_empty((_lib.lib.w8a8_quant_rows_out(C.byref(q)), q.k), dtype=out_dtype)
    qt = _lib.QuantTensors(x.data_ptr(), codes.data_ptr(), scale.data_ptr(), _ptr(azp), None)
    _run_quant(x, q, qt)
    return codes


@torch.library.custom_op("w8a8jit::quantize_static", mutates_args=())
def _quantize_static_op(x: torch.Tensor, scale: torch.Tensor, out_dtype: torch.dtype,
                        azp: Optional[torch.Tensor], m_pad: int) -> torch.Tensor:
    return _quantize_static_impl(x, scale, out_dtype, azp, m_pad)


def _static_problem(x, scale, out_dtype, azp, m_pad):
    _same_device("scale", scale, x.device)
    _same_device("azp", azp, x.device)
    _require(scale.dtype == torch.float32 and scale.numel() == 1,
             f"w8a8jit: a static scale must be one float32, got {scale.dtype} "
             f"of shape {tuple(scale.shape)}")
    if azp is not None:
        _require(azp.dtype == torch.int32 and azp.numel() == 1,
                 f"w8a8jit: a static azp must be one int32, got {azp.dtype} "
                 f"of shape {tuple(azp.shape)}")
    return _quant_problem(x, out_dtype, _lib.QUANT_STATIC, 0, False, azp is not None, 0.0, m_pad)


@_quantize_static_op.register_fake
def _(x, scale, out_dtype, azp, m_pad):
    q = _static_problem(x, scale, out_dtype, azp, m_pad)
    return x.new_empty((_lib.lib.w8a8_quant_rows_out(C.byref(q)), q.k), dtype=out_dtype)


def quantize(x: torch.Tensor, dtype: torch.dtype = torch.float8_e4m3fn, *,
             scale: Optional[torch.Tensor] = None, azp: Optional[torch.Tensor] = None,
             granularity: str = "tensor", group_size: int = BLOCK,
             scale_ub: Optional[torch.Tensor] = None, symmetric: bool = True,
             column_major_scales: bool = False, min_amax: float = 0.0, pad_to: int = 0):
    """Quantizes activations x (…×K, bfloat16/float16/float32, rows contiguous) to
    float8_e4m3fn or int8 codes with float32 scales (x ≈ scale · q; asymmetric int8:
    x ≈ scale · (q − azp)), in the layouts scaled_mm takes.

    Static: pass `scale` (one float32; and `azp`, one int32, for asymmetric int8).
    Dynamic: granularity "tensor" (scale (1,)), "token" (scale (M, 1)) or "group" (1 ×
    group_size groups, scale (M, K/group_size), column-major with column_major_scales);
    scale_ub (one float32) caps the amax (symmetric only); symmetric=False (int8, tensor or
    token) also returns zero points. min_amax floors the amax (0: the library's default).
    pad_to pads the rows to a multiple (rows past M quantize zeros).
    Returns (q, scale), or (q, scale, azp) when not symmetric. q keeps x's leading dims
    (without padding)."""
    lead, k = x.shape[:-1], x.shape[-1]
    x2 = x.reshape(-1, k)
    padded = pad_to and pad_to > 1
    if scale is not None:
        _require(granularity in ("tensor", "static"),
                 "w8a8jit: a static scale is per tensor (granularity 'tensor')")
        _require(scale_ub is None, "w8a8jit: scale_ub is for dynamic quantization only")
        args = (x2, scale.reshape(-1), dtype, None if azp is None else azp.reshape(-1),
                int(pad_to))
        codes = (_quantize_static_impl if _plain_eager(x2, scale, azp)
                 else _quantize_static_op)(*args)
        q = codes if padded else codes.reshape(*lead, k)
        return (q, scale) if azp is None else (q, scale, azp)
    _require(azp is None, "w8a8jit: azp is an input of static quantization only")
    args = (x2, dtype, granularity, group_size if granularity == "group" else 0,
            bool(column_major_scales), not symmetric, scale_ub, float(min_amax), int(pad_to))
    codes, s, z = (_quantize_dynamic_impl if _plain_eager(x2, scale_ub)
                   else _quantize_dynamic_op)(*args)
    q = codes if padded else codes.reshape(*lead, k)
    return (q, s) if symmetric else (q, s, z)
