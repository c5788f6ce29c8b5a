"""w8a8jit: scaled FP8/INT8 matrix products for LLM inference as torch ops.

    import w8a8jit
    q, s = w8a8jit.quantize(x, torch.float8_e4m3fn, granularity="token")
    y = w8a8jit.scaled_mm(q, w_fp8.t(), s, w_scale, torch.bfloat16)

The C library (bundled) JIT-compiles, tunes and dispatches the kernels; see
w8a8jit.explain() for the kernel a shape gets and w8a8jit.tune() to measure better ones."""
from ._lib import (Error, InvalidError, NoDeviceError, UnsupportedError, library_path,
                   shipped_cache_dir, version as library_version)
from .modules import Fp8Linear, Int8Linear, swap_linears
from .ops import quantize, scaled_mm
from .tuning import explain, host_overhead, set_tune_mode, tune
from .weights import (column_sums, e4m3fn_to_fnuz, expand_scales, quantize_weight,
                      requantize_fused)

__version__ = "0.1.0"


def device_info(device=None) -> dict:
    """The library's view of a device (and the NVRTC version, cache locations)."""
    from . import _lib
    from .tuning import _device_ordinal
    return _lib.context(_device_ordinal(device)).device_info()


__all__ = ["Error", "InvalidError", "NoDeviceError", "UnsupportedError", "Fp8Linear",
           "Int8Linear", "swap_linears", "quantize", "scaled_mm", "explain", "tune",
           "set_tune_mode", "host_overhead", "quantize_weight", "column_sums",
           "requantize_fused", "expand_scales", "e4m3fn_to_fnuz", "device_info",
           "library_path", "shipped_cache_dir", "library_version"]
