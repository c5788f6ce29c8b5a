"""Fp8Linear and Int8Linear: weights quantized once, then per call the activation quantization
and the scaled matmul (what vLLM's Fp8LinearOp does around cutlass_scaled_mm)."""
from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from . import ops
from ._lib import InvalidError
from .weights import column_sums, quantize_weight

_FP8_PAIRS = {("tensor", "tensor"), ("tensor", "channel"), ("token", "tensor"),
              ("token", "channel"), ("static", "tensor"), ("static", "channel"),
              ("group", "block")}


class _QuantLinear(nn.Module):
    qdtype: torch.dtype

    def __init__(self, weight: torch.Tensor, bias: Optional[torch.Tensor], activation: str,
                 weight_granularity: str, input_scale: Optional[torch.Tensor],
                 out_dtype: Optional[torch.dtype]):
        super().__init__()
        if (activation, weight_granularity) not in self.PAIRS:
            raise InvalidError(f"w8a8jit: {type(self).__name__} does not take activation "
                               f"{activation!r} with weight {weight_granularity!r}; one of "
                               f"{sorted(self.PAIRS)}")
        if activation == "static" and input_scale is None:
            raise InvalidError("w8a8jit: activation 'static' needs input_scale")
        self.in_features, self.out_features = weight.shape[1], weight.shape[0]
        self.activation, self.weight_granularity, self.out_dtype = (activation,
                                                                    weight_granularity, out_dtype)
        q, scale = quantize_weight(weight, self.qdtype, weight_granularity)
        self.register_buffer("weight", q)
        # scaled_mm's scale_b: (1,1), (1,N) per channel, or (K/128, N/128) blocks
        self.register_buffer("weight_scale", scale.reshape(1, -1) if weight_granularity != "block"
                             else scale.t())
        self.register_buffer("bias", None if bias is None else bias.detach().clone())
        self.register_buffer("input_scale", None if input_scale is None else
                             input_scale.detach().float().reshape(1).clone())

    @classmethod
    def from_linear(cls, linear: nn.Linear, **kwargs):
        """Quantizes an nn.Linear's weight once (on its device)."""
        return cls(linear.weight, linear.bias, **kwargs)

    def _scaled_mm(self, q, scale, x_dtype, **extra):
        out_dtype = self.out_dtype or x_dtype
        return ops.scaled_mm(q, self.weight.t(), scale, self.weight_scale, out_dtype,
                             bias=self.bias, **extra)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"activation={self.activation}, weight={self.weight_granularity}, "
                f"bias={self.bias is not None}")


class Fp8Linear(_QuantLinear):
    """y = x Wᵀ + b with W in float8_e4m3fn. activation: "token" (dynamic per-token, default),
    "tensor" (dynamic per-tensor), "static" (input_scale), "group" (dynamic 1×128, with
    weight_granularity "block"). weight_granularity: "channel" (default), "tensor", "block"."""
    qdtype = torch.float8_e4m3fn
    PAIRS = _FP8_PAIRS

    def __init__(self, weight: torch.Tensor, bias: Optional[torch.Tensor] = None, *,
                 activation: str = "token", weight_granularity: str = "channel",
                 input_scale: Optional[torch.Tensor] = None,
                 out_dtype: Optional[torch.dtype] = None):
        super().__init__(weight, bias, activation, weight_granularity, input_scale, out_dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        x2 = x.reshape(-1, self.in_features)
        if self.activation == "static":
            q, s = ops.quantize(x2, self.qdtype, scale=self.input_scale)
        elif self.activation == "group":
            q, s = ops.quantize(x2, self.qdtype, granularity="group", column_major_scales=True)
        else:
            q, s = ops.quantize(x2, self.qdtype, granularity=self.activation)
        if s.dim() == 1:
            s = s.reshape(1, 1)
        return self._scaled_mm(q, s, x.dtype).reshape(*lead, self.out_features)


class Int8Linear(_QuantLinear):
    """y = x Wᵀ + b with W in int8 (per-channel or per-tensor). activation: "token" (dynamic
    per-token, default), "tensor", or "static" (input_scale; with input_azp asymmetric);
    symmetric=False quantizes dynamic activations with zero points (vLLM's azp path)."""
    qdtype = torch.int8
    PAIRS = {("tensor", "tensor"), ("tensor", "channel"), ("token", "tensor"),
             ("token", "channel"), ("static", "tensor"), ("static", "channel")}

    def __init__(self, weight: torch.Tensor, bias: Optional[torch.Tensor] = None, *,
                 activation: str = "token", weight_granularity: str = "channel",
                 input_scale: Optional[torch.Tensor] = None,
                 input_azp: Optional[torch.Tensor] = None, symmetric: bool = True,
                 out_dtype: Optional[torch.dtype] = None):
        super().__init__(weight, bias, activation, weight_granularity, input_scale, out_dtype)
        self.symmetric = symmetric and input_azp is None
        self.register_buffer("input_azp", None if input_azp is None else
                             input_azp.detach().to(torch.int32).reshape(1).clone())
        self.register_buffer("azp_adj", None if self.symmetric else column_sums(self.weight))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        x2 = x.reshape(-1, self.in_features)
        extra = {}
        if self.activation == "static":
            if self.input_azp is None:
                q, s = ops.quantize(x2, torch.int8, scale=self.input_scale)
            else:
                q, s, z = ops.quantize(x2, torch.int8, scale=self.input_scale, azp=self.input_azp)
                # per-tensor zero point: vLLM folds it into azp_adj
                extra = {"azp_adj": (self.azp_adj * z).contiguous()}
        elif self.symmetric:
            q, s = ops.quantize(x2, torch.int8, granularity=self.activation)
        else:
            q, s, z = ops.quantize(x2, torch.int8, granularity=self.activation, symmetric=False)
            if self.activation == "tensor":
                extra = {"azp_adj": (self.azp_adj * z).contiguous()}
            else:
                extra = {"azp_adj": self.azp_adj, "azp": z.reshape(-1)}
        if s.dim() == 1:
            s = s.reshape(1, 1)
        return self._scaled_mm(q, s, x.dtype, **extra).reshape(*lead, self.out_features)


def swap_linears(model: nn.Module, cls=Fp8Linear, **kwargs) -> int:
    """Replaces every nn.Linear of `model` (recursively) with cls.from_linear(linear,
    **kwargs); returns how many were swapped."""
    count = 0
    for name, child in model.named_children():
        if isinstance(child, nn.Linear):
            setattr(model, name, cls.from_linear(child, **kwargs))
            count += 1
        else:
            count += swap_linears(child, cls, **kwargs)
    return count
