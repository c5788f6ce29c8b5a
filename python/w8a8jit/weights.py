"""Weight utilities for loading checkpoints (vLLM's process_weights_after_loading): quantizing
a float weight once, and the library's fused-shard requantization, per-shard → per-channel
scale expansion and e4m3fn → e4m3fnuz conversion (GPU for CUDA tensors, CPU otherwise)."""
from __future__ import annotations

import ctypes as C
from typing import Sequence

import torch

from . import _lib
from .ops import BLOCK, _context_for, _require, _stream

_QMAX = {torch.float8_e4m3fn: 448.0, torch.int8: 127.0}
_LIB_TYPES = {torch.float8_e4m3fn: _lib.E4M3, torch.int8: _lib.INT8}


def _codes(w: torch.Tensor, inv_scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    v = w.float() * inv_scale
    if dtype == torch.int8:
        return v.round().clamp(-128, 127).to(torch.int8)
    return v.clamp(-448.0, 448.0).to(dtype)


def quantize_weight(w: torch.Tensor, dtype: torch.dtype = torch.float8_e4m3fn,
                    granularity: str = "channel"):
    """Quantizes an N×K float weight once: granularity "tensor" (scale shape (1,)),
    "channel" (scale (N, 1)) or "block" (128×128 blocks, scale (ceil(N/128), ceil(K/128)),
    e4m3 only). Symmetric, amax / qmax (448 e4m3, 127 int8), amax floored at 1e-12.
    Returns (codes N×K contiguous, float32 scales)."""
    _require(w.dim() == 2, f"w8a8jit: a weight is 2-D (N×K), got {w.dim()}-D")
    _require(dtype in _QMAX, f"w8a8jit: weights quantize to float8_e4m3fn or int8, got {dtype}")
    qmax = _QMAX[dtype]
    wf = w.detach().float()
    if granularity == "tensor":
        scale = (wf.abs().amax().clamp(min=1e-12) / qmax).reshape(1)
        return _codes(wf, 1.0 / scale, dtype).contiguous(), scale
    if granularity == "channel":
        scale = wf.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / qmax
        return _codes(wf, 1.0 / scale, dtype).contiguous(), scale
    if granularity == "block":
        _require(dtype == torch.float8_e4m3fn, "w8a8jit: block scales are for float8_e4m3fn")
        n, k = wf.shape
        nb, kb = -(-n // BLOCK), -(-k // BLOCK)
        padded = wf.new_zeros((nb * BLOCK, kb * BLOCK))
        padded[:n, :k] = wf
        blocks = padded.reshape(nb, BLOCK, kb, BLOCK)
        scale = blocks.abs().amax(dim=(1, 3)).clamp(min=1e-12) / qmax
        inv = (1.0 / scale)[:, None, :, None]
        codes = _codes(blocks, inv, dtype).reshape(nb * BLOCK, kb * BLOCK)[:n, :k]
        return codes.contiguous(), scale.contiguous()
    raise _lib.InvalidError(f"w8a8jit: weight granularity must be tensor, channel or block, "
                            f"got {granularity!r}")


def column_sums(w: torch.Tensor) -> torch.Tensor:
    """Σ_k w[n, k] of an int8 N×K weight as int32 (N,): the azp_adj of scaled_mm."""
    _require(w.dtype == torch.int8 and w.dim() == 2, "w8a8jit: column_sums takes an int8 N×K weight")
    return w.to(torch.int32).sum(dim=1, dtype=torch.int32).contiguous()


def _shard_rows(shard_sizes: Sequence[int]):
    rows = (C.c_int64 * len(shard_sizes))(*[int(s) for s in shard_sizes])
    return rows, len(shard_sizes)


def requantize_fused(w: torch.Tensor, shard_sizes: Sequence[int], shard_scales: torch.Tensor,
                     inplace: bool = False):
    """A fused weight (QKV, gate/up) of shards with per-tensor scales → one weight with the
    largest scale (w8a8_weight_requantize_fused). Returns (weight, scale (1,))."""
    _require(w.dtype in _LIB_TYPES and w.dim() == 2 and w.is_contiguous(),
             "w8a8jit: requantize_fused takes a contiguous float8_e4m3fn or int8 N×K weight")
    _require(shard_scales.dtype == torch.float32 and shard_scales.device == w.device
             and shard_scales.is_contiguous(),
             "w8a8jit: shard_scales must be contiguous float32 on the weight's device")
    out = w if inplace else torch.empty_like(w)
    scale = torch.empty(1, dtype=torch.float32, device=w.device)
    rows, count = _shard_rows(shard_sizes)
    ctx = _context_for(w)
    args = (ctx.handle, _LIB_TYPES[w.dtype], w.shape[1], rows, count, w.data_ptr(),
            out.data_ptr(), shard_scales.data_ptr(), scale.data_ptr())
    if w.is_cuda:
        status = _lib.lib.w8a8_weight_requantize_fused(*args, _stream(w.device))
    else:
        status = _lib.lib.w8a8_weight_requantize_fused_cpu(*args)
    ctx.check(status, "w8a8jit.requantize_fused")
    return out, scale


def expand_scales(shard_sizes: Sequence[int], shard_scales: torch.Tensor) -> torch.Tensor:
    """Per-shard scales → per-channel scales (Σ shard_sizes, 1) (vLLM's
    convert_to_channelwise)."""
    _require(shard_scales.dtype == torch.float32 and shard_scales.is_contiguous(),
             "w8a8jit: shard_scales must be contiguous float32")
    out = torch.empty((sum(int(s) for s in shard_sizes), 1), dtype=torch.float32,
                      device=shard_scales.device)
    rows, count = _shard_rows(shard_sizes)
    ctx = _context_for(shard_scales)
    args = (ctx.handle, rows, count, shard_scales.data_ptr(), out.data_ptr())
    if shard_scales.is_cuda:
        status = _lib.lib.w8a8_weight_expand_scales(*args, _stream(shard_scales.device))
    else:
        status = _lib.lib.w8a8_weight_expand_scales_cpu(*args)
    ctx.check(status, "w8a8jit.expand_scales")
    return out


def e4m3fn_to_fnuz(w: torch.Tensor, scales: torch.Tensor):
    """Converts an e4m3fn weight to e4m3fnuz in place and doubles its scales in place; returns
    (w viewed as float8_e4m3fnuz, scales)."""
    _require(w.dtype == torch.float8_e4m3fn and w.is_contiguous(),
             "w8a8jit: e4m3fn_to_fnuz takes a contiguous float8_e4m3fn weight")
    _require(scales.dtype == torch.float32 and scales.is_contiguous() and scales.device == w.device,
             "w8a8jit: scales must be contiguous float32 on the weight's device")
    ctx = _context_for(w)
    args = (ctx.handle, w.data_ptr(), w.numel(), scales.data_ptr(), scales.numel())
    if w.is_cuda:
        status = _lib.lib.w8a8_weight_e4m3fn_to_fnuz(*args, _stream(w.device))
    else:
        status = _lib.lib.w8a8_weight_e4m3fn_to_fnuz_cpu(*args)
    ctx.check(status, "w8a8jit.e4m3fn_to_fnuz")
    return w.view(torch.float8_e4m3fnuz), scales
