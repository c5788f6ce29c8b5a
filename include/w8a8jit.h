/*
 * w8a8jit — scaled FP8/INT8 matrix products for LLM inference, JIT-compiled with NVRTC,
 * autotuned with Lua tuning spaces and dispatched from a SQLite cache of measurements.
 *
 *     out[m, n] = sum_k (sa ⊙ A)[m, k] · (sb ⊙ B)[n, k]  (+ bias[n])
 *
 * A (activations) is M×K row-major, B (weights) is N×K row-major (K contiguous), out is M×N
 * row-major. This header is the reference documentation of the library: every function has
 * a contract above it. It carries no CUDA, Lua or SQLite types; streams and device pointers
 * are plain pointers (a CUstream / cudaStream_t, a CUdeviceptr cast to a pointer).
 *
 * Conventions
 *  - Every function returns a w8a8_status. On failure the context keeps a message
 *    (w8a8_errmsg) that names the offending argument, valid until the next call on it.
 *  - Constructors write an OUT handle; every destroy/close accepts NULL.
 *  - Strings passed in are borrowed for the call and copied when kept.
 *  - Device pointers are borrowed for the call only.
 *  - The library never prints, never aborts and never exits on bad input.
 */
#ifndef W8A8JIT_H
#define W8A8JIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define W8A8_API
#elif defined(__GNUC__)
#define W8A8_API __attribute__((visibility("default")))
#else
#define W8A8_API
#endif

/* ---------------------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------------------- */

#define W8A8JIT_VERSION_MAJOR 0
#define W8A8JIT_VERSION_MINOR 1
#define W8A8JIT_VERSION_PATCH 0
#define W8A8JIT_VERSION_STRING "0.1.0"
/* MAJOR*10000 + MINOR*100 + PATCH */
#define W8A8JIT_VERSION_NUMBER \
    (W8A8JIT_VERSION_MAJOR * 10000 + W8A8JIT_VERSION_MINOR * 100 + W8A8JIT_VERSION_PATCH)

/* The version the library was built as (compare with W8A8JIT_VERSION_NUMBER). */
W8A8_API int w8a8_version_number(void);
/* "MAJOR.MINOR.PATCH"; static storage. */
W8A8_API const char *w8a8_version_string(void);

/* ---------------------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------------------- */

typedef enum w8a8_status {
    W8A8_OK = 0,
    W8A8_INVALID,         /* an argument is wrong; the message names it; nothing ran */
    W8A8_UNSUPPORTED,     /* legal, but this build/device/template cannot do it */
    W8A8_NO_DEVICE,       /* no CUDA driver or no device: GPU work is impossible here */
    W8A8_CUDA_ERROR,      /* the driver API failed; w8a8_error_cuda() has the CUresult */
    W8A8_COMPILE_ERROR,   /* NVRTC failed or ptxas rejected the kernel; w8a8_error_nvrtc() */
    W8A8_NO_MEMORY,       /* host or device allocation failed */
    W8A8_IO_ERROR,        /* a file could not be read or written */
    W8A8_CACHE_ERROR,     /* a tuning database is corrupt, foreign or locked */
    W8A8_SCRIPT_ERROR,    /* a Lua tuning space failed; the message carries file:line */
    W8A8_VERIFY_FAILED,   /* a kernel's output differed from the reference */
    W8A8_NOT_FOUND,       /* a named item (template, space, cache entry) does not exist */
    W8A8_BUDGET_SPENT,    /* a time budget ran out before the work finished */
    W8A8_INTERNAL,        /* a bug in w8a8jit */
    W8A8_HUNG             /* a kernel never finished (the tuner's watchdog): the GPU stays busy
                             with it, so the context is unusable; exit the process */
} w8a8_status;

/* "W8A8_OK", "W8A8_INVALID", …; "W8A8_UNKNOWN" for a value not in the enum. */
W8A8_API const char *w8a8_status_string(w8a8_status status);

/* ---------------------------------------------------------------------------------------
 * Enums
 * ------------------------------------------------------------------------------------- */

typedef enum w8a8_dtype {
    W8A8_DTYPE_NONE = 0, /* "no tensor" (e.g. no bias) */
    W8A8_E4M3,           /* float8 e4m3fn (OCP, max 448, no inf) */
    W8A8_E5M2,           /* float8 e5m2 (max 57344) */
    W8A8_INT8,
    W8A8_BF16,
    W8A8_FP16,
    W8A8_FP32,
    W8A8_E4M3FNUZ        /* float8 e4m3fnuz (max 240, 0x80 is NaN); weight utilities only */
} w8a8_dtype;

/* "e4m3", "e5m2", "int8", "bf16", "fp16", "fp32", "e4m3fnuz", "none"; NULL if unknown. */
W8A8_API const char *w8a8_dtype_name(w8a8_dtype dtype);
/* Parses the names above; W8A8_INVALID for anything else. */
W8A8_API w8a8_status w8a8_dtype_parse(const char *name, w8a8_dtype *dtype /* OUT */);
/* Bytes per element; 0 for W8A8_DTYPE_NONE or an unknown value. */
W8A8_API size_t w8a8_dtype_size(w8a8_dtype dtype);

typedef enum w8a8_scale_kind {
    W8A8_SCALE_TENSOR = 0, /* one float */
    W8A8_SCALE_ROW,        /* one float per row: per-token for A (M), per-channel for B (N) */
    W8A8_SCALE_BLOCK       /* one float per group_rows × group_k block */
} w8a8_scale_kind;

/* "tensor", "row", "block"; NULL if unknown. */
W8A8_API const char *w8a8_scale_kind_name(w8a8_scale_kind kind);

/*
 * How one operand's dequantization scales are laid out.
 *
 * Block scales: the operand (rows × K) is cut into group_rows × group_k blocks; the scale of
 * element (r, k) is at [r / group_rows][k / group_k] (row-major, the default) or at
 * [k / group_k][r / group_rows] when k_major is set (for A this is the K/128 × M layout that
 * TMA wants). ld is the leading dimension of that scale matrix in floats (0 = dense:
 * ceil(K / group_k) row-major, ceil(rows / group_rows) K-major). vLLM's block FP8 is
 * A: group_rows 1, group_k 128; B: group_rows 128, group_k 128. Tails are allowed: a partial
 * last block uses its own scale.
 * Rules (w8a8_problem_validate): group_rows ≥ 1; group_k ≥ 1 (W8A8_INVALID otherwise) and a
 * multiple of 16 (W8A8_UNSUPPORTED otherwise: kernels step K 16 bytes at a time); k_major 0
 * or 1; ld 0 or ≥ the dense value. When both A and B have block scales their group_k must be
 * equal (W8A8_UNSUPPORTED otherwise).
 * The fields other than kind are ignored for W8A8_SCALE_TENSOR and W8A8_SCALE_ROW.
 */
typedef struct w8a8_scale_layout {
    w8a8_scale_kind kind;
    int32_t group_rows;
    int32_t group_k;
    int32_t k_major;
    int64_t ld;
} w8a8_scale_layout;

typedef enum w8a8_azp_kind {
    W8A8_AZP_NONE = 0,
    W8A8_AZP_TENSOR, /* one int32 zero point for all of A */
    W8A8_AZP_TOKEN   /* one int32 zero point per row of A */
} w8a8_azp_kind;

/*
 * How FP8 products are summed over K. The tensor cores' FP8 accumulator keeps fewer mantissa
 * bits than fp32 (Hopper wgmma, Ada mma), so a long K loses accuracy: at 1000×4096×14336 up
 * to ~0.9 % of max |out|.
 *  W8A8_ACCUM_FAST      the tensor core's accumulator over the whole K (cuBLASLt's
 *                       "fast accumulation"; torch._scaled_mm(use_fast_accum=True)).
 *  W8A8_ACCUM_PROMOTED  partial sums of at most 128 products, added into fp32 (what
 *                       torch._scaled_mm does by default).
 * It matters only for FP8 operands with per-tensor / per-row scales: block scales are always
 * promoted (every 128-wide K block has its own scales) and INT8 sums exactly in int32, so
 * there the two values are the same problem (the same tuning key, the same kernels).
 */
typedef enum w8a8_accum {
    W8A8_ACCUM_FAST = 0,
    W8A8_ACCUM_PROMOTED
} w8a8_accum;

/* "fast", "promoted"; NULL if unknown. */
W8A8_API const char *w8a8_accum_name(w8a8_accum accum);
/* Parses the names above; W8A8_INVALID for anything else. */
W8A8_API w8a8_status w8a8_accum_parse(const char *name, w8a8_accum *accum /* OUT */);

/* ---------------------------------------------------------------------------------------
 * Problem and tensors
 * ------------------------------------------------------------------------------------- */

/*
 * A scaled matmul problem. Zero-initialize and fill; w8a8_problem_init() gives the common
 * defaults (per-tensor scales, bf16 out, no bias, dense strides).
 *
 *  m, n, k        sizes, 1 … 2^31 − 1. k % 16 == 0 (8-bit operands: 16-byte rows).
 *  a_type         W8A8_E4M3, W8A8_E5M2 or W8A8_INT8 (W8A8_E4M3FNUZ: W8A8_UNSUPPORTED).
 *  b_type         the same family as a_type (FP8 mixes allowed; int8 only with int8).
 *  out_type       W8A8_BF16, W8A8_FP16 or W8A8_FP32.
 *  bias_type      W8A8_DTYPE_NONE (no bias), out_type, or W8A8_FP32.
 *  a_scale        layout of sa (A's scales); b_scale the same for B. Any kind for A with any
 *                 kind for B (see w8a8_scale_layout for the block rules).
 *  azp            int8 A only: asymmetric activations. Then
 *                 out = sa[m]·sb[n]·(Σ_k A·B − azp[m]·b_col_sums[n]) + bias[n]
 *                 (vLLM's azp epilogues); needs per-tensor or per-row scales on both sides.
 *  accum          W8A8_ACCUM_FAST (0, the default) or W8A8_ACCUM_PROMOTED: see w8a8_accum.
 *  lda, ldb, ldc  row strides in elements (0 = dense: k, k, n), ≥ the row length. Row
 *                 strides of every operand, dense ones included, must be multiples of 16
 *                 bytes: with ldc = 0 that means n % 8 == 0 for bf16/fp16 out and
 *                 n % 4 == 0 for fp32 out. Every operand's extent must fit 64-bit offsets.
 * Integer sums are int32 in the kernels: exact while |Σ_k A·B| < 2^31, which holds for any
 * data with k ≤ 131072.
 *
 * Tensors (checked by every matmul call, not by w8a8_problem_validate): a, b, out, a_scale,
 * b_scale non-NULL; a, b, out, bias and row/block scales 16-byte aligned, per-tensor scales,
 * azp and b_col_sums 4-byte aligned; bias set exactly when bias_type is not none; azp and
 * b_col_sums set exactly when azp is not W8A8_AZP_NONE (a pointer that would be ignored is an
 * error, since it is usually a caller's bug). Every violation is W8A8_INVALID with a message
 * naming the field ("problem.k: 100 is not a multiple of 16", "tensors.bias is NULL").
 */
typedef struct w8a8_problem {
    int64_t m, n, k;
    w8a8_dtype a_type, b_type, out_type, bias_type;
    w8a8_scale_layout a_scale, b_scale;
    w8a8_azp_kind azp;
    int64_t lda, ldb, ldc;
    w8a8_accum accum;
} w8a8_problem;

/* Fills *problem: the sizes and dtypes given, per-tensor scales, no bias, no zero point,
 * dense strides. */
W8A8_API void w8a8_problem_init(w8a8_problem *problem /* OUT */, int64_t m, int64_t n,
                                int64_t k, w8a8_dtype ab_type, w8a8_dtype out_type);

/*
 * The tensors of one call: device pointers for w8a8_scaled_mm, host pointers for
 * w8a8_scaled_mm_cpu. Scales are float32 in the layouts of the problem; azp is int32
 * (1 or M values), b_col_sums int32 (N values, Σ_k B[n, k]).
 */
typedef struct w8a8_tensors {
    const void *a;
    const void *b;
    void *out;
    const float *a_scale;
    const float *b_scale;
    const void *bias;
    const int32_t *azp;
    const int32_t *b_col_sums;
} w8a8_tensors;

/* ---------------------------------------------------------------------------------------
 * Context
 * ------------------------------------------------------------------------------------- */

typedef struct w8a8_context w8a8_context;

/* Bits of w8a8_context_options.flags. */
#define W8A8_CONTEXT_NO_DISK_CACHE 0x1u /* do not read or write the on-disk cubin store */
#define W8A8_CONTEXT_CPU_ONLY 0x2u      /* do not look for a driver or device at all */

/*
 * Options of w8a8_context_open; NULL or zero fields mean the defaults.
 *  device_ordinal  CUDA device to use (default 0).
 *  kernel_dir      cubin store folder (default $W8A8_KERNEL_DIR, else
 *                  $XDG_CACHE_HOME/w8a8jit/kernels, else ~/.cache/w8a8jit/kernels).
 *  cache_db        the user's writable tuning database (default $W8A8_CACHE_DB, else
 *                  $XDG_CACHE_HOME/w8a8jit/tuning.db).
 *  cache_path      extra read-only databases, ':'-separated (default $W8A8_CACHE_PATH).
 *  template_dir    read templates and spaces from this folder instead of the embedded copies
 *                  (default $W8A8_TEMPLATE_DIR).
 */
typedef struct w8a8_context_options {
    int device_ordinal;
    const char *kernel_dir;
    const char *cache_db;
    const char *cache_path;
    const char *template_dir;
    uint32_t flags;
} w8a8_context_options;

/*
 * Opens a context: loads the CUDA driver with dlopen (if present), retains the primary
 * context of the device, and remembers the options. Succeeds without a driver or device
 * (then GPU calls return W8A8_NO_DEVICE); *ctx is set even on failure when it can carry
 * the message, so call w8a8_errmsg(*ctx) and then w8a8_context_close(*ctx).
 * Returns W8A8_OK, W8A8_INVALID (ctx NULL, bad ordinal, a path of the options or of the
 * environment longer than 1023 bytes, 4095 for cache_path), W8A8_NO_MEMORY.
 * Thread safety: a context may be used from several threads at once.
 */
W8A8_API w8a8_status w8a8_context_open(w8a8_context **ctx /* OUT */,
                                       const w8a8_context_options *options);
/* Releases everything the context holds. Accepts NULL. */
W8A8_API void w8a8_context_close(w8a8_context *ctx);

/* The last error's message on this context ("" after success). Owned by the context, valid
 * until the next call on it from the same thread. NULL ctx gives a static message. */
W8A8_API const char *w8a8_errmsg(const w8a8_context *ctx);
/* The last error's status. */
W8A8_API w8a8_status w8a8_errcode(const w8a8_context *ctx);
/* The underlying CUresult / nvrtcResult of the last error, 0 if none. */
W8A8_API int w8a8_error_cuda(const w8a8_context *ctx);
W8A8_API int w8a8_error_nvrtc(const w8a8_context *ctx);

/* Whether the context has a usable device (driver loaded, device opened). */
W8A8_API int w8a8_context_has_device(const w8a8_context *ctx);

/*
 * Describes the context's device and tool versions. Strings live in the struct.
 * Without a device, has_device is 0 and the device fields are empty; the NVRTC version and
 * cache locations are always filled. Returns W8A8_OK or W8A8_INVALID.
 */
typedef struct w8a8_device_info {
    int has_device;
    char name[128];
    char arch[16];      /* "sm_90" */
    int sm_count;
    int cc_major, cc_minor;
    uint64_t memory_bytes;
    uint64_t l2_bytes;
    int max_smem_optin; /* bytes of shared memory per block after opt-in */
    int driver_version; /* cuDriverGetVersion, 0 without a driver */
    int nvrtc_major, nvrtc_minor;
    char kernel_dir[1024];
    char cache_db[1024];
    char template_dir[1024]; /* "" when templates are embedded */
    char no_device_reason[256];
} w8a8_device_info;
W8A8_API w8a8_status w8a8_context_device_info(w8a8_context *ctx, w8a8_device_info *info /* OUT */);

/* Counters kept per context, for tests and diagnostics. */
typedef struct w8a8_context_stats {
    uint64_t nvrtc_compiles;    /* programs compiled by NVRTC in this process */
    uint64_t disk_hits;         /* cubins loaded from the on-disk store */
    uint64_t memory_hits;       /* kernels found in the in-memory module table */
    uint64_t launches;          /* kernels launched */
} w8a8_context_stats;
W8A8_API w8a8_status w8a8_context_stats_get(w8a8_context *ctx, w8a8_context_stats *stats /* OUT */);

/* ---------------------------------------------------------------------------------------
 * Scaled matmul
 * ------------------------------------------------------------------------------------- */

/*
 * Checks a problem without running anything: sizes, dtype combination, strides, scale
 * layouts. Returns W8A8_OK, W8A8_INVALID or W8A8_UNSUPPORTED with a message naming the
 * argument.
 */
W8A8_API w8a8_status w8a8_problem_validate(w8a8_context *ctx, const w8a8_problem *problem);

/*
 * out = (sa ⊙ A)(sb ⊙ B)ᵀ (+ bias) on the GPU, asynchronously on `stream` (NULL = the
 * legacy default stream). Validates everything first (pointers too) and launches nothing
 * on bad input. The kernel is the dispatcher's choice (see the tuning section); the first
 * call for a problem class may compile it (NVRTC) or load it from the cubin store.
 * Returns W8A8_OK, W8A8_INVALID, W8A8_UNSUPPORTED, W8A8_NO_DEVICE, W8A8_CUDA_ERROR,
 * W8A8_COMPILE_ERROR. Thread-safe.
 */
W8A8_API w8a8_status w8a8_scaled_mm(w8a8_context *ctx, const w8a8_problem *problem,
                                    const w8a8_tensors *tensors, void *stream);

/* The same through the reference kernel, bypassing the dispatcher (the oracle). */
W8A8_API w8a8_status w8a8_scaled_mm_reference(w8a8_context *ctx, const w8a8_problem *problem,
                                              const w8a8_tensors *tensors, void *stream);

/*
 * The same function on the CPU with host pointers, in fp64 accumulation rounded once to
 * out_type. Slow; for tests and verification.
 */
W8A8_API w8a8_status w8a8_scaled_mm_cpu(w8a8_context *ctx, const w8a8_problem *problem,
                                        const w8a8_tensors *tensors);

/* ---------------------------------------------------------------------------------------
 * JIT
 * ------------------------------------------------------------------------------------- */

/* Resource usage of one compiled kernel, from ptxas. */
typedef struct w8a8_kernel_info {
    int registers;
    int shared_bytes;  /* static shared memory */
    int spill_stores;  /* bytes */
    int spill_loads;   /* bytes */
    int stack_bytes;
    double compile_ms; /* 0 when loaded from memory or disk */
    int from_disk;     /* 1 if the cubin came from the on-disk store */
    int rejected;      /* 1 if spills or ptxas notes C7508/C7510/C7511/C7515 reject it */
    char reject_reason[128];
} w8a8_kernel_info;

/*
 * Compiles (or finds in the cubin store) template `template_name` (e.g. "reference_gemm")
 * specialized by `defines` — "NAME=VALUE" items separated by ',' or whitespace, each becoming
 * `#define W8A8_NAME VALUE` in the generated prologue — for `arch` ("sm_80", "sm_86",
 * "sm_89", "sm_90", "sm_90a"). Needs no GPU. `info` (optional OUT) gets the resource usage.
 * `log` (optional OUT) gets the compile log, malloc'ed, caller frees; NULL if none.
 * Returns W8A8_OK, W8A8_INVALID, W8A8_NOT_FOUND (template), W8A8_COMPILE_ERROR, W8A8_IO_ERROR.
 */
W8A8_API w8a8_status w8a8_kernel_compile(w8a8_context *ctx, const char *template_name,
                                         const char *defines, const char *arch,
                                         w8a8_kernel_info *info, char **log);

/* Names of the templates the context sees (embedded or from template_dir), NULL-terminated,
 * static or context-owned; valid until the context closes. */
W8A8_API const char *const *w8a8_template_names(w8a8_context *ctx);

/* Frees memory the library handed to the caller (logs, listings). Accepts NULL. */
W8A8_API void w8a8_free(void *ptr);

/* ---------------------------------------------------------------------------------------
 * Quantization, the fused linear call and weight utilities
 * ------------------------------------------------------------------------------------- */
/* @@SECTION quant: owned by the quantization work; keep declarations between the markers. */
/*
 * Quantization turns bf16/fp16/fp32 activations (M×K row-major) into e4m3 or int8 codes plus
 * float32 dequantization scales, in the layouts w8a8_scaled_mm reads: x ≈ scale · q (int8
 * asymmetric: x ≈ scale · (q − azp)).
 *
 * Formulas (GPU and CPU compute exactly these, bit for bit; every step is one IEEE fp32
 * operation rounded to nearest even, in this order):
 *   statistics   amax = max |x| (or min, max when asymmetric) over the FINITE inputs of the
 *                granule; NaN and ±inf never move a scale. A granule without finite inputs
 *                has amax = 0 (min = max = 0).
 *   symmetric    a = max(min(amax, *scale_ub), min_amax)   (the min only with scale_ub)
 *                scale = a / qmax        (qmax: e4m3 448, int8 127)
 *   asymmetric   range = max(max − min, min_amax); scale = range / 255 (int8 only)
 *                azp = rne_sat_int32(−128 − min / scale)
 *   static       scale (and azp) are the caller's, read on the device.
 *   codes        inv = 1 / scale; v = x · inv
 *                e4m3: sat_rne(v): |v| ≥ 448 and ±inf give ±448 (0x7E/0xFE), NaN gives 0x7F,
 *                      values below the denormal grid round to ±0 (0x00/0x80).
 *                int8: rne(v) saturated to [−128, 127]; NaN gives 0.
 *                int8 asymmetric: clamp(rne_sat_int32(v) + azp, −128, 127); NaN gives
 *                      clamp(azp, −128, 127).
 * min_amax keeps every scale positive and finite, so an all-zero row gets scale
 * min_amax / qmax and codes 0, never a division by zero or a NaN scale. Defaults: 2^-9
 * (per-tensor, per-token: the scale floor 1/(qmax·512) of vLLM's per-token FP8 kernel) and
 * 1e-10 (per-group: vLLM's per_token_group_quant eps).
 *
 * Relation to vLLM: per-tensor static/dynamic FP8 and the int8 azp kernels multiply by
 * 1/scale as here and agree bit for bit on finite inputs; vLLM's per-token FP8, per-group and
 * static int8 kernels divide by the scale instead, which can move a value lying within one
 * fp32 ulp of a rounding boundary by one code. vLLM's scales also count ±inf (so one inf
 * input zeroes its row) and divide by zero on all-zero granules; here neither happens.
 *
 * Padding: with m_pad > 1 the output has M_out = ceil(M / m_pad) · m_pad rows. Rows
 * M ≤ r < M_out are quantized as if their input were all zeros (per-token and group scales
 * min_amax/qmax and codes 0; per-token asymmetric: azp −128 and codes −128; per-tensor: the
 * tensor's code of 0), and they never enter a per-tensor scale.
 */
typedef enum w8a8_quant_mode {
    W8A8_QUANT_STATIC_TENSOR = 0, /* the caller's scale (and azp): 1 value each */
    W8A8_QUANT_DYNAMIC_TENSOR,    /* one scale computed over the whole tensor */
    W8A8_QUANT_DYNAMIC_TOKEN,     /* one scale per row (M_out floats) */
    W8A8_QUANT_DYNAMIC_GROUP      /* one scale per 1 × group_k group of a row */
} w8a8_quant_mode;

/* "static", "tensor", "token", "group"; NULL if unknown. */
W8A8_API const char *w8a8_quant_mode_name(w8a8_quant_mode mode);

/* Default min_amax of per-tensor and per-token scales (2^-9) and of group scales. */
#define W8A8_QUANT_MIN_AMAX 0.001953125f
#define W8A8_QUANT_GROUP_MIN_AMAX 1e-10f

/*
 * One quantization. Zero-initialize and fill.
 *  m, k           rows and columns of the input, ≥ 1; k % 16 == 0.
 *  in_type        W8A8_BF16, W8A8_FP16 or W8A8_FP32.
 *  out_type       W8A8_E4M3 or W8A8_INT8.
 *  mode           see w8a8_quant_mode.
 *  group_k        group mode: elements per group, a power of two from 16 to 256 (0 = 128).
 *                 K need not be a multiple: the last group of a row is shorter. Groups per
 *                 row G = ceil(k / group_k).
 *  scale_k_major  group mode: scales stored [G][scale_ld] (scale of (r, g) at
 *                 g·scale_ld + r, the K-major layout TMA wants) instead of row-major
 *                 [M_out][scale_ld] (at r·scale_ld + g).
 *  scale_ld       group mode: leading dimension of the scales in floats, 0 = dense (G
 *                 row-major, M_out K-major); at least that. Entries past the dense extent
 *                 are not written.
 *  m_pad          0 or 1: no padding; else M_out is M rounded up to a multiple of m_pad.
 *  asymmetric     int8 and per-tensor (static or dynamic) or per-token only: codes carry a
 *                 zero point (int32, 1 or M_out values).
 *  min_amax       floor of the amax (of the range when asymmetric); 0 = the default for the
 *                 mode; else must be positive and finite.
 *  ld_in          row stride of the input in elements (0 = k); ld_out of the output in bytes
 *                 (0 = k). Both rows and base pointers must keep 16-byte alignment.
 */
typedef struct w8a8_quant_problem {
    int64_t m, k;
    w8a8_dtype in_type, out_type;
    w8a8_quant_mode mode;
    int32_t group_k;
    int32_t scale_k_major;
    int64_t scale_ld;
    int32_t m_pad;
    int32_t asymmetric;
    float min_amax;
    int64_t ld_in, ld_out;
} w8a8_quant_problem;

/*
 * The tensors of one quantization: device pointers for w8a8_quantize, host pointers for
 * w8a8_quantize_cpu. Nothing may overlap.
 *  in         M × K input.
 *  out        M_out × K codes (OUT).
 *  scale      static: 1 float, read. Dynamic: written (OUT): 1 float per tensor, M_out per
 *             token, per group as laid out by the problem.
 *  azp        asymmetric only: static: 1 int32, read; dynamic: written like the scale (1 or
 *             M_out values). NULL otherwise (a pointer that would be ignored is W8A8_INVALID).
 *  scale_ub   optional (NULL = none), dynamic symmetric modes: 1 float, the upper bound of
 *             the amax (vLLM's input_scale_ub clamps the amax before the scale is computed).
 */
typedef struct w8a8_quant_tensors {
    const void *in;
    void *out;
    float *scale;
    int32_t *azp;
    const float *scale_ub;
} w8a8_quant_tensors;

/* Checks a quantization problem without running anything. W8A8_OK or W8A8_INVALID with a
 * message naming the field. */
W8A8_API w8a8_status w8a8_quant_problem_validate(w8a8_context *ctx,
                                                 const w8a8_quant_problem *problem);

/* Rows of the output (M_out), or -1 for an invalid problem. */
W8A8_API int64_t w8a8_quant_rows_out(const w8a8_quant_problem *problem);

/*
 * Quantizes on the GPU, asynchronously on `stream` (NULL = the legacy default stream), with
 * no host synchronization: dynamic per-tensor runs three kernels (statistics folded into the
 * scale/azp slots by atomics, codes, then the final scale) after an asynchronous memset of
 * the slots; the other modes run one kernel. Safe under CUDA graph capture. The first call
 * per kernel variant compiles it (NVRTC) or loads it from the cubin store.
 * Returns W8A8_OK, W8A8_INVALID (problem, NULL or misaligned pointers), W8A8_NO_DEVICE,
 * W8A8_CUDA_ERROR, W8A8_COMPILE_ERROR. Thread-safe.
 */
W8A8_API w8a8_status w8a8_quantize(w8a8_context *ctx, const w8a8_quant_problem *problem,
                                   const w8a8_quant_tensors *tensors, void *stream);

/* The same on the CPU with host pointers; the reference the GPU kernels equal bit for bit.
 * Needs no device. Returns W8A8_OK or W8A8_INVALID. */
W8A8_API w8a8_status w8a8_quantize_cpu(w8a8_context *ctx, const w8a8_quant_problem *problem,
                                       const w8a8_quant_tensors *tensors);

/*
 * A linear layer with an unquantized activation:
 *     out = quantize(x) ·_scaled w (+ bias)
 * x (M×K, x_type) is quantized with the granularity below into the caller's workspace, then
 * w8a8_scaled_mm runs on the codes and the weight (N×K, K contiguous) with its scales.
 *  m, n, k        sizes; k % 16 == 0.
 *  x_type         W8A8_BF16, W8A8_FP16 or W8A8_FP32.
 *  w_type         W8A8_E4M3 or W8A8_E5M2 (x is quantized to e4m3) or W8A8_INT8 (to int8).
 *  out_type       W8A8_BF16, W8A8_FP16 or W8A8_FP32; bias_type W8A8_DTYPE_NONE, out_type or
 *                 W8A8_FP32.
 *  x_quant        how x is quantized; static needs tensors->x_scale.
 *  x_group_k      group mode: 0 = 128 (the A scales become a 1 × group_k block layout).
 *  x_scale_k_major group mode: scales K-major with leading dimension M rounded up to 4.
 *  x_asymmetric   int8 with per-tensor or per-token x: zero point, w_col_sums needed.
 *  x_min_amax     as w8a8_quant_problem.min_amax.
 *  w_scale        layout of the weight scales (as w8a8_problem.b_scale).
 *  ld_x, ld_w, ld_out   row strides in elements (0 = dense).
 *  accum          as w8a8_problem.accum.
 */
typedef struct w8a8_linear_problem {
    int64_t m, n, k;
    w8a8_dtype x_type, w_type, out_type, bias_type;
    w8a8_quant_mode x_quant;
    int32_t x_group_k;
    int32_t x_scale_k_major;
    int32_t x_asymmetric;
    float x_min_amax;
    w8a8_scale_layout w_scale;
    int64_t ld_x, ld_w, ld_out;
    w8a8_accum accum;
} w8a8_linear_problem;

/*
 * Device pointers of one linear call.
 *  x, w, out, w_scale, bias   as the names say (bias NULL when bias_type is NONE).
 *  x_scale    static x_quant: the activation scale (1 float, read). Unused otherwise.
 *  x_azp      static asymmetric: the activation zero point (1 int32, read).
 *  x_scale_ub optional upper bound of dynamic symmetric amaxes (1 float), or NULL.
 *  w_col_sums asymmetric: Σ_k w[n, k] as int32 (N values); must be NULL otherwise.
 * w, out, w_scale, bias and w_col_sums reach w8a8_scaled_mm as they are, under its rules
 * (alignment; a pointer the problem does not use is an error).
 */
typedef struct w8a8_linear_tensors {
    const void *x;
    const void *w;
    void *out;
    const float *w_scale;
    const void *bias;
    const float *x_scale;
    const int32_t *x_azp;
    const float *x_scale_ub;
    const int32_t *w_col_sums;
} w8a8_linear_tensors;

/*
 * Device workspace bytes w8a8_linear needs for this problem: the codes of x (M × K bytes),
 * then its scales and zero points, each part 256-byte aligned. Depends on m, k, x_quant,
 * x_group_k, x_scale_k_major and x_asymmetric only. *bytes OUT.
 * Returns W8A8_OK or W8A8_INVALID.
 */
W8A8_API w8a8_status w8a8_linear_workspace_size(w8a8_context *ctx,
                                                const w8a8_linear_problem *problem,
                                                size_t *bytes /* OUT */);

/*
 * Runs the linear layer on `stream`: w8a8_quantize into `workspace` (device memory, 256-byte
 * aligned, at least w8a8_linear_workspace_size bytes, not shared with a concurrent call) and
 * w8a8_scaled_mm, with no host synchronization. The result is bit-identical to calling those
 * two functions with the same problems. Validates everything before launching anything.
 * Returns W8A8_OK, W8A8_INVALID, W8A8_UNSUPPORTED, W8A8_NO_DEVICE, W8A8_CUDA_ERROR,
 * W8A8_COMPILE_ERROR. Thread-safe.
 */
W8A8_API w8a8_status w8a8_linear(w8a8_context *ctx, const w8a8_linear_problem *problem,
                                 const w8a8_linear_tensors *tensors, void *workspace,
                                 size_t workspace_bytes, void *stream);

/*
 * The two problems w8a8_linear runs, for callers that want to run the steps themselves:
 * the quantization of x (out quant, may be NULL) and the matmul (out mm, may be NULL),
 * with the scale and zero-point layouts the workspace holds. Returns W8A8_OK or
 * W8A8_INVALID.
 */
W8A8_API w8a8_status w8a8_linear_problems(w8a8_context *ctx, const w8a8_linear_problem *problem,
                                          w8a8_quant_problem *quant /* OUT */,
                                          w8a8_problem *mm /* OUT */);

/*
 * Weight utilities for loading checkpoints (vLLM's process_weights_after_loading).
 *
 * w8a8_weight_requantize_fused: a fused weight (QKV, gate/up) of n_shards row blocks, shard i
 * having shard_rows[i] rows of k codes and one per-tensor scale shard_scales[i], becomes one
 * weight with one scale s = max_i shard_scales[i]: each code q of shard i becomes
 * sat_rne((decode(q) · s_i) · (1/s)) (fp32 steps, e4m3 or int8 rules above); a shard whose
 * scale equals s is copied unchanged. (vLLM dequantizes through fp16 instead of fp32.)
 *  type          W8A8_E4M3 or W8A8_INT8.
 *  shard_rows    host array of n_shards (1…64) positive row counts; k % 16 == 0.
 *  w_in, w_out   Σ rows × k codes; may be the same pointer (in place), else must not overlap.
 *  shard_scales  n_shards floats; out_scale (OUT) 1 float, may alias shard_scales[j].
 * GPU: device pointers, asynchronous on stream. CPU (_cpu): host pointers.
 * Returns W8A8_OK, W8A8_INVALID, and for the GPU W8A8_NO_DEVICE, W8A8_CUDA_ERROR,
 * W8A8_COMPILE_ERROR.
 */
W8A8_API w8a8_status w8a8_weight_requantize_fused(w8a8_context *ctx, w8a8_dtype type, int64_t k,
                                                  const int64_t *shard_rows, int32_t n_shards,
                                                  const void *w_in, void *w_out,
                                                  const float *shard_scales, float *out_scale,
                                                  void *stream);
W8A8_API w8a8_status w8a8_weight_requantize_fused_cpu(w8a8_context *ctx, w8a8_dtype type,
                                                      int64_t k, const int64_t *shard_rows,
                                                      int32_t n_shards, const void *w_in,
                                                      void *w_out, const float *shard_scales,
                                                      float *out_scale);

/*
 * w8a8_weight_expand_scales: per-shard scales → per-channel scales: channel_scales (OUT,
 * Σ shard_rows floats) gets shard_scales[i] for each row of shard i (vLLM's
 * convert_to_channelwise). shard_rows is a host array (1…64 positive counts); the scales
 * are device pointers (GPU, asynchronous) or host pointers (_cpu). Returns as above.
 */
W8A8_API w8a8_status w8a8_weight_expand_scales(w8a8_context *ctx, const int64_t *shard_rows,
                                               int32_t n_shards, const float *shard_scales,
                                               float *channel_scales, void *stream);
W8A8_API w8a8_status w8a8_weight_expand_scales_cpu(w8a8_context *ctx, const int64_t *shard_rows,
                                                   int32_t n_shards, const float *shard_scales,
                                                   float *channel_scales);

/*
 * w8a8_weight_e4m3fn_to_fnuz: converts an e4m3fn weight to e4m3fnuz in place (for GPUs whose
 * FP8 is fnuz): the code 0x80 (−0 in fn, NaN in fnuz) becomes 0x00; every other code keeps its
 * bits, which mean half the value in fnuz, so each of the n_scales scales is doubled in
 * place. fn NaN codes 0x7F/0xFF become ±240 (as vLLM's normalize_e4m3fn_to_e4m3fnuz).
 *  weight   `bytes` codes (16-byte aligned on the GPU); scales n_scales ≥ 0 floats.
 * GPU: device pointers, asynchronous on stream. CPU (_cpu): host pointers. Returns as above.
 */
W8A8_API w8a8_status w8a8_weight_e4m3fn_to_fnuz(w8a8_context *ctx, void *weight, int64_t bytes,
                                                float *scales, int64_t n_scales, void *stream);
W8A8_API w8a8_status w8a8_weight_e4m3fn_to_fnuz_cpu(w8a8_context *ctx, void *weight,
                                                    int64_t bytes, float *scales,
                                                    int64_t n_scales);
/* @@END quant */

/* ---------------------------------------------------------------------------------------
 * Tuning spaces (Lua)
 * ------------------------------------------------------------------------------------- */
/* @@SECTION space */
/*
 * A tuning space is a Lua script (scripts/<name>.lua, embedded in the library; a file of the
 * user's; or <W8A8_TEMPLATE_DIR>/scripts/<name>.lua) that says which configurations of one
 * kernel template are worth compiling and timing for a problem on a device: its parameter
 * lists, a valid() constraint, a rank() pre-ordering, the default() the dispatcher uses on a
 * cache miss, and the problems `w8a8 compile --all` builds. Scripts run in a sandbox: a fresh
 * Lua state per call below, only the base, string, table and math libraries (no load,
 * loadfile, dofile, require, string.dump, io, os, debug, print, math.random, table.move,
 * __gc, and no string patterns: string.find with plain = true only), source text only
 * (precompiled bytecode is refused), 10 million VM instructions and 2 s per script call,
 * 32 MiB of Lua heap, and no new globals once the chunk has run. Any failure of a script
 * comes back as W8A8_SCRIPT_ERROR with a message that starts "<file>:<line>: " (the file is
 * scripts/<name>.lua for an embedded space; a precompiled file gets "<file>: ").
 *
 * `space` below is a space's name ("sm90_gemm") or, when it contains '/' or ends in ".lua",
 * the path of a script file. `arch` is an NVRTC target ("sm_80", "sm_86", "sm_89", "sm_90",
 * "sm_90a"): the space is evaluated for a nominal device of that arch (A100, A10, L40S, H100
 * SXM: SM count, shared memory and L2 of that part), which needs no GPU; NULL means the
 * context's own device (W8A8_NO_DEVICE without one).
 *
 * A configuration is written canonically as "name=value,name=value" with every parameter of
 * the space, in the space's enumeration order (its `order` list, else sorted names); the
 * empty string for a space without parameters. That string is what the tuning cache keeps
 * and what w8a8_kernel_compile takes as its defines (together with the problem's traits).
 */

/* Bytes of a configuration string, NUL included, at most. */
#define W8A8_SPACE_CONFIG_BYTES 256

/* Names of the embedded spaces ("reference_gemm", "sm90_gemm", …), NULL-terminated; static
 * storage. Spaces in W8A8_TEMPLATE_DIR that are not embedded are not listed. Thread-safe. */
W8A8_API const char *const *w8a8_space_names(void);

/* The candidates of a space for one problem on one device (w8a8_space_enumerate). */
typedef struct w8a8_space_result {
    char name[64];          /* the space's name */
    char template_name[64]; /* the template it drives: templates/<template_name>.cuh */
    char arch[16];          /* the space's NVRTC target ("sm_90a"; "sm_80" = sm_80 or newer) */
    char device[128];       /* the device it was evaluated for */
    int applies;            /* what the space's applies(problem, device) said (1 if absent) */
    size_t total;           /* points of the cross product of its parameters */
    size_t invalid;         /* of which valid() rejected this many */
    size_t count;           /* valid ones, total − invalid: the entries below */
    char **configs;         /* count configuration strings, best rank first (ties in
                               enumeration order, the first parameter varying slowest) */
    double *ranks;          /* count ranks from rank() (0 when the space has none) */
} w8a8_space_result;

/*
 * Enumerates `space` for `problem` on `arch` (NULL: the context's device): every point of
 * the cross product of its parameters, kept when valid(config, problem, device) is true,
 * sorted by rank(config, problem, device) ascending. The count of valid configs is reported
 * whether or not applies() is true (`applies` says it).
 *  out   OUT; zero-filled on failure. Free with w8a8_space_result_free.
 * Returns W8A8_OK, W8A8_INVALID (NULL argument, unknown arch, m/n/k < 1), W8A8_NOT_FOUND
 * (no such space), W8A8_IO_ERROR, W8A8_NO_DEVICE (arch NULL without a device),
 * W8A8_SCRIPT_ERROR (file:line), W8A8_NO_MEMORY.
 * Thread-safe: concurrent calls each get their own Lua state.
 */
W8A8_API w8a8_status w8a8_space_enumerate(w8a8_context *ctx, const char *space,
                                          const w8a8_problem *problem, const char *arch,
                                          w8a8_space_result *out /* OUT */);
/* Frees what w8a8_space_enumerate put in *result and zeroes it. Accepts NULL. */
W8A8_API void w8a8_space_result_free(w8a8_space_result *result);

/*
 * The space's default configuration for `problem` on `arch` (NULL: the context's device):
 * what its default(problem, device) returns, checked to name every parameter with one of
 * its listed values and to pass valid(); a space without default() gives its best-ranked
 * valid configuration. Written to config (size bytes; W8A8_SPACE_CONFIG_BYTES suffice).
 * Returns W8A8_OK, W8A8_INVALID, W8A8_NOT_FOUND (no such space, or no valid configuration),
 * W8A8_IO_ERROR, W8A8_NO_DEVICE, W8A8_SCRIPT_ERROR, W8A8_NO_MEMORY. Thread-safe.
 */
W8A8_API w8a8_status w8a8_space_default(w8a8_context *ctx, const char *space,
                                        const w8a8_problem *problem, const char *arch,
                                        char *config /* OUT */, size_t size);

/* One kernel to build: a problem class and a configuration of the space. */
typedef struct w8a8_space_item {
    w8a8_problem problem;
    char config[W8A8_SPACE_CONFIG_BYTES];
} w8a8_space_item;

/* What `w8a8 compile` builds for one space and target (w8a8_space_compile_plan). */
typedef struct w8a8_space_plan {
    char name[64];
    char template_name[64]; /* pass to w8a8_kernel_compile */
    char arch[16];          /* the target asked for: compile every item for it */
    int targets_arch;       /* 0: the space's kernels cannot be built for arch (an sm_90a
                               space asked for sm_80 or sm_90); then count is 0 */
    size_t count;           /* entries of items */
    w8a8_space_item *items; /* per problem (compile_problems order), configs by rank */
    size_t problems;        /* problems compile_problems(device) returned */
    size_t not_applied;     /* of which applies() rejected this many */
    size_t total;           /* points enumerated over the problems that apply */
    size_t invalid;         /* of which valid() rejected this many */
    size_t capped;          /* valid configurations left out of the plan */
} w8a8_space_plan;

/*
 * Plans the compilation of `space` for NVRTC target `arch` (required; evaluated on the
 * nominal device of arch, so no GPU is needed): for each problem of the space's
 * compile_problems(device) (one per-tensor e4m3 → bf16 problem when it has none) that
 * applies(), the valid configurations in rank order, at most max_per_problem of them (0: all),
 * followed by the best-ranked valid configuration for each parameter value those leave out
 * (so a cap never leaves a code path of the template uncompiled). The caller compiles each item: w8a8_kernel_compile(ctx, plan.template_name, <the item's
 * config plus the problem's traits>, plan.arch, …).
 *  plan  OUT; zero-filled on failure. Free with w8a8_space_plan_free.
 * Returns W8A8_OK, W8A8_INVALID, W8A8_NOT_FOUND, W8A8_IO_ERROR, W8A8_SCRIPT_ERROR,
 * W8A8_NO_MEMORY. Thread-safe.
 */
W8A8_API w8a8_status w8a8_space_compile_plan(w8a8_context *ctx, const char *space,
                                             const char *arch, size_t max_per_problem,
                                             w8a8_space_plan *plan /* OUT */);
/* Frees what w8a8_space_compile_plan put in *plan and zeroes it. Accepts NULL. */
W8A8_API void w8a8_space_plan_free(w8a8_space_plan *plan);
/* @@END space */

/* ---------------------------------------------------------------------------------------
 * Tuning cache (SQLite)
 * ------------------------------------------------------------------------------------- */
/* @@SECTION cache */
/*
 * The cache keeps every measurement the tuner makes, in SQLite databases keyed by
 * (device, a/b/out/bias dtypes, scale layouts, zero point, N, K, M bucket); the M bucket is
 * the smallest of 1 2 4 8 16 24 32 48 64 96 128 192 256 384 512 768 1024 1536 2048 3072 4096
 * 6144 8192 12288 16384 that is ≥ M. A key's winner is its fastest verified "ok" row.
 * Layers: the user's writable database (options.cache_db) over read-only ones
 * (options.cache_path entries: .db or .sql files, or folders of them; then the databases
 * installed with the library). User rows win at equal match quality. A corrupt, truncated
 * or foreign file is skipped and reported by w8a8_cache_warnings(); it is never modified.
 * Every function here is thread-safe; none is meant for the matmul hot path.
 */

/* Flags of w8a8_cache_filter and w8a8_cache_export. */
#define W8A8_CACHE_WINNERS 0x1u   /* only each key's winner */
#define W8A8_CACHE_USER_ONLY 0x2u /* only the user's database, not the read-only layers */
#define W8A8_CACHE_UNTUNED 0x4u   /* list record mode's missed keys (user database only) */

/* A device as the cache identifies it. */
typedef struct w8a8_cache_device {
    char arch[16];          /* "sm_90" */
    char name[128];         /* product name, e.g. "NVIDIA H100 80GB HBM3" */
    int sm_count;
    uint64_t memory_bytes;
} w8a8_cache_device;

/*
 * One row of a listing: a measurement with its key and the file it came from, or (with
 * W8A8_CACHE_UNTUNED) a missed key with its count.
 *  problem         the key's problem class; problem.m is the M bucket, strides are 0.
 *  median_us, spread_us   median kernel time and its spread (p90 − p10) in microseconds.
 *  verify_error    max relative error against the reference; < 0 when not verified.
 *  verified        1 when the output matched the reference.
 *  status          "ok", "compile_error", "rejected", "verify_failed", "launch_error",
 *                  "hung" (the kernel never finished: see w8a8_tune), or "untuned" for
 *                  W8A8_CACHE_UNTUNED rows.
 *  template_hash   SHA-256 of the template the kernel came from ("" if unknown).
 *  driver_version, nvrtc_version   major*1000 + minor*10; lib_version "MAJOR.MINOR.PATCH".
 *  timestamp       unix seconds of the measurement.
 *  is_winner       1 when this row is its key's winner in its file.
 *  untuned_count, last_m   W8A8_CACHE_UNTUNED only: misses seen and the last M that missed.
 */
typedef struct w8a8_cache_entry {
    char source[1024];
    w8a8_cache_device device;
    w8a8_problem problem;
    char family[64];
    char config[256];
    double median_us, spread_us;
    int samples;
    double verify_error;
    int verified;
    char status[32];
    int registers, spills;
    double compile_ms;
    char template_hash[65];
    int driver_version, nvrtc_version;
    char lib_version[16];
    int64_t timestamp;
    int is_winner;
    int64_t untuned_count, last_m;
} w8a8_cache_entry;

/* Called once per row; return non-zero to stop the listing (not an error). */
typedef int (*w8a8_cache_visit)(void *user, const w8a8_cache_entry *entry);

/*
 * What w8a8_cache_list returns. Zero-initialize; every field is optional.
 *  flags        W8A8_CACHE_WINNERS, W8A8_CACHE_USER_ONLY, W8A8_CACHE_UNTUNED.
 *  problem      only keys of this problem class at the M bucket of problem->m (borrowed).
 *  arch         only devices of this arch ("sm_90"), NULL for any (borrowed).
 *  device_name  only this product name, NULL for any (borrowed).
 */
typedef struct w8a8_cache_filter {
    uint32_t flags;
    const w8a8_problem *problem;
    const char *arch;
    const char *device_name;
} w8a8_cache_filter;

/*
 * Lists rows of every layer (user database first), ordered by device, key, then median time.
 * `filter` may be NULL (every measurement). `visit` runs on the calling thread while the
 * cache is locked; it may call other cache functions of this context. `w8a8 cache list` and
 * `show` are this function.
 * Returns W8A8_OK (also when nothing matched), W8A8_INVALID, W8A8_CACHE_ERROR (a database
 * could not be read), W8A8_NO_MEMORY.
 */
W8A8_API w8a8_status w8a8_cache_list(w8a8_context *ctx, const w8a8_cache_filter *filter,
                                     w8a8_cache_visit visit, void *user);

/* The warnings about skipped database files, one per line ("" when none). Owned by the
 * context; valid until the context closes or the next cache call on it. */
W8A8_API const char *w8a8_cache_warnings(w8a8_context *ctx);

/*
 * Why the cache would pick a kernel for a problem.
 *  family, config   the chosen kernel ("" on a miss).
 *  match            "exact" (this device), "product" (same product name, other SM count or
 *                   memory), "arch" (another device of the same arch: foreign), "bucket"
 *                   (nearest M bucket; device_match says whose), "epilogue" (no row for the
 *                   problem's epilogue: the same shape's row with other per-tensor / per-row
 *                   scale kinds, out dtype or bias; reason names both), "miss". The dispatcher may
 *                   add its own kinds (a space default, the reference kernel).
 *  device_match     for a hit: "exact", "product" or "arch"; "" on a miss.
 *  foreign          1 when the row was measured on another device than the one asked about.
 *  reason           one sentence for people.
 *  source           the database file the row came from.
 *  device_name      the device the row was measured on.
 *  m_bucket         the problem's bucket; measured_bucket the bucket of the row used.
 *  median_us        the row's median time.
 */
typedef struct w8a8_explain {
    char family[64];
    char config[256];
    char match[16];
    char device_match[16];
    int foreign;
    char reason[512];
    char source[1024];
    char device_name[128];
    int64_t m_bucket;
    int64_t measured_bucket;
    double median_us;
} w8a8_explain;

/*
 * Explains the cache's answer for `problem` on `device` (NULL = the context's device).
 * A miss is not an error: out->match is "miss".
 * Returns W8A8_OK, W8A8_INVALID (NULL or non-positive sizes), W8A8_NO_DEVICE (device NULL
 * and the context has none), W8A8_CACHE_ERROR.
 */
W8A8_API w8a8_status w8a8_cache_explain_device(w8a8_context *ctx, const w8a8_problem *problem,
                                               const w8a8_cache_device *device,
                                               w8a8_explain *out /* OUT */);
/* The same on the context's device. */
W8A8_API w8a8_status w8a8_cache_explain(w8a8_context *ctx, const w8a8_problem *problem,
                                        w8a8_explain *out /* OUT */);

/*
 * Writes the user database's measurements to `path` (replaced atomically), chosen by its
 * extension: ".sql" gives reviewable text (one `INSERT INTO measurement_rows …` per row, the
 * format of the shipped databases and of w8a8_cache_import); ".csv" gives a table with a
 * header line for analysis (not importable). flags: W8A8_CACHE_WINNERS exports winners only.
 * `rows` (optional OUT) gets the number of rows written.
 * Returns W8A8_OK, W8A8_INVALID (no path, unknown extension), W8A8_IO_ERROR,
 * W8A8_CACHE_ERROR, W8A8_NO_MEMORY.
 */
W8A8_API w8a8_status w8a8_cache_export(w8a8_context *ctx, const char *path, uint32_t flags,
                                       int64_t *rows /* OUT, optional */);

/*
 * Adds the measurements of `path` (a ".sql" export or a w8a8jit ".db" of any schema
 * version) to the user database, creating it if needed. Rows already present (same device,
 * key, family, config, timestamp, median and sample count) are skipped, so importing twice
 * adds nothing. A .sql file may only insert rows: anything else in it fails the import.
 * All or nothing: on failure the user database is unchanged.
 * `added` (optional OUT) gets the number of new measurements.
 * Returns W8A8_OK, W8A8_INVALID, W8A8_IO_ERROR, W8A8_CACHE_ERROR (the file is corrupt or
 * foreign, or the user database cannot be written).
 */
W8A8_API w8a8_status w8a8_cache_import(w8a8_context *ctx, const char *path,
                                       int64_t *added /* OUT, optional */);

/*
 * Merges databases: `dst` (created if absent; a .db path) receives the union of its own
 * measurements and those of srcs[0..count) (.db or .sql), deduplicated as in
 * w8a8_cache_import. All or nothing. Does not involve the context's layers.
 * `added` (optional OUT) gets the number of new measurements in dst.
 * Returns W8A8_OK, W8A8_INVALID, W8A8_IO_ERROR, W8A8_CACHE_ERROR.
 */
W8A8_API w8a8_status w8a8_cache_merge(w8a8_context *ctx, const char *dst,
                                      const char *const *srcs, size_t count,
                                      int64_t *added /* OUT, optional */);

/*
 * What w8a8_cache_prune removes from the user database; zero-initialize.
 *  keep_winners  delete every measurement that is not its key's winner.
 *  stale         delete rows this build would not trust: a template_hash that differs from
 *                the template the context sees now (or a family with no template), an NVRTC
 *                version or library version other than this build's. Rows with an empty
 *                hash or zero/empty versions are not judged on that field. The driver version
 *                is not judged (cubins are compiled by NVRTC, not the driver).
 *  older_than    delete rows measured before this unix time (0: no age limit).
 * Stale and age pruning run first, then keep_winners elects among what is left. Keys and
 * devices left without rows are removed too, unless record mode still lists them.
 */
typedef struct w8a8_cache_prune_options {
    int keep_winners;
    int stale;
    int64_t older_than;
} w8a8_cache_prune_options;

/*
 * Prunes the user database (one transaction). `removed` (optional OUT) gets the number of
 * measurements deleted. Returns W8A8_OK, W8A8_INVALID (no options or none set),
 * W8A8_CACHE_ERROR.
 */
W8A8_API w8a8_status w8a8_cache_prune(w8a8_context *ctx, const w8a8_cache_prune_options *options,
                                      int64_t *removed /* OUT, optional */);
/* @@END cache */

/* ---------------------------------------------------------------------------------------
 * Autotuner and dispatcher
 * ------------------------------------------------------------------------------------- */
/* @@SECTION tune */
/*
 * The dispatcher
 * --------------
 * w8a8_scaled_mm turns a problem into a key (the problem class of w8a8_problem without m,
 * plus the M bucket: the smallest of 1 2 4 8 16 24 32 48 64 96 128 192 256 384 512 768 1024
 * 1536 2048 3072 4096 6144 8192 12288 16384 that is ≥ m) and looks it up in an in-memory
 * table of ready launch plans. The first call for a key (a miss) picks a kernel along a chain
 * and plans it (compiling or loading it):
 *   1. the tuning cache (exact device → same product → same arch → nearest M bucket);
 *   2. the default config of the tuning space of each family that supports the problem;
 *   3. the reference kernel (always works).
 * A pick that fails to plan (compile error, unsupported) falls to the next one, so every valid
 * problem runs. Later calls for the key take no lock, allocate nothing, synchronize nothing
 * and touch neither SQLite nor Lua: a hash probe and a launch.
 *
 * CUDA graphs: the first call for a key compiles or loads a module, which is not allowed
 * while a stream is being captured. Warm every key first (w8a8_dispatch_warm, or one ordinary
 * call), then capture.
 *
 * W8A8_TUNE (read when the dispatcher first runs on a context) sets the policy on a miss
 * (a key without an exact-device cache row):
 *   off     (default) take the chain above;
 *   record  the same, and remember the key in the cache's untuned table
 *           (`w8a8 tune --untuned` tunes exactly those);
 *   online  tune the key synchronously on first use (budget: W8A8_TUNE_BUDGET seconds,
 *           default 30), store the measurements, then dispatch the winner. Not while the
 *           stream is capturing (then it behaves like record).
 */
typedef enum w8a8_tune_mode {
    W8A8_TUNE_OFF = 0,
    W8A8_TUNE_RECORD,
    W8A8_TUNE_ONLINE
} w8a8_tune_mode;

/* Parses "off", "record", "online" (also "", "0" → off, "1" → record). W8A8_INVALID else. */
W8A8_API w8a8_status w8a8_tune_mode_parse(const char *text, w8a8_tune_mode *mode /* OUT */);
/* "off", "record", "online"; NULL for an unknown value. */
W8A8_API const char *w8a8_tune_mode_name(w8a8_tune_mode mode);

/* Overrides W8A8_TUNE for this context (keys already dispatched keep their plan).
 * Returns W8A8_OK or W8A8_INVALID. Thread-safe. */
W8A8_API w8a8_status w8a8_dispatch_set_tune_mode(w8a8_context *ctx, w8a8_tune_mode mode);

/*
 * Makes the problem's key ready without launching anything: picks and plans its kernel (what
 * the first w8a8_scaled_mm call for the key would do). Call it for every key before capturing
 * a CUDA graph. Returns what w8a8_scaled_mm returns, minus launch errors. Thread-safe.
 */
W8A8_API w8a8_status w8a8_dispatch_warm(w8a8_context *ctx, const w8a8_problem *problem);

/*
 * Says which kernel w8a8_scaled_mm runs for `problem` on this context's device, and why, in
 * `out` (see w8a8_explain in the cache section; out->match adds "space default" and
 * "reference" to the cache's kinds, and out->reason ends with any links of the chain that
 * were skipped or failed). For a key already dispatched it reports the
 * plan in use (after any fallback); otherwise the first pick of the chain, without compiling
 * anything (a pick that would fail to compile is not detected then). Works without a device
 * for nothing but the reference (the device identity is needed for cache rows).
 * Returns W8A8_OK, W8A8_INVALID, W8A8_UNSUPPORTED, W8A8_CACHE_ERROR. Thread-safe.
 */
W8A8_API w8a8_status w8a8_dispatch_explain(w8a8_context *ctx, const w8a8_problem *problem,
                                           w8a8_explain *out /* OUT */);

/*
 * The autotuner
 * -------------
 * For each problem (m is rounded up to its M bucket): every tuning space that applies (or the
 * one named in the options) enumerates its valid configs, ranked; the candidates (the space's
 * default config always among them) are compiled in parallel with NVRTC; spills and
 * serialized-wgmma notes reject a config. The rest are timed on the GPU — CUDA events around
 * batches of launches after a warm-up, inputs rotated through buffers totalling at least four
 * times the L2 size, random data, the median of repeated samples with the p10–p90 spread — and
 * each one's output is checked against the reference kernel first. A quick pass times every
 * survivor with host launches; the best few get more samples (successive halving), as replays
 * of a CUDA graph of their batch (as a serving engine replays them, with no gap a host busy
 * compiling leaves between launches). The winner is the fastest finalist. Every measurement
 * is written to the user's cache database as it is taken, so an interrupted run resumes: a
 * rerun skips (key, family, config) already measured unless `force`.
 */

/* Options of w8a8_tune; zero fields mean the defaults. */
typedef struct w8a8_tune_options {
    const w8a8_problem *problems; /* borrowed; m is rounded up to its bucket */
    size_t problem_count;
    const char *space;      /* a space name or a .lua path; NULL: every built-in that applies */
    double budget_seconds;  /* wall-clock budget of the whole call; ≤ 0: none */
    int force;              /* re-measure configs the database already has */
    int max_candidates;     /* per problem and space, best-ranked first; 0: all, or with a
                               budget the best 256 not measured before */
    int explore;            /* per space, about this many configs sampled from its whole
                               space (the same for every key) are timed too, after the
                               defaults: data to check a space's rank() against; 0: none */
    int threads;            /* compile threads; 0: online CPUs */
    int quick_samples;      /* samples per candidate in the quick pass (default 5) */
    int final_samples;      /* samples per finalist (default 30) */
    int finalists;          /* candidates that get the final pass (default 8) */
    /* More GPUs: contexts of other devices of the same model (name, SMs, memory) that time
     * keys in parallel with ctx, each on its own thread, into their databases (open them on
     * the same cache_db to get one). Keys are handed out one at a time; kernels are compiled
     * once for all. Borrowed for the call; none may be ctx itself or be used meanwhile. */
    w8a8_context *const *more_contexts;
    size_t more_context_count;
    /* The watchdog: a wait for the GPU that lasts longer than this many seconds (plus the
     * launches it covers times the longest launch seen so far) means a kernel hung; ≤ 0:
     * $W8A8_TUNE_WATCHDOG_S when set to a positive number, else 60 s. */
    double watchdog_seconds;
    /* Milliseconds the GPU idles before each finalist's timing in the final pass (0: none; at
     * most 1000). Under back-to-back load a GPU meets its power cap and lowers its clock, so a
     * finalist's times swing with what ran before it: on an H200, 100 made each finalist's
     * three round medians agree within 0.2 % (median; 7 % without), at 2.4 s more a key. */
    int final_settle_ms;
    /* With `space` set: 1 also times, for each key first, the cache's winners that the named
     * space's template can run (the same rows a plain tune times first: this key's bucket and
     * buckets within 4× of it, every layer), so that the winner the tune writes to the user
     * database, whose rows win the lookup, is never slower than what the dispatcher ran
     * before; 0: the named space tunes exactly what it lists. Without `space` the cache's
     * winners are always timed first and this must be 0 or 1. */
    int seed_space;
} w8a8_tune_options;

typedef enum w8a8_tune_phase {
    W8A8_TUNE_PHASE_PROBLEM,  /* a problem starts (total = its candidates) */
    W8A8_TUNE_PHASE_COMPILE,  /* waiting for the kernel of candidate done of total */
    W8A8_TUNE_PHASE_QUICK,    /* done/total candidates timed in the quick pass */
    W8A8_TUNE_PHASE_FINAL,    /* done/total finalist timings (rounds × finalists) */
    W8A8_TUNE_PHASE_MEASURED, /* one candidate was measured: `measurement` is set */
    W8A8_TUNE_PHASE_DONE,     /* a problem ended: `result` is set */
    W8A8_TUNE_PHASE_PLAN      /* done/total problems planned, before any is timed
                                 (`problem`: the last one planned) */
} w8a8_tune_phase;
/* Callers that keep something per phase size it with W8A8_TUNE_PHASE_COUNT. */
#define W8A8_TUNE_PHASE_COUNT (W8A8_TUNE_PHASE_PLAN + 1)

/* One candidate's outcome (what went into the database). */
typedef struct w8a8_tune_measurement {
    char family[64];
    char config[256];
    char status[32];      /* "ok", "compile_error", "rejected", "verify_failed", "launch_error",
                             "hung" */
    double median_us;     /* < 0 when not timed */
    double spread_us;     /* p90 − p10 of the samples */
    int samples;
    int batch;            /* launches per sample */
    double verify_error;  /* max |out − ref| / max |ref|; < 0 when not verified */
    int registers, spills;
    double compile_ms;
    int pass;             /* 1 quick, 2 final */
    int is_default;       /* the space's default config */
    long rank_position;   /* its place in its space's rank() order for this key (0 = best
                             ranked); -1 for a config the list got otherwise (a neighbour's
                             winner not among the space's valid configs) */
    int explored;         /* in the exploration sample (options.explore) */
    int cache_seed;       /* a winner the cache held (any layer, any device of the arch) for
                             this key or an M bucket within 4× of it, timed first: a tune
                             over the built-in spaces only */
    int variant;          /* a finalist's config with one of its space's `variants` (launch
                             arguments tried on the finalists only, e.g. sm90_gemm's
                             trigger=1) appended */
} w8a8_tune_measurement;

/* The outcome for one problem. */
typedef struct w8a8_tune_result {
    w8a8_problem problem;  /* as tuned: m = the bucket */
    w8a8_status status;    /* W8A8_OK, W8A8_BUDGET_SPENT (partial), or the error */
    char family[64];       /* the key's winner in the database after this run ("" if none) */
    char config[256];
    double best_us;        /* the winner's median (< 0 if none) */
    double default_us;     /* the space default's median in this run (< 0 if not timed) */
    char default_config[256];
    size_t candidates;     /* configs considered (valid, after max_candidates) */
    size_t skipped;        /* already in the database */
    size_t compiled, rejected, compile_failed, verify_failed, timed;
    double seconds;
} w8a8_tune_result;

/* What the progress callback sees. Pointers are valid during the callback only. */
typedef struct w8a8_tune_progress {
    w8a8_tune_phase phase;
    size_t problem_index, problem_count;
    const w8a8_problem *problem;  /* m = the bucket */
    const char *space;            /* the space of the candidate at hand, or NULL */
    size_t done, total;
    const char *config;           /* the candidate at hand, or NULL */
    double best_us;               /* best time so far for this problem (< 0: none yet) */
    const char *best_config;      /* NULL when none */
    double elapsed_seconds, budget_seconds;
    const w8a8_tune_measurement *measurement; /* W8A8_TUNE_PHASE_MEASURED only */
    const w8a8_tune_result *result;           /* W8A8_TUNE_PHASE_DONE only */
} w8a8_tune_progress;

/* Called never concurrently: from the thread that called w8a8_tune, or with more_contexts
 * from the timing thread of the device at hand (problem_index says which key). */
typedef void (*w8a8_tune_progress_fn)(const w8a8_tune_progress *progress, void *user);

/* Where a tuning run's time went (wall seconds of the timing thread unless said otherwise),
 * and what its compile pool did. Every distinct kernel is compiled once per run, however many
 * keys want it, by `compile_threads` workers running beside the timing. */
typedef struct w8a8_tune_profile {
    double plan_seconds;          /* evaluating the spaces (enumerate, rank) for every key */
    double compile_wait_seconds;  /* waiting for kernels (or compiling one no worker had) */
    double buffers_seconds;       /* allocating and filling the rotated inputs */
    double reference_seconds;     /* the reference kernel on the verification rows */
    double verify_seconds;        /* candidates' verification launches and comparisons */
    double timing_seconds;        /* timed launches, both passes */
    double record_seconds;        /* database writes and queries */
    size_t kernels;               /* distinct kernels the run's candidates name */
    size_t kernels_compiled;      /* compiled by NVRTC in this run */
    size_t kernels_from_store;    /* found in the cubin store instead */
    size_t kernels_unused;        /* never built: the budget ended first */
    int compile_threads;
    double compile_busy_seconds;  /* NVRTC and ptxas, summed over the threads */
    double compile_wall_seconds;  /* from the pool's start to its last compile's end */
    double pool_utilization;      /* busy / (threads × wall), 0…1 */
    size_t candidates_timed;      /* quick-pass measurements, all keys */
} w8a8_tune_profile;

/* The results, one per problem in order. Free with w8a8_tune_report_free. */
typedef struct w8a8_tune_report {
    w8a8_tune_result *results;
    size_t count;
    double seconds;
    int budget_spent;
    w8a8_tune_profile profile;
} w8a8_tune_report;

/*
 * Tunes every problem of `options` (see above). `progress` (optional) is called as work
 * advances; `user` is passed to it. `report` (optional OUT) gets one result per problem, also
 * when the call fails part-way (what was measured is kept there and in the database).
 * Measurements reach the database in batches (one transaction per second of measuring or
 * per 512 rows), at once with a hang, and at the latest before a problem's
 * W8A8_TUNE_PHASE_DONE is reported. With a budget, planning counts against it.
 * Keys this context already dispatched are re-planned with the new winners.
 * Returns W8A8_OK; W8A8_BUDGET_SPENT when the budget ran out (results are partial);
 * W8A8_INVALID (options, a problem), W8A8_NO_DEVICE, W8A8_NOT_FOUND / W8A8_SCRIPT_ERROR
 * (space), W8A8_CACHE_ERROR, W8A8_CUDA_ERROR, W8A8_NO_MEMORY. A candidate that fails to
 * compile, launch or verify is recorded as such and does not fail the call.
 * W8A8_HUNG: a candidate's kernel did not finish within options.watchdog_seconds. It is
 * recorded as "hung" (never a winner, never launched again while its template is unchanged,
 * even with `force`) and the call stops: the kernel keeps the GPU busy, so this context
 * refuses GPU work from then on (closing it skips whatever would wait for the device). Exit
 * the process and call again in a new one to resume; `w8a8 tune` does this itself.
 * Thread safety: one w8a8_tune per device at a time gives meaningful timings.
 */
W8A8_API w8a8_status w8a8_tune(w8a8_context *ctx, const w8a8_tune_options *options,
                               w8a8_tune_progress_fn progress, void *user,
                               w8a8_tune_report *report /* OUT */);
/* Frees the results of a report and zeroes it. Accepts NULL. */
W8A8_API void w8a8_tune_report_free(w8a8_tune_report *report);

/*
 * Benchmarking
 * ------------
 * The timing harness of the tuner, for any launcher: buffers for `problem` rotated so that
 * they total at least rotate_l2_factor × L2, filled with random data (never zeros), a warm-up,
 * then `samples` CUDA-event samples of a batch of launches each (`batch` launches, or as many
 * as last about min_batch_us), median and spread. With `graph`, the batch is captured once
 * into a CUDA graph and each sample replays it (what an engine that captures graphs sees, and
 * how shared/bench/peers.py times torch, 20 calls a replay); the launcher must then be
 * capturable (no synchronizing, no allocation): the dispatched kernel is, once its key is
 * planned (done first).
 */
#define W8A8_BENCH_MAX_BATCH 1000 /* w8a8_bench_options.batch's bound */
#define W8A8_BENCH_GRAPH_BATCH 20 /* peers.py's calls a replay: `w8a8 bench --graph`'s batch,
                                     and the fewest a graph sized by time holds */
typedef struct w8a8_bench_options {
    int samples;             /* default 20 */
    double min_batch_us;     /* default 1000 */
    double rotate_l2_factor; /* default 4 */
    size_t workspace_bytes;  /* device scratch handed to the launcher (default 0) */
    int verify;              /* first compare the launcher's output with the reference */
    int graph;               /* 1: time replays of a CUDA graph of the batch (default 0) */
    int batch;               /* launches per sample, 1…W8A8_BENCH_MAX_BATCH; default 0: as
                                many as take about min_batch_us, and with graph at least
                                W8A8_BENCH_GRAPH_BATCH. Without graph a long kernel then runs
                                in short bursts, at clocks that a longer run does not hold */
} w8a8_bench_options;

typedef struct w8a8_bench_result {
    double median_us, spread_us, min_us; /* per launch */
    int samples, batch, buffer_sets;
    double host_us;          /* host time per launch call inside the timed batches (graph:
                                the replay call's, per launch) */
    double tflops;           /* 2·M·N·K / median */
    double gbps;             /* (A + B read once, out written once) / median */
    double verify_error;     /* max |out − ref| / max |ref|; < 0 when not verified */
    int verified;            /* 1 when verify was asked and passed */
} w8a8_bench_result;

/* A launcher: runs one product of `problem` on `tensors` (device pointers) asynchronously on
 * `stream` (a CUstream), with `workspace` (workspace_bytes of device memory, or NULL).
 * Returns 0 on success, anything else to stop the measurement (W8A8_CUDA_ERROR). */
typedef int (*w8a8_bench_launch_fn)(void *user, const w8a8_problem *problem,
                                    const w8a8_tensors *tensors, void *workspace, void *stream);

/*
 * Times `launch` (NULL: w8a8_scaled_mm, the dispatched kernel, warmed first) on `problem`.
 * Returns W8A8_OK; W8A8_VERIFY_FAILED (result still filled, not timed); W8A8_INVALID,
 * W8A8_NO_DEVICE, W8A8_NO_MEMORY, W8A8_CUDA_ERROR, or the dispatcher's errors.
 */
W8A8_API w8a8_status w8a8_bench_time(w8a8_context *ctx, const w8a8_problem *problem,
                                     w8a8_bench_launch_fn launch, void *user,
                                     const w8a8_bench_options *options,
                                     w8a8_bench_result *result /* OUT */);

/*
 * Host time of one w8a8_scaled_mm call on a key already dispatched (warmed first): `calls`
 * calls back to back on one stream, in chunks short enough that the launch queue never
 * blocks the host, the host clock around each chunk. *us_per_call gets the median chunk's
 * time per call, *min_us_per_call (optional) the fastest chunk's.
 * Returns W8A8_OK or what w8a8_scaled_mm / w8a8_bench_time return.
 */
W8A8_API w8a8_status w8a8_bench_host_overhead(w8a8_context *ctx, const w8a8_problem *problem,
                                              int calls, double *us_per_call /* OUT */,
                                              double *min_us_per_call /* OUT */);

/* What w8a8_bench_launch_floor measures, in microseconds of host time per call. */
typedef struct w8a8_launch_floor {
    double us_per_call;           /* w8a8_scaled_mm on the cached key: median chunk */
    double min_us_per_call;       /* … its fastest chunk */
    double floor_us_per_call;     /* cuLaunchKernelEx alone: median chunk */
    double floor_min_us_per_call; /* … its fastest chunk */
    int calls;                    /* calls timed on each side */
    int launches_per_call;        /* driver launches one w8a8_scaled_mm call makes */
} w8a8_launch_floor;

/*
 * w8a8_bench_host_overhead beside the driver's floor: the same chunks of w8a8_scaled_mm calls,
 * interleaved (in rounds, so that drift in the host's speed falls on both sides) with chunks
 * of bare cuLaunchKernelEx calls of the kernel those calls dispatch, with the very function,
 * grid, block, shared memory, launch attributes and parameters the library passes the driver.
 * us_per_call − floor_us_per_call is what the library adds to a launch (validation, key,
 * lookup, argument block, tensor maps). `calls` as in w8a8_bench_host_overhead.
 * Returns W8A8_OK or what w8a8_bench_host_overhead returns.
 */
W8A8_API w8a8_status w8a8_bench_launch_floor(w8a8_context *ctx, const w8a8_problem *problem,
                                             int calls, w8a8_launch_floor *result /* OUT */);
/* @@END tune */

#ifdef __cplusplus
}
#endif
#endif /* W8A8JIT_H */
