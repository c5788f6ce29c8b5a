/* The context: options and their defaults, the device it opens, the last error of each
 * thread, versions, names of enums, and the sources (embedded or from a folder). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nvrtc.h>

#include "embedded.h"
#include "internal.h"
#include "jit.h"

/* ---- versions and names ------------------------------------------------------------------- */

int w8a8_version_number(void) { return W8A8JIT_VERSION_NUMBER; }
const char *w8a8_version_string(void) { return W8A8JIT_VERSION_STRING; }

const char *w8a8_status_string(w8a8_status status)
{
    static const char *const names[] = {
        "W8A8_OK", "W8A8_INVALID", "W8A8_UNSUPPORTED", "W8A8_NO_DEVICE", "W8A8_CUDA_ERROR",
        "W8A8_COMPILE_ERROR", "W8A8_NO_MEMORY", "W8A8_IO_ERROR", "W8A8_CACHE_ERROR",
        "W8A8_SCRIPT_ERROR", "W8A8_VERIFY_FAILED", "W8A8_NOT_FOUND", "W8A8_BUDGET_SPENT",
        "W8A8_INTERNAL", "W8A8_HUNG"};
    if ((unsigned)status < sizeof names / sizeof names[0])
        return names[status];
    return "W8A8_UNKNOWN";
}

static const struct {
    const char *name;
    size_t size;
} dtype_table[] = {
    [W8A8_DTYPE_NONE] = {"none", 0}, [W8A8_E4M3] = {"e4m3", 1}, [W8A8_E5M2] = {"e5m2", 1},
    [W8A8_INT8] = {"int8", 1},       [W8A8_BF16] = {"bf16", 2}, [W8A8_FP16] = {"fp16", 2},
    [W8A8_FP32] = {"fp32", 4},       [W8A8_E4M3FNUZ] = {"e4m3fnuz", 1},
};
#define DTYPE_COUNT (sizeof dtype_table / sizeof dtype_table[0])

const char *w8a8_dtype_name(w8a8_dtype dtype)
{
    return (unsigned)dtype < DTYPE_COUNT ? dtype_table[dtype].name : NULL;
}

size_t w8a8_dtype_size(w8a8_dtype dtype)
{
    return (unsigned)dtype < DTYPE_COUNT ? dtype_table[dtype].size : 0;
}

w8a8_status w8a8_dtype_parse(const char *name, w8a8_dtype *dtype)
{
    if (!name || !dtype)
        return W8A8_INVALID;
    for (unsigned i = 0; i < DTYPE_COUNT; i++)
        if (strcmp(name, dtype_table[i].name) == 0) {
            *dtype = (w8a8_dtype)i;
            return W8A8_OK;
        }
    return W8A8_INVALID;
}

const char *w8a8_scale_kind_name(w8a8_scale_kind kind)
{
    switch (kind) {
    case W8A8_SCALE_TENSOR: return "tensor";
    case W8A8_SCALE_ROW: return "row";
    case W8A8_SCALE_BLOCK: return "block";
    }
    return NULL;
}

const char *w8a8_accum_name(w8a8_accum accum)
{
    switch (accum) {
    case W8A8_ACCUM_FAST: return "fast";
    case W8A8_ACCUM_PROMOTED: return "promoted";
    }
    return NULL;
}

w8a8_status w8a8_accum_parse(const char *name, w8a8_accum *accum)
{
    static const w8a8_accum values[] = {W8A8_ACCUM_FAST, W8A8_ACCUM_PROMOTED};
    if (!name || !accum)
        return W8A8_INVALID;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        if (strcmp(name, w8a8_accum_name(values[i])) == 0) {
            *accum = values[i];
            return W8A8_OK;
        }
    return W8A8_INVALID;
}

void w8a8_problem_init(w8a8_problem *problem, int64_t m, int64_t n, int64_t k,
                       w8a8_dtype ab_type, w8a8_dtype out_type)
{
    if (!problem)
        return;
    memset(problem, 0, sizeof *problem);
    problem->m = m;
    problem->n = n;
    problem->k = k;
    problem->a_type = ab_type;
    problem->b_type = ab_type;
    problem->out_type = out_type;
    problem->bias_type = W8A8_DTYPE_NONE;
    problem->a_scale.kind = W8A8_SCALE_TENSOR;
    problem->b_scale.kind = W8A8_SCALE_TENSOR;
}

void w8a8_free(void *ptr) { free(ptr); }

/* ---- errors -------------------------------------------------------------------------------- */

/* Each thread keeps the last error of the context it last failed on, so concurrent callers
 * do not overwrite each other's messages and the hot path writes nothing shared. */
typedef struct error_slot {
    const w8a8_context *ctx;
    w8a8_status code;
    int cuda, nvrtc;
    char message[W8A8_ERRMSG_BYTES];
} error_slot;
static _Thread_local error_slot t_error;

static w8a8_status error_vset(const w8a8_context *ctx, w8a8_status code, int cuda, int nvrtc,
                              const char *fmt, va_list ap)
{
    t_error.ctx = ctx;
    t_error.code = code;
    t_error.cuda = cuda;
    t_error.nvrtc = nvrtc;
    vsnprintf(t_error.message, sizeof t_error.message, fmt, ap);
    return code;
}

w8a8_status errorf(const w8a8_context *ctx, w8a8_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(ctx, code, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

static void error_append(const char *suffix)
{
    size_t used = strlen(t_error.message);
    snprintf(t_error.message + used, sizeof t_error.message - used, "%s", suffix);
}

w8a8_status error_cuda(const w8a8_context *ctx, int cu_result, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(ctx, W8A8_CUDA_ERROR, cu_result, 0, fmt, ap);
    va_end(ap);
    const char *name = NULL, *text = NULL;
    const cu_api *cu = cu_load(NULL);
    if (cu) {
        cu->cuGetErrorName((CUresult)cu_result, &name);
        cu->cuGetErrorString((CUresult)cu_result, &text);
    }
    char suffix[256];
    snprintf(suffix, sizeof suffix, ": %s (%d)%s%s", name ? name : "CUDA error", cu_result,
             text ? ", " : "", text ? text : "");
    error_append(suffix);
    return W8A8_CUDA_ERROR;
}

w8a8_status error_nvrtc(const w8a8_context *ctx, int nvrtc_result, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(ctx, W8A8_COMPILE_ERROR, 0, nvrtc_result, fmt, ap);
    va_end(ap);
    char suffix[160];
    snprintf(suffix, sizeof suffix, ": %s", nvrtcGetErrorString((nvrtcResult)nvrtc_result));
    error_append(suffix);
    return W8A8_COMPILE_ERROR;
}

void error_clear(const w8a8_context *ctx)
{
    if (t_error.ctx == ctx) {
        t_error.code = W8A8_OK;
        t_error.cuda = t_error.nvrtc = 0;
        t_error.message[0] = '\0';
    }
}

const char *w8a8_errmsg(const w8a8_context *ctx)
{
    if (t_error.ctx == ctx && t_error.code != W8A8_OK)
        return t_error.message;
    return ctx ? "" : "no context (w8a8_context_open failed or was not called)";
}

w8a8_status w8a8_errcode(const w8a8_context *ctx)
{
    return t_error.ctx == ctx ? t_error.code : W8A8_OK;
}

int w8a8_error_cuda(const w8a8_context *ctx) { return t_error.ctx == ctx ? t_error.cuda : 0; }
int w8a8_error_nvrtc(const w8a8_context *ctx) { return t_error.ctx == ctx ? t_error.nvrtc : 0; }

/* ---- context ------------------------------------------------------------------------------- */

/* dst = first non-empty of: option, $env, $XDG_CACHE_HOME/w8a8jit/<leaf>, ~/.cache/…, /tmp/…
 * False when the path does not fit: a truncated path names another file, which the cache
 * and the cubin store would then create or overwrite. */
static bool default_path(char *dst, size_t size, const char *option, const char *env,
                         const char *leaf)
{
    const char *value = option && *option ? option : getenv(env);
    if (value && *value)
        return util_format(dst, size, "%s", value);
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg)
        return util_format(dst, size, "%s/w8a8jit/%s", xdg, leaf);
    if (home && *home)
        return util_format(dst, size, "%s/.cache/w8a8jit/%s", home, leaf);
    return util_format(dst, size, "/tmp/w8a8jit-%ld/%s", (long)getuid(), leaf);
}

/* False when the value does not fit (see default_path). */
static bool copy_option(char *dst, size_t size, const char *option, const char *env)
{
    const char *value = option && *option ? option : getenv(env);
    return util_format(dst, size, "%s", value ? value : "");
}

/* Resolves the paths of the options; W8A8_INVALID naming the first that is too long. */
static w8a8_status resolve_paths(w8a8_context *ctx, const w8a8_context_options *o)
{
    const char *bad = NULL;
    size_t limit = sizeof ctx->kernel_dir;
    if (!default_path(ctx->kernel_dir, sizeof ctx->kernel_dir, o->kernel_dir, "W8A8_KERNEL_DIR",
                      "kernels"))
        bad = "kernel_dir (or $W8A8_KERNEL_DIR, $XDG_CACHE_HOME, $HOME)";
    else if (!default_path(ctx->cache_db, sizeof ctx->cache_db, o->cache_db, "W8A8_CACHE_DB",
                           "tuning.db"))
        bad = "cache_db (or $W8A8_CACHE_DB, $XDG_CACHE_HOME, $HOME)";
    else if (!copy_option(ctx->cache_path, sizeof ctx->cache_path, o->cache_path,
                          "W8A8_CACHE_PATH"))
        bad = "cache_path (or $W8A8_CACHE_PATH)", limit = sizeof ctx->cache_path;
    else if (!copy_option(ctx->template_dir, sizeof ctx->template_dir, o->template_dir,
                          "W8A8_TEMPLATE_DIR"))
        bad = "template_dir (or $W8A8_TEMPLATE_DIR)";
    if (!bad)
        return W8A8_OK;
    /* Leave no truncated path behind for a caller that ignores the status. */
    ctx->kernel_dir[0] = ctx->cache_db[0] = ctx->cache_path[0] = ctx->template_dir[0] = '\0';
    ctx->flags |= W8A8_CONTEXT_NO_DISK_CACHE;
    return errorf(ctx, W8A8_INVALID, "options.%s: the path is too long (at most %zu bytes)", bad,
                  limit - 1);
}

/* Opens the device if there is one; a missing driver or device is not an error. */
static w8a8_status open_device(w8a8_context *ctx)
{
    const char *why = "";
    if (ctx->flags & W8A8_CONTEXT_CPU_ONLY) {
        snprintf(ctx->no_device_reason, sizeof ctx->no_device_reason,
                 "no CUDA device: the context was opened CPU-only");
        return W8A8_OK;
    }
    const cu_api *cu = cu_load(&why);
    if (!cu) {
        snprintf(ctx->no_device_reason, sizeof ctx->no_device_reason, "no CUDA device (%s)", why);
        return W8A8_OK;
    }
    int count = 0;
    CUresult rc = cu->cuDeviceGetCount(&count);
    if (rc != CUDA_SUCCESS || count == 0) {
        snprintf(ctx->no_device_reason, sizeof ctx->no_device_reason,
                 "no CUDA device (the driver reports none)");
        return W8A8_OK;
    }
    if (ctx->device_ordinal < 0 || ctx->device_ordinal >= count)
        return errorf(ctx, W8A8_INVALID, "options.device_ordinal: %d is out of range (%d device%s)",
                      ctx->device_ordinal, count, count == 1 ? "" : "s");
    ctx->cu = cu;
    if ((rc = cu->cuDeviceGet(&ctx->device, ctx->device_ordinal)) != CUDA_SUCCESS)
        return error_cuda(ctx, rc, "cuDeviceGet(%d)", ctx->device_ordinal);
    if ((rc = cu->cuDevicePrimaryCtxRetain(&ctx->cu_context, ctx->device)) != CUDA_SUCCESS)
        return error_cuda(ctx, rc, "cuDevicePrimaryCtxRetain");
    cu->cuDeviceGetName(ctx->device_name, sizeof ctx->device_name, ctx->device);
    int value = 0;
    cu->cuDeviceGetAttribute(&ctx->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->device);
    cu->cuDeviceGetAttribute(&ctx->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx->device);
    cu->cuDeviceGetAttribute(&ctx->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ctx->device);
    cu->cuDeviceGetAttribute(&ctx->max_smem_optin,
                             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ctx->device);
    cu->cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, ctx->device);
    ctx->l2_bytes = (uint64_t)value;
    size_t total = 0;
    cu->cuDeviceTotalMem(&total, ctx->device);
    ctx->memory_bytes = total;
    snprintf(ctx->arch, sizeof ctx->arch, "sm_%d%d", ctx->cc_major, ctx->cc_minor);
    const char *pdl = getenv("W8A8_PDL");
    ctx->pdl = ctx->cc_major >= 9 && !(pdl && strcmp(pdl, "0") == 0);
    ctx->has_device = true;
    return W8A8_OK;
}

w8a8_status w8a8_context_open(w8a8_context **out, const w8a8_context_options *options)
{
    if (!out)
        return errorf(NULL, W8A8_INVALID, "ctx: the OUT pointer is NULL");
    *out = NULL;
    w8a8_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return errorf(NULL, W8A8_NO_MEMORY, "out of host memory for the context");
    w8a8_context_options defaults = {0};
    const w8a8_context_options *o = options ? options : &defaults;
    pthread_mutex_init(&ctx->lock, NULL);
    ctx->device_ordinal = o->device_ordinal;
    ctx->flags = o->flags;
    *out = ctx;
    w8a8_status st = resolve_paths(ctx, o);
    if (st == W8A8_OK)
        st = open_device(ctx);
    if (st == W8A8_OK)
        st = jit_table_create(ctx);
    if (st == W8A8_OK)
        error_clear(ctx);
    return st;
}

void w8a8_context_close(w8a8_context *ctx)
{
    if (!ctx)
        return;
    /* the layers above release their state: the dispatcher's plans point into the cache and
     * the JIT, so it goes first */
    if (ctx->dispatch_on_close)
        ctx->dispatch_on_close(ctx);
    if (ctx->cache_on_close)
        ctx->cache_on_close(ctx);
    /* With a hung kernel, unloading its module or releasing the context would wait for it
     * forever: both are left to the process's exit (the JIT's host memory leaks with them). */
    if (!atomic_load(&ctx->gpu_hung)) {
        jit_table_destroy(ctx);
        if (ctx->has_device)
            ctx->cu->cuDevicePrimaryCtxRelease(ctx->device);
    }
    pthread_mutex_destroy(&ctx->lock);
    if (t_error.ctx == ctx)
        t_error.ctx = NULL;
    free(ctx);
}

int w8a8_context_has_device(const w8a8_context *ctx) { return ctx && ctx->has_device; }

w8a8_status context_require_device(w8a8_context *ctx)
{
    if (atomic_load_explicit(&ctx->gpu_hung, memory_order_relaxed))
        return errorf(ctx, W8A8_HUNG, "a kernel on this context never finished and keeps the "
                                      "GPU busy: the context cannot run GPU work any more");
    if (ctx->has_device)
        return W8A8_OK;
    return errorf(ctx, W8A8_NO_DEVICE, "%s", ctx->no_device_reason);
}

w8a8_status context_make_current(w8a8_context *ctx)
{
    w8a8_status st = context_require_device(ctx);
    if (st != W8A8_OK)
        return st;
    CUcontext current = NULL;
    ctx->cu->cuCtxGetCurrent(&current);
    if (current == ctx->cu_context)
        return W8A8_OK;
    CUresult rc = ctx->cu->cuCtxSetCurrent(ctx->cu_context);
    return rc == CUDA_SUCCESS ? W8A8_OK : error_cuda(ctx, rc, "cuCtxSetCurrent");
}

w8a8_status w8a8_context_device_info(w8a8_context *ctx, w8a8_device_info *info)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!info)
        return errorf(ctx, W8A8_INVALID, "info is NULL");
    memset(info, 0, sizeof *info);
    info->has_device = ctx->has_device;
    if (ctx->has_device) {
        snprintf(info->name, sizeof info->name, "%s", ctx->device_name);
        snprintf(info->arch, sizeof info->arch, "%s", ctx->arch);
        info->sm_count = ctx->sm_count;
        info->cc_major = ctx->cc_major;
        info->cc_minor = ctx->cc_minor;
        info->memory_bytes = ctx->memory_bytes;
        info->l2_bytes = ctx->l2_bytes;
        info->max_smem_optin = ctx->max_smem_optin;
        ctx->cu->cuDriverGetVersion(&info->driver_version);
    } else {
        const cu_api *cu = (ctx->flags & W8A8_CONTEXT_CPU_ONLY) ? NULL : cu_load(NULL);
        if (cu)
            cu->cuDriverGetVersion(&info->driver_version);
    }
    nvrtcVersion(&info->nvrtc_major, &info->nvrtc_minor);
    snprintf(info->kernel_dir, sizeof info->kernel_dir, "%s", ctx->kernel_dir);
    snprintf(info->cache_db, sizeof info->cache_db, "%s", ctx->cache_db);
    snprintf(info->template_dir, sizeof info->template_dir, "%s", ctx->template_dir);
    snprintf(info->no_device_reason, sizeof info->no_device_reason, "%s", ctx->no_device_reason);
    return W8A8_OK;
}

w8a8_status w8a8_context_stats_get(w8a8_context *ctx, w8a8_context_stats *stats)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!stats)
        return errorf(ctx, W8A8_INVALID, "stats is NULL");
    stats->nvrtc_compiles = atomic_load(&ctx->nvrtc_compiles);
    stats->disk_hits = atomic_load(&ctx->disk_hits);
    stats->memory_hits = atomic_load(&ctx->memory_hits);
    stats->launches = atomic_load(&ctx->launches);
    return W8A8_OK;
}

/* ---- sources ------------------------------------------------------------------------------- */

w8a8_status source_read(w8a8_context *ctx, const char *kind, const char *name, const char **text,
                        size_t *size, bool *owned)
{
    *owned = false;
    if (strstr(name, "..") || name[0] == '/')
        return errorf(ctx, W8A8_INVALID, "%s name '%s' must be a relative path inside %s/",
                      kind, name, kind);
    if (ctx->template_dir[0]) {
        /* The folder mirrors the source tree: <dir>/templates/… and <dir>/scripts/…, or the
         * templates/ folder itself (then scripts are looked up beside it). */
        char path[2 * W8A8_PATH_BYTES];
        char *data = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s/%s", ctx->template_dir, kind, name);
        int err = util_read_file(path, &data, &len);
        if (err == ENOENT && strcmp(kind, "templates") == 0) {
            snprintf(path, sizeof path, "%s/%s", ctx->template_dir, name);
            err = util_read_file(path, &data, &len);
        }
        if (err == 0) {
            *text = data;
            *size = len;
            *owned = true;
            return W8A8_OK;
        }
        if (err != ENOENT)
            return errorf(ctx, W8A8_IO_ERROR, "cannot read %s: %s", path, strerror(err));
    }
    for (size_t i = 0; i < embedded_file_count; i++)
        if (strcmp(embedded_files[i].kind, kind) == 0 && strcmp(embedded_files[i].name, name) == 0) {
            *text = embedded_files[i].data;
            *size = embedded_files[i].size;
            return W8A8_OK;
        }
    return errorf(ctx, W8A8_NOT_FOUND, "no %s file named '%s'%s%s", kind, name,
                  ctx->template_dir[0] ? " in W8A8_TEMPLATE_DIR " : " (embedded)",
                  ctx->template_dir);
}

const char *const *w8a8_template_names(w8a8_context *ctx)
{
    /* Top-level *.cuh files of templates/ (common/ holds shared headers, not templates). */
    static const char *names[64];
    static char storage[64][64];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    (void)ctx;
    pthread_mutex_lock(&lock);
    size_t n = 0;
    for (size_t i = 0; i < embedded_file_count && n + 1 < 64; i++) {
        const embedded_file *f = &embedded_files[i];
        size_t len = strlen(f->name);
        if (strcmp(f->kind, "templates") != 0 || strchr(f->name, '/') || len < 5 ||
            strcmp(f->name + len - 4, ".cuh") != 0 || len - 4 >= sizeof storage[0])
            continue;
        memcpy(storage[n], f->name, len - 4);
        storage[n][len - 4] = '\0';
        names[n] = storage[n];
        n++;
    }
    names[n] = NULL;
    pthread_mutex_unlock(&lock);
    return names;
}

void context_key_tuned(w8a8_context *ctx, const w8a8_problem *problem)
{
    if (ctx && ctx->dispatch_on_tuned)
        ctx->dispatch_on_tuned(ctx, problem);
}
