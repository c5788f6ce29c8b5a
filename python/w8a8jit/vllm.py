"""Functions with the signatures of vLLM's `vllm._custom_ops` (and its block-FP8 matmul), so a
vLLM deployment can route its W8A8 linears to w8a8jit.

The one place to patch: vLLM's linear methods call these through the module
`vllm._custom_ops` (imported as `ops`), looking the function up at call time. Replacing the
module attributes before the model is built routes every W8A8 linear here:

    import w8a8jit.vllm
    w8a8jit.vllm.patch()        # before LLM(...) / engine start, in every worker process

patch() sets vllm._custom_ops.cutlass_scaled_mm, cutlass_scaled_mm_azp, scaled_fp8_quant,
scaled_int8_quant, cutlass_scaled_mm_supports_fp8 and cutlass_scaled_mm_supports_block_fp8, and
fp8_utils.w8a8_block_fp8_matmul when that module exists. It returns the names it replaced."""
from __future__ import annotations

import importlib
from typing import List, Optional

import torch

from . import ops


def cutlass_scaled_mm(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor,
                      scale_b: torch.Tensor, out_dtype: torch.dtype,
                      bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """vLLM: out = (scale_a ⊙ a) @ (scale_b ⊙ b) + bias; b is K×N column-major."""
    return ops.scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=bias)


def cutlass_scaled_mm_azp(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor,
                          scale_b: torch.Tensor, out_dtype: torch.dtype, azp_adj: torch.Tensor,
                          azp: Optional[torch.Tensor] = None,
                          bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """vLLM: the int8 product with activation zero points (azp None: per-tensor, folded into
    azp_adj)."""
    return ops.scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=bias, azp_adj=azp_adj, azp=azp)


def cutlass_scaled_mm_supports_fp8(cuda_device_capability: int) -> bool:
    """FP8 products run from sm_80 on (capability 80, 86, 89, 90, …): on sm_80/86, which have
    no FP8 instructions, as f16 mma.sync on codes unpacked in registers."""
    return cuda_device_capability >= 80


def cutlass_scaled_mm_supports_block_fp8(cuda_device_capability: int) -> bool:
    return cuda_device_capability >= 80


def scaled_fp8_quant(input: torch.Tensor, scale: Optional[torch.Tensor] = None,
                     num_token_padding: Optional[int] = None,
                     scale_ub: Optional[torch.Tensor] = None,
                     use_per_token_if_dynamic: bool = False,
                     output: Optional[torch.Tensor] = None):
    """vLLM: FP8 quantization, static (scale given) or dynamic per tensor / per token (with
    scale_ub). num_token_padding pads the rows to at least that many. Returns (q, scale)."""
    m = input.numel() // input.shape[-1]
    pad = num_token_padding if num_token_padding and num_token_padding > m else 0
    if scale is not None:
        q, s = ops.quantize(input, torch.float8_e4m3fn, scale=scale, pad_to=pad)
    else:
        q, s = ops.quantize(input, torch.float8_e4m3fn, scale_ub=scale_ub, pad_to=pad,
                            granularity="token" if use_per_token_if_dynamic else "tensor")
    if output is not None:
        output.copy_(q.reshape(output.shape))
        q = output
    return q, s


def scaled_int8_quant(input: torch.Tensor, scale: Optional[torch.Tensor] = None,
                      azp: Optional[torch.Tensor] = None, symmetric: bool = True):
    """vLLM: INT8 quantization, static (scale, azp given) or dynamic per token (symmetric or
    with zero points). Returns (q, scale, azp or None)."""
    if scale is not None:
        out = ops.quantize(input, torch.int8, scale=scale, azp=azp)
        return out[0], scale, azp
    if symmetric:
        q, s = ops.quantize(input, torch.int8, granularity="token")
        return q, s, None
    q, s, z = ops.quantize(input, torch.int8, granularity="token", symmetric=False)
    return q, s, z


def per_token_group_quant_fp8(x: torch.Tensor, group_size: int, eps: float = 1e-10,
                              dtype: Optional[torch.dtype] = None,
                              column_major_scales: bool = False):
    """vLLM: dynamic 1 × group_size FP8 quantization. Returns (q, scales (M, K/group_size))."""
    return ops.quantize(x, dtype or torch.float8_e4m3fn, granularity="group",
                        group_size=group_size, min_amax=eps,
                        column_major_scales=column_major_scales)


def w8a8_block_fp8_matmul(A: torch.Tensor, B: torch.Tensor, As: torch.Tensor, Bs: torch.Tensor,
                          block_size: List[int], output_dtype: torch.dtype = torch.float16
                          ) -> torch.Tensor:
    """vLLM's block-FP8 matmul: A (…×K) with As (…×K/128), B (N×K, row-major) with
    Bs (N/128 × K/128); block_size [128, 128]."""
    if list(block_size) != [ops.BLOCK, ops.BLOCK]:
        raise ops.InvalidError(f"w8a8jit: block_size must be [128, 128], got {block_size}")
    lead, k = A.shape[:-1], A.shape[-1]
    out = ops.scaled_mm(A.reshape(-1, k), B.t(), As.reshape(-1, As.shape[-1]), Bs.t(),
                        output_dtype)
    return out.reshape(*lead, B.shape[0])


_OPS_NAMES = ("cutlass_scaled_mm", "cutlass_scaled_mm_azp", "scaled_fp8_quant",
              "scaled_int8_quant", "cutlass_scaled_mm_supports_fp8",
              "cutlass_scaled_mm_supports_block_fp8")


def patch() -> List[str]:
    """Routes vLLM's W8A8 entry points to w8a8jit (see the module's docstring)."""
    patched = []
    custom_ops = importlib.import_module("vllm._custom_ops")
    for name in _OPS_NAMES:
        setattr(custom_ops, name, globals()[name])
        patched.append(f"vllm._custom_ops.{name}")
    try:
        fp8_utils = importlib.import_module(
            "vllm.model_executor.layers.quantization.utils.fp8_utils")
    except ImportError:
        return patched
    for name in ("w8a8_block_fp8_matmul", "per_token_group_quant_fp8"):
        if hasattr(fp8_utils, name):
            setattr(fp8_utils, name, globals()[name])
            patched.append(f"{fp8_utils.__name__}.{name}")
    return patched
