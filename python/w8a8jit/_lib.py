"""ctypes binding of the public C API (include/w8a8jit.h): struct layouts, the loaded library,
one context per device, and errors carrying the library's message.

Only what the Python package calls is declared. The structs mirror the header field for
field; tests/test_cpu.py compiles a C program against the header to check their sizes."""
from __future__ import annotations

import ctypes as C
import glob
import os
import sys
import threading

# ---- enums (w8a8jit.h) ----------------------------------------------------------------------
OK, INVALID, UNSUPPORTED, NO_DEVICE, CUDA_ERROR, COMPILE_ERROR = range(6)
DTYPE_NONE, E4M3, E5M2, INT8, BF16, FP16, FP32, E4M3FNUZ = range(8)
SCALE_TENSOR, SCALE_ROW, SCALE_BLOCK = range(3)
AZP_NONE, AZP_TENSOR, AZP_TOKEN = range(3)
ACCUM_FAST, ACCUM_PROMOTED = range(2)  # w8a8_accum
QUANT_STATIC, QUANT_TENSOR, QUANT_TOKEN, QUANT_GROUP = range(4)
TUNE_OFF, TUNE_RECORD, TUNE_ONLINE = range(3)
CONTEXT_CPU_ONLY = 0x2


class ScaleLayout(C.Structure):
    _fields_ = [("kind", C.c_int), ("group_rows", C.c_int32), ("group_k", C.c_int32),
                ("k_major", C.c_int32), ("ld", C.c_int64)]


class Problem(C.Structure):
    _fields_ = [("m", C.c_int64), ("n", C.c_int64), ("k", C.c_int64),
                ("a_type", C.c_int), ("b_type", C.c_int), ("out_type", C.c_int),
                ("bias_type", C.c_int), ("a_scale", ScaleLayout), ("b_scale", ScaleLayout),
                ("azp", C.c_int), ("lda", C.c_int64), ("ldb", C.c_int64), ("ldc", C.c_int64),
                ("accum", C.c_int)]


class Tensors(C.Structure):
    _fields_ = [(name, C.c_void_p) for name in
                ("a", "b", "out", "a_scale", "b_scale", "bias", "azp", "b_col_sums")]


class ContextOptions(C.Structure):
    _fields_ = [("device_ordinal", C.c_int), ("kernel_dir", C.c_char_p),
                ("cache_db", C.c_char_p), ("cache_path", C.c_char_p),
                ("template_dir", C.c_char_p), ("flags", C.c_uint32)]


class QuantProblem(C.Structure):
    _fields_ = [("m", C.c_int64), ("k", C.c_int64), ("in_type", C.c_int),
                ("out_type", C.c_int), ("mode", C.c_int), ("group_k", C.c_int32),
                ("scale_k_major", C.c_int32), ("scale_ld", C.c_int64), ("m_pad", C.c_int32),
                ("asymmetric", C.c_int32), ("min_amax", C.c_float), ("ld_in", C.c_int64),
                ("ld_out", C.c_int64)]


class QuantTensors(C.Structure):
    _fields_ = [(name, C.c_void_p) for name in ("in_", "out", "scale", "azp", "scale_ub")]


class Explain(C.Structure):
    _fields_ = [("family", C.c_char * 64), ("config", C.c_char * 256), ("match", C.c_char * 16),
                ("device_match", C.c_char * 16), ("foreign", C.c_int),
                ("reason", C.c_char * 512), ("source", C.c_char * 1024),
                ("device_name", C.c_char * 128), ("m_bucket", C.c_int64),
                ("measured_bucket", C.c_int64), ("median_us", C.c_double)]


class DeviceInfo(C.Structure):
    _fields_ = [("has_device", C.c_int), ("name", C.c_char * 128), ("arch", C.c_char * 16),
                ("sm_count", C.c_int), ("cc_major", C.c_int), ("cc_minor", C.c_int),
                ("memory_bytes", C.c_uint64), ("l2_bytes", C.c_uint64),
                ("max_smem_optin", C.c_int), ("driver_version", C.c_int),
                ("nvrtc_major", C.c_int), ("nvrtc_minor", C.c_int),
                ("kernel_dir", C.c_char * 1024), ("cache_db", C.c_char * 1024),
                ("template_dir", C.c_char * 1024), ("no_device_reason", C.c_char * 256)]


class TuneOptions(C.Structure):
    _fields_ = [("problems", C.POINTER(Problem)), ("problem_count", C.c_size_t),
                ("space", C.c_char_p), ("budget_seconds", C.c_double), ("force", C.c_int),
                ("max_candidates", C.c_int), ("explore", C.c_int), ("threads", C.c_int),
                ("quick_samples", C.c_int), ("final_samples", C.c_int), ("finalists", C.c_int),
                ("more_contexts", C.c_void_p), ("more_context_count", C.c_size_t),
                ("watchdog_seconds", C.c_double), ("final_settle_ms", C.c_int),
                ("seed_space", C.c_int)]


class TuneResult(C.Structure):
    _fields_ = [("problem", Problem), ("status", C.c_int), ("family", C.c_char * 64),
                ("config", C.c_char * 256), ("best_us", C.c_double), ("default_us", C.c_double),
                ("default_config", C.c_char * 256), ("candidates", C.c_size_t),
                ("skipped", C.c_size_t), ("compiled", C.c_size_t), ("rejected", C.c_size_t),
                ("compile_failed", C.c_size_t), ("verify_failed", C.c_size_t),
                ("timed", C.c_size_t), ("seconds", C.c_double)]


class TuneProfile(C.Structure):
    _fields_ = [(n, C.c_double) for n in ("plan_seconds", "compile_wait_seconds",
                                          "buffers_seconds", "reference_seconds",
                                          "verify_seconds", "timing_seconds", "record_seconds")] + \
               [(n, C.c_size_t) for n in ("kernels", "kernels_compiled", "kernels_from_store",
                                          "kernels_unused")] + \
               [("compile_threads", C.c_int)] + \
               [(n, C.c_double) for n in ("compile_busy_seconds", "compile_wall_seconds",
                                          "pool_utilization")] + \
               [("candidates_timed", C.c_size_t)]


class TuneReport(C.Structure):
    _fields_ = [("results", C.POINTER(TuneResult)), ("count", C.c_size_t),
                ("seconds", C.c_double), ("budget_spent", C.c_int), ("profile", TuneProfile)]


# ---- errors ---------------------------------------------------------------------------------
class Error(RuntimeError):
    """A w8a8jit call failed; `status` is the library's status name ("W8A8_CUDA_ERROR", …)
    or "python" for a check made by the binding, and the message says why."""

    def __init__(self, message: str, status: str = "python"):
        super().__init__(message)
        self.status = status


class InvalidError(Error, ValueError):
    """Bad input (W8A8_INVALID, or a tensor the binding cannot pass): nothing was launched."""


class UnsupportedError(Error, NotImplementedError):
    """Legal but not supported by this build or device (W8A8_UNSUPPORTED)."""


class NoDeviceError(Error):
    """No CUDA driver or device (W8A8_NO_DEVICE)."""


_ERROR_CLASSES = {INVALID: InvalidError, UNSUPPORTED: UnsupportedError, NO_DEVICE: NoDeviceError}


# ---- loading --------------------------------------------------------------------------------
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def library_path() -> str:
    """The libw8a8jit.so this package loads: $W8A8_LIBRARY if set (a development build),
    else the one bundled in the package (w8a8jit/lib/)."""
    override = os.environ.get("W8A8_LIBRARY")
    if override:
        return override
    return os.path.join(_PACKAGE_DIR, "lib", "libw8a8jit.so")


def shipped_cache_dir() -> str:
    """The folder of the shipped tuning databases in the package (read by the library)."""
    return os.path.join(_PACKAGE_DIR, "share", "w8a8jit")


def _preload_nvrtc() -> None:
    """Makes libnvrtc.so.<major> loadable when the system loader cannot find it: torch's CUDA
    wheels bring NVRTC in the nvidia-cuda-nvrtc package (site-packages/nvidia/…/lib)."""
    roots = [p for p in sys.path if p and os.path.isdir(os.path.join(p, "nvidia"))]
    for root in roots:
        for pattern in ("nvidia/cu*/lib/libnvrtc.so.*", "nvidia/cuda_nvrtc/lib/libnvrtc.so.*"):
            for path in sorted(glob.glob(os.path.join(root, pattern))):
                if "builtins" in path or "alt" in os.path.basename(path):
                    continue
                try:
                    C.CDLL(path, mode=C.RTLD_GLOBAL)
                    return
                except OSError:
                    continue


def _load() -> C.CDLL:
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(f"w8a8jit: the C library is missing at {path}: install the package "
                          "with `pip install ./python` (it builds and bundles it), or set "
                          "W8A8_LIBRARY to a libw8a8jit.so")
    try:
        return C.CDLL(path)
    except OSError as first:
        _preload_nvrtc()
        try:
            return C.CDLL(path)
        except OSError:
            raise ImportError(f"w8a8jit: cannot load {path}: {first} (NVRTC comes with the "
                              "CUDA toolkit or torch's nvidia-cuda-nvrtc wheel)") from first


lib = _load()


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


P = C.c_void_p
_declare("w8a8_version_string", C.c_char_p)
_declare("w8a8_status_string", C.c_char_p, C.c_int)
_declare("w8a8_context_open", C.c_int, C.POINTER(C.c_void_p), C.POINTER(ContextOptions))
_declare("w8a8_context_close", None, P)
_declare("w8a8_errmsg", C.c_char_p, P)
_declare("w8a8_context_has_device", C.c_int, P)
_declare("w8a8_context_device_info", C.c_int, P, C.POINTER(DeviceInfo))
_declare("w8a8_problem_validate", C.c_int, P, C.POINTER(Problem))
_declare("w8a8_scaled_mm", C.c_int, P, C.POINTER(Problem), C.POINTER(Tensors), P)
_declare("w8a8_scaled_mm_cpu", C.c_int, P, C.POINTER(Problem), C.POINTER(Tensors))
_declare("w8a8_quant_problem_validate", C.c_int, P, C.POINTER(QuantProblem))
_declare("w8a8_quant_rows_out", C.c_int64, C.POINTER(QuantProblem))
_declare("w8a8_quantize", C.c_int, P, C.POINTER(QuantProblem), C.POINTER(QuantTensors), P)
_declare("w8a8_quantize_cpu", C.c_int, P, C.POINTER(QuantProblem), C.POINTER(QuantTensors))
_declare("w8a8_dispatch_warm", C.c_int, P, C.POINTER(Problem))
_declare("w8a8_dispatch_explain", C.c_int, P, C.POINTER(Problem), C.POINTER(Explain))
_declare("w8a8_dispatch_set_tune_mode", C.c_int, P, C.c_int)
_declare("w8a8_tune_mode_parse", C.c_int, C.c_char_p, C.POINTER(C.c_int))
_declare("w8a8_tune", C.c_int, P, C.POINTER(TuneOptions), P, P, C.POINTER(TuneReport))
_declare("w8a8_tune_report_free", None, C.POINTER(TuneReport))
_declare("w8a8_cache_warnings", C.c_char_p, P)
_I64P = C.POINTER(C.c_int64)
_declare("w8a8_weight_requantize_fused", C.c_int, P, C.c_int, C.c_int64, _I64P, C.c_int32,
         P, P, P, P, P)
_declare("w8a8_weight_requantize_fused_cpu", C.c_int, P, C.c_int, C.c_int64, _I64P, C.c_int32,
         P, P, P, P)
_declare("w8a8_weight_expand_scales", C.c_int, P, _I64P, C.c_int32, P, P, P)
_declare("w8a8_weight_expand_scales_cpu", C.c_int, P, _I64P, C.c_int32, P, P)
_declare("w8a8_weight_e4m3fn_to_fnuz", C.c_int, P, P, C.c_int64, P, C.c_int64, P)
_declare("w8a8_weight_e4m3fn_to_fnuz_cpu", C.c_int, P, P, C.c_int64, P, C.c_int64)
_declare("w8a8_bench_host_overhead", C.c_int, P, C.POINTER(Problem), C.c_int,
         C.POINTER(C.c_double), C.POINTER(C.c_double))

version = lib.w8a8_version_string().decode()


# ---- contexts -------------------------------------------------------------------------------
class Context:
    """One library context (w8a8_context): per CUDA device, or CPU-only for CPU tensors and
    checks. Contexts live as long as the process (the library's are thread-safe)."""

    def __init__(self, device_ordinal: int | None):
        options = ContextOptions()
        if device_ordinal is None:
            options.flags = CONTEXT_CPU_ONLY
        else:
            options.device_ordinal = device_ordinal
        handle = C.c_void_p()
        status = lib.w8a8_context_open(C.byref(handle), C.byref(options))
        self.handle = handle
        self.device_ordinal = device_ordinal
        if status != OK:
            message = lib.w8a8_errmsg(handle).decode(errors="replace")
            lib.w8a8_context_close(handle)
            self.handle = None
            raise _error(status, f"w8a8_context_open: {message}")

    def check(self, status: int, what: str) -> None:
        """Raises the library's error for a failed call on this context."""
        if status != OK:
            message = lib.w8a8_errmsg(self.handle).decode(errors="replace")
            raise _error(status, f"{what}: {message}")

    def device_info(self) -> dict:
        info = DeviceInfo()
        self.check(lib.w8a8_context_device_info(self.handle, C.byref(info)),
                   "w8a8_context_device_info")
        return struct_dict(info)


def _error(status: int, message: str) -> Error:
    name = lib.w8a8_status_string(status).decode()
    return _ERROR_CLASSES.get(status, Error)(message, name)


_contexts: dict = {}
_contexts_lock = threading.Lock()


def context(device_ordinal: int | None = None) -> Context:
    """The context of CUDA device `device_ordinal`, or the CPU-only one for None."""
    ctx = _contexts.get(device_ordinal)
    if ctx is None:
        with _contexts_lock:
            ctx = _contexts.get(device_ordinal)
            if ctx is None:
                ctx = _contexts[device_ordinal] = Context(device_ordinal)
    return ctx


def struct_dict(value) -> dict:
    """A ctypes struct as a dict (bytes decoded, nested structs recursed)."""
    out = {}
    for name, _ in value._fields_:
        field = getattr(value, name)
        if isinstance(field, bytes):
            field = field.decode(errors="replace")
        elif isinstance(field, C.Structure):
            field = struct_dict(field)
        out[name] = field
    return out
