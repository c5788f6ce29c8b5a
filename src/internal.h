/* What the library's files share: the context, errors, the driver-API table, the JIT and
 * small utilities. Nothing here is public; everything has hidden visibility. */
#ifndef W8A8_INTERNAL_H
#define W8A8_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h> /* types and enums only: the driver is loaded with dlopen (cuda_driver.c) */

#include "w8a8jit.h"

#define W8A8_ERRMSG_BYTES 2048
#define W8A8_PATH_BYTES 1024

/* ---- driver API, loaded at run time ------------------------------------------------------ */

/* X-macro list of every driver entry point the library calls. The names go through cuda.h's
 * versioning macros (cuMemAlloc → cuMemAlloc_v2) for the field types, while the string
 * passed to cuGetProcAddress is the base name. */
#define W8A8_CU_FUNCTIONS(X)                                                                   \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName)      \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetUuid)                             \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxGetCurrent)                \
    X(cuCtxSetCurrent) X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuCtxSynchronize)              \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncSetAttribute)         \
    X(cuFuncGetAttribute) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuMemAlloc) X(cuMemFree)     \
    X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) \
    X(cuMemsetD8) X(cuMemsetD8Async) X(cuMemsetD32Async) X(cuMemGetInfo)                       \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamIsCapturing)         \
    X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch)       \
    X(cuGraphDestroy) X(cuGraphExecDestroy) X(cuEventCreate) X(cuEventRecord)                  \
    X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy) X(cuTensorMapEncodeTiled)    \
    X(cuEventQuery) X(cuStreamQuery)                                                           \
    X(cuGetErrorName) X(cuGetErrorString) X(cuPointerGetAttribute)                             \
    X(cuOccupancyMaxActiveClusters) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

#define W8A8_CU_FIELD(name) __typeof__(name) *name;
typedef struct cu_api {
    W8A8_CU_FUNCTIONS(W8A8_CU_FIELD)
} cu_api;
#undef W8A8_CU_FIELD

/* The driver table, or NULL when there is no usable driver; *why then says why. Loaded once
 * per process; thread-safe. */
const cu_api *cu_load(const char **why);

/* ---- context ------------------------------------------------------------------------------ */

typedef struct jit_table jit_table;           /* jit.c */
typedef struct dispatch_table dispatch_table; /* dispatch.c */
typedef struct cache_store cache_store;       /* cache/ */

struct w8a8_context {
    int device_ordinal;
    uint32_t flags;
    char kernel_dir[W8A8_PATH_BYTES];
    char cache_db[W8A8_PATH_BYTES];
    char cache_path[4 * W8A8_PATH_BYTES];
    char template_dir[W8A8_PATH_BYTES];

    /* device: has_device is set once at open and never changes */
    const cu_api *cu;
    bool has_device;
    char no_device_reason[256];
    CUdevice device;
    CUcontext cu_context;
    char device_name[128];
    char arch[16];      /* "sm_90" */
    int cc_major, cc_minor;
    int sm_count;
    int max_smem_optin;
    uint64_t memory_bytes;
    uint64_t l2_bytes;
    /* programmatic dependent launch for the GEMM families: compute capability 9.0 or newer,
     * unless W8A8_PDL=0 (set once at open) */
    bool pdl;
    /* Set when the tuner's watchdog gave up on a kernel that never finished: the GPU stays
     * busy with it, so every later wait on this context would block forever. From then on the
     * context refuses GPU work (context_require_device) and closing it skips every driver call
     * that would wait for the device (the process should exit; the driver reclaims it then). */
    atomic_bool gpu_hung;

    jit_table *jit;
    /* State the layers above the runtime hang on the context, and what the runtime calls of
     * them: set by each layer when it creates its state (so the runtime calls up only through
     * these pointers, never by name). */
    dispatch_table *dispatch;
    void (*dispatch_on_close)(w8a8_context *ctx);   /* at close, first: its plans use the rest */
    void (*dispatch_on_tuned)(w8a8_context *ctx, const w8a8_problem *problem); /* a key tuned */
    cache_store *cache;
    void (*cache_on_close)(w8a8_context *ctx);

    /* counters (w8a8_context_stats) */
    atomic_uint_fast64_t nvrtc_compiles, disk_hits, memory_hits, launches;

    /* last error when no thread-local slot applies (see context.c) */
    pthread_mutex_t lock;
};

/* Records an error on ctx (thread-local per calling thread) and returns code. ctx may be
 * NULL (the message then goes to a process-wide thread-local slot). */
w8a8_status errorf(const w8a8_context *ctx, w8a8_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, recording the CUresult (message gets the driver's error name appended). */
w8a8_status error_cuda(const w8a8_context *ctx, int cu_result, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, recording an nvrtcResult. */
w8a8_status error_nvrtc(const w8a8_context *ctx, int nvrtc_result, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clears the calling thread's error for ctx (used at the start of public calls that are
 * not on the hot path). */
void error_clear(const w8a8_context *ctx);

/* Tells the layer that dispatches (if it has state on ctx) that the tuner measured a new
 * winner for the key of `problem`, so it re-plans that key. */
void context_key_tuned(w8a8_context *ctx, const w8a8_problem *problem);

/* W8A8_NO_DEVICE with the reason when ctx has no device; W8A8_OK otherwise. */
w8a8_status context_require_device(w8a8_context *ctx);
/* Makes ctx's CUDA context current on this thread (cheap when it already is). */
w8a8_status context_make_current(w8a8_context *ctx);

/* ---- embedded files / template directory -------------------------------------------------- */

/* The text of templates/<name> or scripts/<name> ("templates"/"scripts" in kind), from
 * ctx->template_dir when set, else embedded. *text is malloc'ed (NUL-terminated) when
 * *owned is set, else static. Returns W8A8_OK, W8A8_NOT_FOUND, W8A8_IO_ERROR, W8A8_NO_MEMORY. */
w8a8_status source_read(w8a8_context *ctx, const char *kind, const char *name,
                        const char **text, size_t *size, bool *owned);

/* ---- utilities (util.c) ------------------------------------------------------------------- */

/* mkdir -p; returns 0 or an errno. */
int util_mkdirs(const char *path);
/* Reads a whole file; malloc'ed, NUL-terminated. Returns 0 or an errno. */
int util_read_file(const char *path, char **data, size_t *size);
/* Writes a file atomically (temporary file in the same folder, fsync, rename). 0 or errno. */
int util_write_file_atomic(const char *path, const void *data, size_t size);
/* Monotonic clock in seconds. */
double util_now(void);
/* A growable array with room for one more item of `size` bytes past `count`: items itself, or
 * moved and twice as large when full (64 items at first; *cap updated), or NULL when out of
 * memory (items left as they were). */
void *util_reserve(void *items, size_t *cap, size_t count, size_t size);
/* snprintf that reports truncation: returns false when out was too small. */
bool util_format(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Lowercase hex SHA-256 of the concatenation of n buffers. out has 65 bytes. */
void util_sha256_hex(const void *const *buffers, const size_t *sizes, size_t n, char out[65]);
/* FNV-1a over the bytes of `text`, continuing from h (start from UTIL_HASH_SEED): a cheap
 * string hash for in-memory tables and samples, stable across runs. */
#define UTIL_HASH_SEED 1469598103934665603ull
uint64_t util_hash_text(uint64_t h, const char *text);

#endif
