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
    W8A8_INTERNAL         /* a bug in w8a8jit */
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

/* ---------------------------------------------------------------------------------------
 * Problem and tensors
 * ------------------------------------------------------------------------------------- */

/*
 * A scaled matmul problem. Zero-initialize and fill; w8a8_problem_init() gives the common
 * defaults (per-tensor scales, bf16 out, no bias, dense strides).
 *
 *  m, n, k        sizes, ≥ 1. k % 16 == 0 for 8-bit operands.
 *  a_type         W8A8_E4M3, W8A8_E5M2 or W8A8_INT8.
 *  b_type         the same family as a_type (FP8 mixes allowed; int8 only with int8).
 *  out_type       W8A8_BF16, W8A8_FP16 or W8A8_FP32.
 *  bias_type      W8A8_DTYPE_NONE (no bias), out_type, or W8A8_FP32.
 *  a_scale        layout of sa (A's scales); b_scale the same for B.
 *  azp            int8 A only: asymmetric activations. Then
 *                 out = sa[m]·sb[n]·(Σ_k A·B − azp[m]·b_col_sums[n]) + bias[n]
 *                 (vLLM's azp epilogues); needs per-tensor or per-row scales.
 *  lda, ldb, ldc  row strides in elements (0 = dense: k, k, n). Row strides of every
 *                 operand must be multiples of 16 bytes, and base pointers 16-byte aligned.
 */
typedef struct w8a8_problem {
    int64_t m, n, k;
    w8a8_dtype a_type, b_type, out_type, bias_type;
    w8a8_scale_layout a_scale, b_scale;
    w8a8_azp_kind azp;
    int64_t lda, ldb, ldc;
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
 * Returns W8A8_OK, W8A8_INVALID (ctx NULL, bad ordinal), W8A8_NO_MEMORY.
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
/* @@END quant */

/* ---------------------------------------------------------------------------------------
 * Tuning spaces (Lua)
 * ------------------------------------------------------------------------------------- */
/* @@SECTION space */
/* @@END space */

/* ---------------------------------------------------------------------------------------
 * Tuning cache (SQLite)
 * ------------------------------------------------------------------------------------- */
/* @@SECTION cache */
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
 * `out` (see w8a8_explain in the cache section). For a key already dispatched it reports the
 * plan in use (after any fallback); otherwise the first pick of the chain, without compiling
 * anything (a pick that would fail to compile is not detected then). Works without a device
 * for nothing but the reference (the device identity is needed for cache rows).
 * Returns W8A8_OK, W8A8_INVALID, W8A8_UNSUPPORTED, W8A8_CACHE_ERROR. Thread-safe.
 */
struct w8a8_explain;
W8A8_API w8a8_status w8a8_dispatch_explain(w8a8_context *ctx, const w8a8_problem *problem,
                                           struct w8a8_explain *out /* OUT */);

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
 * survivor; the best few get more samples (successive halving). Every measurement is written
 * to the user's cache database as it is taken, so an interrupted run resumes: a rerun skips
 * (key, family, config) already measured unless `force`.
 */

/* Options of w8a8_tune; zero fields mean the defaults. */
typedef struct w8a8_tune_options {
    const w8a8_problem *problems; /* borrowed; m is rounded up to its bucket */
    size_t problem_count;
    const char *space;      /* a space name or a .lua path; NULL: every built-in that applies */
    double budget_seconds;  /* wall-clock budget of the whole call; ≤ 0: none */
    int force;              /* re-measure configs the database already has */
    int max_candidates;     /* per problem and space, best-ranked first; 0: all */
    int threads;            /* compile threads; 0: online CPUs */
    int quick_samples;      /* samples per candidate in the quick pass (default 5) */
    int final_samples;      /* samples per finalist (default 30) */
    int finalists;          /* candidates that get the final pass (default 4) */
} w8a8_tune_options;

typedef enum w8a8_tune_phase {
    W8A8_TUNE_PHASE_PROBLEM,  /* a problem starts (total = its candidates) */
    W8A8_TUNE_PHASE_COMPILE,  /* done/total candidates compiled */
    W8A8_TUNE_PHASE_QUICK,    /* done/total candidates timed in the quick pass */
    W8A8_TUNE_PHASE_FINAL,    /* done/total finalists timed again */
    W8A8_TUNE_PHASE_MEASURED, /* one candidate was measured: `measurement` is set */
    W8A8_TUNE_PHASE_DONE      /* a problem ended: `result` is set */
} w8a8_tune_phase;

/* One candidate's outcome (what went into the database). */
typedef struct w8a8_tune_measurement {
    char family[64];
    char config[256];
    char status[32];      /* "ok", "compile_error", "rejected", "verify_failed", "launch_error" */
    double median_us;     /* < 0 when not timed */
    double spread_us;     /* p90 − p10 of the samples */
    int samples;
    int batch;            /* launches per sample */
    double verify_error;  /* max |out − ref| / max |ref|; < 0 when not verified */
    int registers, spills;
    double compile_ms;
    int pass;             /* 1 quick, 2 final */
    int is_default;       /* the space's default config */
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
    const char *space;            /* the space being tuned */
    size_t done, total;
    const char *config;           /* the candidate at hand, or NULL */
    double best_us;               /* best time so far for this problem (< 0: none yet) */
    const char *best_config;      /* NULL when none */
    double elapsed_seconds, budget_seconds;
    const w8a8_tune_measurement *measurement; /* W8A8_TUNE_PHASE_MEASURED only */
    const w8a8_tune_result *result;           /* W8A8_TUNE_PHASE_DONE only */
} w8a8_tune_progress;

/* Called from the thread that called w8a8_tune, never concurrently. */
typedef void (*w8a8_tune_progress_fn)(const w8a8_tune_progress *progress, void *user);

/* The results, one per problem in order. Free with w8a8_tune_report_free. */
typedef struct w8a8_tune_report {
    w8a8_tune_result *results;
    size_t count;
    double seconds;
    int budget_spent;
} w8a8_tune_report;

/*
 * Tunes every problem of `options` (see above). `progress` (optional) is called as work
 * advances; `user` is passed to it. `report` (optional OUT) gets one result per problem, also
 * when the call fails part-way (what was measured is kept there and in the database).
 * Keys this context already dispatched are re-planned with the new winners.
 * Returns W8A8_OK; W8A8_BUDGET_SPENT when the budget ran out (results are partial);
 * W8A8_INVALID (options, a problem), W8A8_NO_DEVICE, W8A8_NOT_FOUND / W8A8_SCRIPT_ERROR
 * (space), W8A8_CACHE_ERROR, W8A8_CUDA_ERROR, W8A8_NO_MEMORY. A candidate that fails to
 * compile, launch or verify is recorded as such and does not fail the call.
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
 * then `samples` CUDA-event samples of a batch of launches each (batch sized to last about
 * min_batch_us), median and spread.
 */
typedef struct w8a8_bench_options {
    int samples;             /* default 20 */
    double min_batch_us;     /* default 1000 */
    double rotate_l2_factor; /* default 4 */
    size_t workspace_bytes;  /* device scratch handed to the launcher (default 0) */
    int verify;              /* first compare the launcher's output with the reference */
} w8a8_bench_options;

typedef struct w8a8_bench_result {
    double median_us, spread_us, min_us; /* per launch */
    int samples, batch, buffer_sets;
    double host_us;          /* host time per launch call inside the timed batches */
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
/* @@END tune */

#ifdef __cplusplus
}
#endif
#endif /* W8A8JIT_H */
