"""A stand-in for torch, for tests/check_bench_scripts.sh on hosts without a GPU: tensors are
shapes and strides only, CUDA calls do nothing, every graph replay takes 0.25 ms, and
torch._scaled_mm accepts exactly the scale layouts torch's cuBLASLt path documents (per-tensor:
one element; per-row: (M, 1) and (1, N); blocks: (M, ceil(K/128)) M-major for A and the
transpose of a row-major (ceil(N/128), ceil(K/128)) for B), refusing M = 1 with block scales
and fast accumulation with block scales, as some cuBLASLt builds do."""
import contextlib
import types

__version__ = "0.0-fake"
version = types.SimpleNamespace(cuda="fake")
float8_e4m3fn, bfloat16, float32, int8, int32 = "e4m3", "bf16", "fp32", "int8", "int32"
REPLAY_MS = 0.25
BLOCK = 128


def device(name):
    return name


def contiguous_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.insert(0, step)
        step *= extent
    return tuple(strides)


class Tensor:
    def __init__(self, shape, dtype, strides=None):
        self.shape, self.dtype = tuple(shape), dtype
        self.strides = strides if strides is not None else contiguous_strides(self.shape)

    def stride(self):
        return self.strides

    def numel(self):
        count = 1
        for extent in self.shape:
            count *= extent
        return count

    def to(self, dtype):
        return Tensor(self.shape, dtype)

    def t(self):
        return Tensor(self.shape[::-1], self.dtype, self.strides[::-1])

    def view(self, dtype):
        return Tensor(self.shape, dtype, self.strides)

    def __add__(self, other):
        return self

    def __getitem__(self, index):
        shape = [s.indices(extent)[1] - s.indices(extent)[0]
                 for s, extent in zip(index, self.shape)]
        return Tensor(shape, self.dtype, self.strides)


def randn(*shape, device=None, dtype=float32):
    return Tensor(shape, dtype)


def rand(shape, device=None, dtype=float32):
    return Tensor(shape, dtype)


def _blocks(extent):
    return -(-extent // BLOCK)


def _scaled_mm(a, b, scale_a, scale_b, out_dtype, use_fast_accum=False):
    (m, k), (k_b, n) = a.shape, b.shape
    if k != k_b or a.dtype != float8_e4m3fn or b.dtype != float8_e4m3fn:
        raise RuntimeError("fake torch: operands are not FP8 of matching K")
    if b.strides != (1, k):
        raise RuntimeError("fake torch: mat2 must be column-major")
    block_b = scale_b.t()
    if scale_a.numel() == 1 and scale_b.numel() == 1:
        pass
    elif scale_a.shape == (m, 1) and scale_b.shape == (1, n):
        pass
    elif (scale_a.shape == (m, _blocks(k)) and scale_a.strides == (1, m)
          and block_b.shape == (_blocks(n), _blocks(k)) and block_b.strides == (_blocks(k), 1)):
        if m == 1:
            raise RuntimeError("CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling "
                               "`cublasLtMatmulAlgoGetHeuristic(...)`\nsecond line")
        if use_fast_accum:
            raise RuntimeError("fake torch: use_fast_accum is not supported with block scales")
    else:
        raise RuntimeError(f"Invalid scaling configuration: scale_a {scale_a.shape} "
                           f"{scale_a.strides}, scale_b {scale_b.shape} {scale_b.strides}")
    return Tensor((m, n), out_dtype)


def _int_mm(a, b):
    if a.shape[0] <= 16:
        raise RuntimeError(f"_int_mm: expected M to be greater than 16, but got {a.shape[0]}")
    return Tensor((a.shape[0], b.shape[1]), int32)


def mm(a, b):
    return Tensor((a.shape[0], b.shape[1]), a.dtype)


class _Stream:
    def wait_stream(self, other):
        pass


class _Graph:
    def replay(self):
        pass


class _Event:
    def __init__(self, enable_timing=False):
        pass

    def record(self):
        pass

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return REPLAY_MS


cuda = types.SimpleNamespace(
    is_available=lambda: True,
    get_device_properties=lambda index: types.SimpleNamespace(name="Fake GPU",
                                                              L2_cache_size=60 << 20),
    mem_get_info=lambda: (100 << 30, 128 << 30),
    Stream=_Stream, current_stream=_Stream, stream=lambda s: contextlib.nullcontext(),
    synchronize=lambda: None, CUDAGraph=_Graph, graph=lambda g: contextlib.nullcontext(),
    Event=_Event, empty_cache=lambda: None)
