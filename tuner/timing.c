/* The timing harness of the tuner and of `w8a8 bench`: device buffers for a problem, rotated
 * so that consecutive launches read different memory (at least rotate_l2_factor × L2 in all,
 * so small-M shapes read their weights from HBM as they do in a model), filled with random
 * values (never zeros: zeros lower power draw and flatter timings); CUDA events around
 * batches of launches; medians; and verification against the reference kernel. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm.h"
#include "jit.h"
#include "numeric.h"
#include "tune.h"

/* A random table this long (a prime, so rows of any power-of-two K see different values) is
 * tiled over each 8-bit operand on the device. */
#define TIMING_TABLE_BYTES 1000003u
#define TIMING_ALIGN 256u
#define TIMING_MAX_SETS 1024u
#define TIMING_WARMUP_LAUNCHES 3
#define TIMING_PROBE_LAUNCHES 3
/* Verification compares every row up to this M, else blocks of rows spread over M; the whole
 * output is checked for poison (unwritten elements) either way. */
#define TIMING_VERIFY_ALL_ROWS 512
#define TIMING_VERIFY_BLOCK_ROWS 128
#define TIMING_VERIFY_GRID 4096
#define TIMING_VERIFY_THREADS 256
/* The watchdog's polls spin (yielding) this long, so the millisecond waits of timed batches
 * end as soon as the GPU does, as cuEventSynchronize's default spin would; longer waits sleep
 * between polls. */
#define TIMING_POLL_SPIN_S 2e-3
#define TIMING_POLL_SLEEP_NS 200000L
/* Scales of int8 operands: values are ~N(0, 40²), so 1/64 keeps outputs near fp8's. */
#define TIMING_INT8_SPREAD 40.0
#define TIMING_INT8_SCALE (1.0 / 64.0)

/* ---- random values ---------------------------------------------------------------------------- */

typedef struct timing_rng {
    uint64_t state;
} timing_rng;

static uint64_t rng_next(timing_rng *r)
{
    uint64_t x = r->state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->state = x;
}

static double rng_uniform(timing_rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

static double rng_normal(timing_rng *r)
{
    double u = rng_uniform(r), v = rng_uniform(r);
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

/* One random value of an operand's element type, never exactly zero. */
static double random_value(timing_rng *r, w8a8_dtype dtype)
{
    double value;
    do {
        value = rng_normal(r);
        if (dtype == W8A8_INT8)
            value = fmax(-127.0, fmin(127.0, nearbyint(value * TIMING_INT8_SPREAD)));
    } while (value == 0.0);
    return value;
}

/* ---- the watchdog ------------------------------------------------------------------------------ */

double timing_watchdog_seconds(double seconds)
{
    if (seconds > 0)
        return seconds;
    const char *text = getenv(TIMING_WATCHDOG_ENV);
    char *end = NULL;
    double value = text ? strtod(text, &end) : 0.0;
    bool valid = text && end != text && *end == '\0' && isfinite(value) && value > 0;
    return valid ? value : TIMING_WATCHDOG_DEFAULT_S;
}

typedef enum poll_outcome { POLL_DONE, POLL_ERROR, POLL_TIMEOUT } poll_outcome;

/* Polls `event` (or `stream`) until it completes, fails (*rc says how) or `limit` seconds
 * pass; records nothing on the context. */
static poll_outcome poll_until(const cu_api *cu, CUstream stream, CUevent event, double limit,
                               CUresult *rc)
{
    const struct timespec pause = {0, TIMING_POLL_SLEEP_NS};
    double started = util_now();
    for (;;) {
        *rc = event ? cu->cuEventQuery(event) : cu->cuStreamQuery(stream);
        if (*rc == CUDA_SUCCESS)
            return POLL_DONE;
        if (*rc != CUDA_ERROR_NOT_READY)
            return POLL_ERROR;
        double waited = util_now() - started;
        if (waited >= limit)
            return POLL_TIMEOUT;
        if (waited < TIMING_POLL_SPIN_S)
            sched_yield();
        else
            nanosleep(&pause, NULL);
    }
}

w8a8_status timing_buffers_wait(w8a8_context *ctx, timing_buffers *b, CUevent event,
                                int launches, const char *what)
{
    double limit = b->watchdog_seconds + launches * b->launch_seconds;
    CUresult rc = CUDA_SUCCESS;
    switch (poll_until(ctx->cu, b->stream, event, limit, &rc)) {
    case POLL_DONE: return W8A8_OK;
    case POLL_ERROR: return error_cuda(ctx, rc, "%s", what);
    case POLL_TIMEOUT: break;
    }
    atomic_store(&ctx->gpu_hung, true);
    return errorf(ctx, W8A8_HUNG, "%s had not finished after %.1f s (the watchdog's limit, "
                  "see " TIMING_WATCHDOG_ENV "): a kernel hung, and it keeps the GPU busy, so "
                  "this process cannot use the GPU any more", what, limit);
}

/* ---- layout of one tensor set ------------------------------------------------------------------ */

typedef struct set_layout {
    size_t a, b, out, a_scale, b_scale, bias, azp, col_sums; /* offsets */
    size_t a_bytes, b_bytes, out_bytes, a_scale_count, b_scale_count, bias_bytes;
    size_t azp_count, col_sums_count;
    size_t total;
} set_layout;

static size_t align_up(size_t v) { return (v + TIMING_ALIGN - 1) / TIMING_ALIGN * TIMING_ALIGN; }

static size_t ceil_div(int64_t a, int64_t b) { return (size_t)((a + b - 1) / b); }

/* Floats of a scale layout for an operand of `rows` × k (ld resolved, 0 meaning dense). */
static size_t scale_count(const w8a8_scale_layout *s, int64_t rows, int64_t k)
{
    if (s->kind == W8A8_SCALE_TENSOR)
        return 1;
    if (s->kind == W8A8_SCALE_ROW)
        return (size_t)rows;
    size_t k_groups = ceil_div(k, s->group_k > 0 ? s->group_k : 128);
    size_t row_groups = ceil_div(rows, s->group_rows > 0 ? s->group_rows : 1);
    if (s->k_major)
        return k_groups * (s->ld > 0 ? (size_t)s->ld : row_groups);
    return row_groups * (s->ld > 0 ? (size_t)s->ld : k_groups);
}

static void layout_make(const w8a8_problem *p, set_layout *l)
{
    memset(l, 0, sizeof *l);
    l->a_bytes = (size_t)p->m * (size_t)p->lda * w8a8_dtype_size(p->a_type);
    l->b_bytes = (size_t)p->n * (size_t)p->ldb * w8a8_dtype_size(p->b_type);
    l->out_bytes = (size_t)p->m * (size_t)p->ldc * w8a8_dtype_size(p->out_type);
    l->a_scale_count = scale_count(&p->a_scale, p->m, p->k);
    l->b_scale_count = scale_count(&p->b_scale, p->n, p->k);
    l->bias_bytes = p->bias_type == W8A8_DTYPE_NONE ? 0 : (size_t)p->n * w8a8_dtype_size(p->bias_type);
    l->azp_count = p->azp == W8A8_AZP_NONE ? 0 : p->azp == W8A8_AZP_TENSOR ? 1 : (size_t)p->m;
    l->col_sums_count = p->azp == W8A8_AZP_NONE ? 0 : (size_t)p->n;
    size_t at = 0;
    l->a = at, at += align_up(l->a_bytes);
    l->b = at, at += align_up(l->b_bytes);
    l->out = at, at += align_up(l->out_bytes);
    l->a_scale = at, at += align_up(l->a_scale_count * sizeof(float));
    l->b_scale = at, at += align_up(l->b_scale_count * sizeof(float));
    l->bias = at, at += align_up(l->bias_bytes);
    l->azp = at, at += align_up(l->azp_count * sizeof(int32_t));
    l->col_sums = at, at += align_up(l->col_sums_count * sizeof(int32_t));
    l->total = at;
}

static void *dptr(CUdeviceptr p) { return (void *)(uintptr_t)p; }

static void tensors_at(const set_layout *l, CUdeviceptr base, w8a8_tensors *t)
{
    memset(t, 0, sizeof *t);
    t->a = dptr(base + l->a);
    t->b = dptr(base + l->b);
    t->out = dptr(base + l->out);
    t->a_scale = dptr(base + l->a_scale);
    t->b_scale = dptr(base + l->b_scale);
    t->bias = l->bias_bytes ? dptr(base + l->bias) : NULL;
    t->azp = l->azp_count ? dptr(base + l->azp) : NULL;
    t->b_col_sums = l->col_sums_count ? dptr(base + l->col_sums) : NULL;
}

/* ---- filling ------------------------------------------------------------------------------------ */

#define CU_TRY(ctx, call, what)                                                                \
    do {                                                                                       \
        CUresult rc_ = (call);                                                                 \
        if (rc_ != CUDA_SUCCESS)                                                               \
            return error_cuda((ctx), rc_, "%s", (what));                                       \
    } while (0)

/* Tiles `table` over [dst, dst + bytes): one upload, then doubling device copies (each copy
 * starts at a multiple of the table's length, so the tiling stays exact). */
static w8a8_status fill_tiled(w8a8_context *ctx, CUdeviceptr dst, size_t bytes,
                              const uint8_t *table, size_t table_bytes)
{
    size_t done = bytes < table_bytes ? bytes : table_bytes;
    CU_TRY(ctx, ctx->cu->cuMemcpyHtoD(dst, table, done), "cuMemcpyHtoD (random operand)");
    while (done < bytes) {
        size_t n = done < bytes - done ? done : bytes - done;
        CU_TRY(ctx, ctx->cu->cuMemcpyDtoD(dst + done, dst, n), "cuMemcpyDtoD (random operand)");
        done += n;
    }
    return W8A8_OK;
}

static w8a8_status upload_values(w8a8_context *ctx, CUdeviceptr dst, w8a8_dtype dtype,
                                 size_t count, timing_rng *r, double lo, double hi, bool normal)
{
    size_t size = w8a8_dtype_size(dtype);
    if (!count)
        return W8A8_OK;
    uint8_t *host = malloc(count * size);
    if (!host)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for random data");
    for (size_t i = 0; i < count; i++) {
        double v = normal ? random_value(r, dtype) : lo + (hi - lo) * rng_uniform(r);
        num_store_f64(dtype, host, (int64_t)i, v);
    }
    CUresult rc = ctx->cu->cuMemcpyHtoD(dst, host, count * size);
    free(host);
    return rc == CUDA_SUCCESS ? W8A8_OK : error_cuda(ctx, rc, "cuMemcpyHtoD (random values)");
}

static w8a8_status upload_ints(w8a8_context *ctx, CUdeviceptr dst, const int32_t *values,
                               size_t count)
{
    if (!count)
        return W8A8_OK;
    CU_TRY(ctx, ctx->cu->cuMemcpyHtoD(dst, values, count * sizeof *values), "cuMemcpyHtoD");
    return W8A8_OK;
}

/* Zero points in [-8, 8] and B's column sums Σ_k B[n, k], computed from the tiled table. */
static w8a8_status fill_zero_points(w8a8_context *ctx, const w8a8_problem *p, const set_layout *l,
                                    CUdeviceptr base, const uint8_t *b_table, timing_rng *r)
{
    if (!l->azp_count)
        return W8A8_OK;
    int32_t *azp = malloc(l->azp_count * sizeof *azp);
    int32_t *sums = malloc(l->col_sums_count * sizeof *sums);
    w8a8_status st = W8A8_OK;
    if (!azp || !sums)
        st = errorf(ctx, W8A8_NO_MEMORY, "out of host memory for zero points");
    for (size_t i = 0; st == W8A8_OK && i < l->azp_count; i++)
        azp[i] = (int32_t)(rng_next(r) % 17) - 8;
    for (size_t n = 0; st == W8A8_OK && n < l->col_sums_count; n++) {
        int64_t sum = 0;
        for (int64_t k = 0; k < p->k; k++)
            sum += (int8_t)b_table[((size_t)n * (size_t)p->ldb + (size_t)k) % TIMING_TABLE_BYTES];
        sums[n] = (int32_t)sum;
    }
    if (st == W8A8_OK)
        st = upload_ints(ctx, base + l->azp, azp, l->azp_count);
    if (st == W8A8_OK)
        st = upload_ints(ctx, base + l->col_sums, sums, l->col_sums_count);
    free(azp);
    free(sums);
    return st;
}

/* The random table of one operand (A or B) of one element type: made once per process and
 * kept (a few MB at most), since every key of a tuning run fills its operands from it —
 * making it costs a large part of a key's setup. NULL when out of memory. */
#define TIMING_TABLE_TYPES 8 /* w8a8_dtype values of 8-bit operands are below this */
static const uint8_t *random_table(w8a8_dtype dtype, int operand)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static uint8_t *tables[TIMING_TABLE_TYPES][2];
    if ((unsigned)dtype >= TIMING_TABLE_TYPES || operand < 0 || operand > 1)
        return NULL;
    pthread_mutex_lock(&lock);
    uint8_t *t = tables[dtype][operand];
    if (!t && (t = malloc(TIMING_TABLE_BYTES)) != NULL) {
        timing_rng r = {0x9E3779B97F4A7C15ull ^ ((uint64_t)dtype << 8 | (uint64_t)operand)};
        for (size_t i = 0; i < TIMING_TABLE_BYTES; i++)
            num_store_f64(dtype, t, (int64_t)i, random_value(&r, dtype));
        tables[dtype][operand] = t;
    }
    pthread_mutex_unlock(&lock);
    return t;
}

/* Fills set 0 with random values. */
static w8a8_status fill_set(w8a8_context *ctx, const w8a8_problem *p, const set_layout *l,
                            CUdeviceptr base)
{
    timing_rng r = {0x9E3779B97F4A7C15ull};
    const uint8_t *a_table = random_table(p->a_type, 0), *b_table = random_table(p->b_type, 1);
    w8a8_status st = W8A8_OK;
    if (!a_table || !b_table)
        st = errorf(ctx, W8A8_NO_MEMORY, "out of host memory for random data");
    if (st == W8A8_OK)
        st = fill_tiled(ctx, base + l->a, l->a_bytes, a_table, TIMING_TABLE_BYTES);
    if (st == W8A8_OK)
        st = fill_tiled(ctx, base + l->b, l->b_bytes, b_table, TIMING_TABLE_BYTES);
    double a_base = p->a_type == W8A8_INT8 ? TIMING_INT8_SCALE : 1.0;
    double b_base = p->b_type == W8A8_INT8 ? TIMING_INT8_SCALE : 1.0;
    if (st == W8A8_OK) /* positive scales around the base: [0.5, 1.5) × base */
        st = upload_values(ctx, base + l->a_scale, W8A8_FP32, l->a_scale_count, &r, 0.5 * a_base,
                           1.5 * a_base, false);
    if (st == W8A8_OK)
        st = upload_values(ctx, base + l->b_scale, W8A8_FP32, l->b_scale_count, &r, 0.5 * b_base,
                           1.5 * b_base, false);
    if (st == W8A8_OK && l->bias_bytes)
        st = upload_values(ctx, base + l->bias, p->bias_type, (size_t)p->n, &r, 0, 0, true);
    if (st == W8A8_OK)
        st = fill_zero_points(ctx, p, l, base, b_table, &r);
    return st;
}

/* ---- buffers ------------------------------------------------------------------------------------ */

/* How many sets: enough to pass factor × L2, at most what a quarter of free memory holds. */
static size_t set_count(w8a8_context *ctx, size_t set_bytes, double factor)
{
    double want = factor * (double)ctx->l2_bytes / (double)set_bytes;
    size_t count = want < 1.0 ? 1 : (size_t)ceil(want);
    if (count > TIMING_MAX_SETS)
        count = TIMING_MAX_SETS;
    size_t free_bytes = 0, total = 0;
    if (ctx->cu->cuMemGetInfo(&free_bytes, &total) == CUDA_SUCCESS && count > 1 &&
        count * set_bytes > free_bytes / 4)
        count = free_bytes / 4 / set_bytes > 1 ? free_bytes / 4 / set_bytes : 1;
    return count;
}

static w8a8_status buffers_setup(w8a8_context *ctx, timing_buffers *b, double factor)
{
    const cu_api *cu = ctx->cu;
    set_layout l;
    layout_make(&b->problem, &l);
    b->set_bytes = l.total;
    b->out_bytes = l.out_bytes;
    b->count = set_count(ctx, l.total, factor > 0 ? factor : 4.0);
    b->sets = calloc(b->count, sizeof *b->sets);
    if (!b->sets)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    CUresult rc = cu->cuMemAlloc(&b->base, b->count * b->set_bytes);
    if (rc != CUDA_SUCCESS) {
        b->base = 0;
        return error_cuda(ctx, rc, "cuMemAlloc(%zu bytes for %zu rotated input sets)",
                          b->count * b->set_bytes, b->count);
    }
    if (b->workspace_bytes && (rc = cu->cuMemAlloc(&b->workspace, b->workspace_bytes)) != CUDA_SUCCESS) {
        b->workspace = 0;
        return error_cuda(ctx, rc, "cuMemAlloc(%zu bytes of workspace)", b->workspace_bytes);
    }
    w8a8_status st = fill_set(ctx, &b->problem, &l, b->base);
    for (size_t i = 0; st == W8A8_OK && i < b->count; i++) {
        CUdeviceptr at = b->base + i * b->set_bytes;
        tensors_at(&l, at, &b->sets[i]);
        if (i && (rc = cu->cuMemcpyDtoD(at, b->base, b->set_bytes)) != CUDA_SUCCESS)
            st = error_cuda(ctx, rc, "cuMemcpyDtoD (rotated input set %zu)", i);
    }
    return st;
}

w8a8_status timing_buffers_create(w8a8_context *ctx, const w8a8_problem *problem,
                                  double rotate_l2_factor, size_t workspace_bytes,
                                  timing_buffers *b)
{
    memset(b, 0, sizeof *b);
    b->watchdog_seconds = timing_watchdog_seconds(0);
    w8a8_status st = context_make_current(ctx);
    if (st != W8A8_OK)
        return st;
    gemm_problem_resolve(problem, &b->problem);
    b->workspace_bytes = workspace_bytes;
    const cu_api *cu = ctx->cu;
    CUresult rc = cu->cuStreamCreate(&b->stream, CU_STREAM_NON_BLOCKING);
    if (rc == CUDA_SUCCESS)
        rc = cu->cuEventCreate(&b->start, CU_EVENT_DEFAULT);
    if (rc == CUDA_SUCCESS)
        rc = cu->cuEventCreate(&b->stop, CU_EVENT_DEFAULT);
    st = rc == CUDA_SUCCESS ? W8A8_OK : error_cuda(ctx, rc, "creating the timing stream/events");
    if (st == W8A8_OK)
        st = buffers_setup(ctx, b, rotate_l2_factor);
    if (st != W8A8_OK) {
        char message[W8A8_ERRMSG_BYTES];
        snprintf(message, sizeof message, "%s", w8a8_errmsg(ctx));
        timing_buffers_destroy(ctx, b);
        return errorf(ctx, st, "%s", message);
    }
    return W8A8_OK;
}

void timing_buffers_destroy(w8a8_context *ctx, timing_buffers *b)
{
    if (!b || !ctx || !ctx->cu)
        return;
    const cu_api *cu = ctx->cu;
    CUresult rc = CUDA_SUCCESS; /* an error path may have left launches queued: they drain */
    if (b->stream && !atomic_load(&ctx->gpu_hung) &&
        poll_until(cu, b->stream, NULL, b->watchdog_seconds, &rc) == POLL_TIMEOUT)
        atomic_store(&ctx->gpu_hung, true);
    if (atomic_load(&ctx->gpu_hung)) { /* freeing memory a running kernel uses would wait for
                                          it forever */
        free(b->sets);
        memset(b, 0, sizeof *b);
        return;
    }
    if (b->base)
        cu->cuMemFree(b->base);
    if (b->verify_base)
        cu->cuMemFree(b->verify_base);
    if (b->workspace)
        cu->cuMemFree(b->workspace);
    if (b->start)
        cu->cuEventDestroy(b->start);
    if (b->stop)
        cu->cuEventDestroy(b->stop);
    if (b->stream)
        cu->cuStreamDestroy(b->stream);
    free(b->sets);
    memset(b, 0, sizeof *b);
}

/* ---- statistics --------------------------------------------------------------------------------- */

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void timing_stats(double *values, int n, double *median, double *spread)
{
    if (n <= 0) {
        *median = *spread = -1.0;
        return;
    }
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    *median = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
    int p10 = (int)floor(0.1 * (n - 1)), p90 = (int)ceil(0.9 * (n - 1));
    *spread = values[p90] - values[p10];
}

/* ---- timing ------------------------------------------------------------------------------------- */

/* `batch` launches in a row on the stream, rotating through the sets. */
static w8a8_status launch_batch(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                                void *user, int batch)
{
    for (int i = 0; i < batch; i++) {
        const w8a8_tensors *t = &b->sets[b->next_set];
        b->next_set = (b->next_set + 1) % b->count;
        w8a8_status st = launch(ctx, user, &b->problem, t, b->workspace, b->stream);
        if (st != W8A8_OK)
            return st;
    }
    return W8A8_OK;
}

/* One event-timed batch of `batch` launches: launched from the host, or (exec) one replay of
 * their captured graph. */
static w8a8_status timed_batch(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                               void *user, CUgraphExec exec, int batch, double *gpu_us,
                               double *host_us)
{
    const cu_api *cu = ctx->cu;
    CU_TRY(ctx, cu->cuEventRecord(b->start, b->stream), "cuEventRecord");
    double t0 = util_now();
    if (exec) {
        CU_TRY(ctx, cu->cuGraphLaunch(exec, b->stream), "cuGraphLaunch");
    } else {
        w8a8_status st = launch_batch(ctx, b, launch, user, batch);
        if (st != W8A8_OK)
            return st;
    }
    double t1 = util_now();
    CU_TRY(ctx, cu->cuEventRecord(b->stop, b->stream), "cuEventRecord");
    w8a8_status st = timing_buffers_wait(ctx, b, b->stop, batch,
                                         exec ? "a replayed graph of launches"
                                              : "a timed batch of launches");
    if (st != W8A8_OK)
        return st;
    float ms = 0;
    CU_TRY(ctx, cu->cuEventElapsedTime(&ms, b->start, b->stop), "cuEventElapsedTime");
    *gpu_us = 1e3 * (double)ms / batch;
    if (1e-6 * *gpu_us > b->launch_seconds)
        b->launch_seconds = 1e-6 * *gpu_us;
    *host_us = 1e6 * (t1 - t0) / batch;
    return W8A8_OK;
}

/* A warm-up (first-launch costs), then the batch: `fixed` launches when > 0, else sized by a
 * probe to about min_batch_us of GPU time, and for a graph at least TIMING_GRAPH_MIN_BATCH
 * launches; 1…TIMING_MAX_BATCH launches either way. */
static w8a8_status size_batch(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                              void *user, double min_batch_us, int fixed, bool graph, int *batch)
{
    double gpu = 0, host = 0;
    w8a8_status st = timed_batch(ctx, b, launch, user, NULL, TIMING_WARMUP_LAUNCHES, &gpu, &host);
    if (st == W8A8_OK && fixed <= 0)
        st = timed_batch(ctx, b, launch, user, NULL, TIMING_PROBE_LAUNCHES, &gpu, &host);
    if (st != W8A8_OK)
        return st;
    double want = min_batch_us > 0 ? min_batch_us : 1000.0;
    int n = fixed > 0 ? fixed : gpu > 0 ? (int)ceil(want / gpu) : TIMING_MAX_BATCH;
    if (fixed <= 0 && graph && n < TIMING_GRAPH_MIN_BATCH)
        n = TIMING_GRAPH_MIN_BATCH;
    *batch = n < 1 ? 1 : n > TIMING_MAX_BATCH ? TIMING_MAX_BATCH : n;
    return W8A8_OK;
}

/* A batch of launches captured once into a CUDA graph (rotating through the sets), *exec its
 * instance. Capture is thread-local: other threads' CUDA calls are not part of it. On an error
 * the capture is ended and everything made is freed. */
static w8a8_status capture_batch(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                                 void *user, int batch, CUgraphExec *exec)
{
    const cu_api *cu = ctx->cu;
    CU_TRY(ctx, cu->cuStreamBeginCapture(b->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
           "cuStreamBeginCapture");
    w8a8_status st = launch_batch(ctx, b, launch, user, batch);
    CUgraph graph = NULL;
    CUresult end = cu->cuStreamEndCapture(b->stream, &graph);
    if (st != W8A8_OK) {
        if (graph)
            cu->cuGraphDestroy(graph);
        return st;
    }
    if (end != CUDA_SUCCESS)
        return errorf(ctx, W8A8_CUDA_ERROR,
                      "cuStreamEndCapture failed (%d): a launch cannot be captured in a graph",
                      (int)end);
    CUresult inst = cu->cuGraphInstantiateWithFlags(exec, graph, 0);
    cu->cuGraphDestroy(graph);
    if (inst != CUDA_SUCCESS)
        return errorf(ctx, W8A8_CUDA_ERROR, "cuGraphInstantiateWithFlags failed (%d)", (int)inst);
    return W8A8_OK;
}

w8a8_status timing_measure(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                           void *user, int samples, double min_batch_us, int batch, bool graph,
                           timing_result *r)
{
    memset(r, 0, sizeof *r);
    r->median_us = r->spread_us = r->min_us = -1.0;
    if (samples < 1)
        samples = 1;
    w8a8_status st = size_batch(ctx, b, launch, user, min_batch_us, batch, graph, &batch);
    if (st != W8A8_OK)
        return st;
    CUgraphExec exec = NULL;
    if (graph && (st = capture_batch(ctx, b, launch, user, batch, &exec)) != W8A8_OK)
        return st;
    double *gpu_us = malloc(2 * (size_t)samples * sizeof *gpu_us);
    if (!gpu_us) {
        if (exec)
            ctx->cu->cuGraphExecDestroy(exec);
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    }
    double *host_us = gpu_us + samples;
    double unused_gpu, unused_host;
    if (exec) /* the first replay uploads the graph */
        st = timed_batch(ctx, b, launch, user, exec, batch, &unused_gpu, &unused_host);
    for (int s = 0; st == W8A8_OK && s < samples; s++)
        st = timed_batch(ctx, b, launch, user, exec, batch, &gpu_us[s], &host_us[s]);
    if (exec)
        ctx->cu->cuGraphExecDestroy(exec);
    if (st == W8A8_OK) {
        double unused;
        timing_stats(gpu_us, samples, &r->median_us, &r->spread_us);
        r->min_us = gpu_us[0];
        timing_stats(host_us, samples, &r->host_us, &unused);
        r->samples = samples;
        r->batch = batch;
    }
    free(gpu_us);
    return st;
}

/* ---- verification ------------------------------------------------------------------------------- */

/*
 * The bound. Both sides compute the same real number; they differ by
 *  - the rounding of the output: both round an fp32 value to out_type, so near a rounding
 *    boundary they can land one unit in the last place apart: 2^-7 |ref| for bf16 (8-bit
 *    significand), 2^-10 for fp16, a few fp32 units for fp32;
 *  - accumulation. FP8: the reference accumulates in fp32 per element; tensor cores keep only
 *    about 14 bits in FP8 accumulation (DeepSeek-V3 §3.3.2), about 1e-3 relative RMS at
 *    K = 4096, and the worst element of M×N is a few RMS away. Promoted accumulation (and
 *    block scales, always promoted) moves the sum to fp32 every 128 K, so its error grows like
 *    sqrt(K): we allow 5e-3 · sqrt(K / 4096) of max |ref| (at least 5e-3, at most 2e-2). The
 *    fast accumulator truncates over the whole K, an error with a bias that grows about like K:
 *    measured on an H100 (Llama-3.1-70B, bf16 out, every config alike) the worst element was
 *    7e-3 of max |ref| at K = 8192 and 1.2–1.9e-2 at K = 28672 (five row samples), past the
 *    sqrt bound; so fast accumulation gets 5e-3 · K / 4096 (at least 5e-3, at most 5e-2). A bf16
 *    FP8 result passes at ≈ 1.3e-2 of max |ref| at K ≤ 4096; a wrong tile, scale index or a
 *    dropped K block errs by O(10 %) of an element and fails (at K = 28672 one dropped 128-wide
 *    block is about 7 % of an element's RMS: such a kernel fails at the smaller K of other keys,
 *    which the same cubin serves unless it is shape-specialized). INT8: the accumulation is
 *    exact (int32); only the fp32 epilogue differs (scale products, the zero-point
 *    correction, int32 → fp32 of sums past 2^24), so 1e-5 of max |ref|.
 */
void timing_tolerance(const w8a8_problem *problem, double *ulp_rel, double *accumulation_rel)
{
    switch (problem->out_type) {
    case W8A8_BF16: *ulp_rel = 0x1.0p-7; break;
    case W8A8_FP16: *ulp_rel = 0x1.0p-10; break;
    default: *ulp_rel = 0x1.0p-21; break;
    }
    if (problem->a_type == W8A8_INT8) {
        *accumulation_rel = 1e-5;
    } else {
        double k = fmax(1.0, (double)problem->k / 4096.0);
        bool promoted = problem->accum == W8A8_ACCUM_PROMOTED ||
                        problem->a_scale.kind == W8A8_SCALE_BLOCK ||
                        problem->b_scale.kind == W8A8_SCALE_BLOCK;
        *accumulation_rel = promoted ? fmin(2e-2, 5e-3 * sqrt(k)) : fmin(5e-2, 5e-3 * k);
    }
}

/* ---- the sampled reference ----------------------------------------------------------------- */

/* Rows [row, row + rows) of the resolved problem p as a problem of their own, reading the same
 * inputs: A, its row scales and zero points start at `row`; scale leading dimensions stay those
 * of the whole problem. `row` is a multiple of A's block-scale group_rows. */
static void rows_tensors(const w8a8_problem *p, const w8a8_tensors *t, int64_t row, int64_t rows,
                         CUdeviceptr out, w8a8_problem *sub, w8a8_tensors *sub_t)
{
    *sub = *p;
    sub->m = rows;
    *sub_t = *t;
    sub_t->a = (const uint8_t *)t->a + (size_t)row * (size_t)p->lda * w8a8_dtype_size(p->a_type);
    sub_t->out = dptr(out);
    const w8a8_scale_layout *as = &p->a_scale;
    if (as->kind == W8A8_SCALE_ROW)
        sub_t->a_scale = (const float *)t->a_scale + row;
    else if (as->kind == W8A8_SCALE_BLOCK)
        sub_t->a_scale = (const float *)t->a_scale +
                         (as->k_major ? row / as->group_rows : row / as->group_rows * as->ld);
    if (p->azp == W8A8_AZP_TOKEN)
        sub_t->azp = (const int32_t *)t->azp + row;
}

/* Which rows the verification compares with the reference: all of them up to
 * TIMING_VERIFY_ALL_ROWS, else TIMING_MAX_SAMPLE_BLOCKS blocks of TIMING_VERIFY_BLOCK_ROWS rows
 * spread over M (the first, the last, and evenly between), each starting on a block boundary
 * so every tile shape sees rows at several tile positions. Fills b->sample_* on the host. */
static w8a8_status sample_rows_choose(w8a8_context *ctx, timing_buffers *b)
{
    const w8a8_problem *p = &b->problem;
    int64_t block = TIMING_VERIFY_BLOCK_ROWS;
    int64_t group = p->a_scale.kind == W8A8_SCALE_BLOCK && p->a_scale.group_rows > 1
                        ? p->a_scale.group_rows : 1;
    block = (block + group - 1) / group * group;
    int64_t blocks = (p->m + block - 1) / block;
    int64_t chosen[TIMING_MAX_SAMPLE_BLOCKS];
    int count = 0;
    if (p->m <= TIMING_VERIFY_ALL_ROWS) {
        b->sample_starts[0] = 0;
        b->sample_lengths[0] = p->m;
        b->sample_blocks = 1;
        b->sample_rows = p->m;
    } else {
        for (int i = 0; i < TIMING_MAX_SAMPLE_BLOCKS; i++) {
            int64_t pick = (blocks - 1) * i / (TIMING_MAX_SAMPLE_BLOCKS - 1);
            if (count == 0 || chosen[count - 1] != pick)
                chosen[count++] = pick;
        }
        b->sample_rows = 0;
        for (int i = 0; i < count; i++) {
            int64_t start = chosen[i] * block;
            b->sample_starts[i] = start;
            b->sample_lengths[i] = p->m - start < block ? p->m - start : block;
            b->sample_rows += b->sample_lengths[i];
        }
        b->sample_blocks = count;
    }
    int32_t *rows = malloc((size_t)b->sample_rows * sizeof *rows);
    if (!rows)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for verification");
    int64_t at = 0;
    for (int i = 0; i < b->sample_blocks; i++)
        for (int64_t r = 0; r < b->sample_lengths[i]; r++)
            rows[at++] = (int32_t)(b->sample_starts[i] + r);
    const cu_api *cu = ctx->cu;
    size_t row_bytes = (size_t)p->ldc * w8a8_dtype_size(p->out_type);
    CUresult rc = cu->cuMemAlloc(&b->verify_base, TIMING_ALIGN + align_up((size_t)at * sizeof *rows) +
                                                      (size_t)at * row_bytes);
    if (rc != CUDA_SUCCESS) {
        b->verify_base = 0;
        free(rows);
        return error_cuda(ctx, rc, "cuMemAlloc (verification buffers)");
    }
    b->verify_result = b->verify_base;
    b->sample_index = b->verify_base + TIMING_ALIGN;
    b->reference_out = b->sample_index + align_up((size_t)at * sizeof *rows);
    rc = cu->cuMemcpyHtoD(b->sample_index, rows, (size_t)at * sizeof *rows);
    free(rows);
    return rc == CUDA_SUCCESS ? W8A8_OK : error_cuda(ctx, rc, "cuMemcpyHtoD (sampled rows)");
}

/* max |ref| over the sampled reference rows (copied to the host once per problem). */
static w8a8_status reference_max(w8a8_context *ctx, timing_buffers *b)
{
    const w8a8_problem *p = &b->problem;
    size_t row_bytes = (size_t)p->ldc * w8a8_dtype_size(p->out_type);
    size_t bytes = (size_t)(b->sample_rows - 1) * row_bytes + (size_t)p->n * w8a8_dtype_size(p->out_type);
    uint8_t *host = malloc(bytes);
    if (!host)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for verification");
    CUresult rc = ctx->cu->cuMemcpyDtoH(host, b->reference_out, bytes);
    double max = 0;
    for (int64_t r = 0; rc == CUDA_SUCCESS && r < b->sample_rows; r++)
        for (int64_t n = 0; n < p->n; n++) {
            float v = 0;
            num_load_f32(p->out_type, host, r * p->ldc + n, &v);
            if (!(fabs(v) <= max)) /* also catches NaN */
                max = isnan(v) ? INFINITY : fabs(v);
        }
    free(host);
    if (rc != CUDA_SUCCESS)
        return error_cuda(ctx, rc, "cuMemcpyDtoH (reference rows)");
    if (!(max > 0 && isfinite(max)))
        return errorf(ctx, W8A8_INTERNAL, "the reference output is %s: nothing to verify against",
                      max > 0 ? "not finite" : "all zeros");
    b->reference_max = max;
    return W8A8_OK;
}

/* The reference kernel on the sampled rows of set 0, packed one after another (stride ldc). */
static w8a8_status launch_reference(w8a8_context *ctx, timing_buffers *b)
{
    w8a8_status st = sample_rows_choose(ctx, b);
    if (st != W8A8_OK)
        return st;
    const w8a8_problem *p = &b->problem;
    size_t row_bytes = (size_t)p->ldc * w8a8_dtype_size(p->out_type);
    CU_TRY(ctx, ctx->cu->cuMemsetD8Async(b->reference_out, 0xFF, (size_t)b->sample_rows * row_bytes,
                                         b->stream), "cuMemsetD8Async");
    int64_t packed = 0;
    for (int i = 0; i < b->sample_blocks && st == W8A8_OK; i++) {
        w8a8_problem sub;
        w8a8_tensors t;
        rows_tensors(p, &b->sets[0], b->sample_starts[i], b->sample_lengths[i],
                     b->reference_out + (size_t)packed * row_bytes, &sub, &t);
        st = w8a8_scaled_mm_reference(ctx, &sub, &t, b->stream);
        packed += b->sample_lengths[i];
    }
    if (st == W8A8_OK) /* sampled rows only: about one launch's worth */
        st = timing_buffers_wait(ctx, b, NULL, 1, "the reference kernel (verification rows)");
    return st == W8A8_OK ? reference_max(ctx, b) : st;
}

const char *timing_compile_defines(size_t index)
{
    static const char *const sets[] = {"OUT_TYPE=4", "OUT_TYPE=5", "OUT_TYPE=6"};
    return index < sizeof sets / sizeof sets[0] ? sets[index] : NULL;
}

/* The comparison runs on the GPU (templates/verify.cuh): only three words come back. */
static w8a8_status launch_compare(w8a8_context *ctx, timing_buffers *b, CUdeviceptr out,
                                  float ulp_rel, float acc_abs, uint32_t result[3])
{
    const w8a8_problem *p = &b->problem;
    char defines[32];
    snprintf(defines, sizeof defines, "OUT_TYPE=%d", (int)p->out_type);
    const jit_kernel *kernel = NULL;
    w8a8_status st = jit_kernel_get(ctx, TIMING_VERIFY_TEMPLATE, defines, NULL, "w8a8_verify_compare", &kernel);
    if (st != W8A8_OK)
        return st;
    CU_TRY(ctx, ctx->cu->cuMemsetD32Async(b->verify_result, 0, 3, b->stream), "cuMemsetD32Async");
    long long m = p->m, n = p->n, ldc = p->ldc;
    int rows = (int)b->sample_rows;
    void *params[] = {&out, &ldc, &m, &n, &b->reference_out, &b->sample_index, &rows, &ulp_rel,
                      &acc_abs, &b->verify_result};
    jit_launch l;
    memset(&l, 0, sizeof l);
    l.grid[0] = (unsigned)(m < TIMING_VERIFY_GRID ? m : TIMING_VERIFY_GRID);
    l.block[0] = TIMING_VERIFY_THREADS;
    l.stream = b->stream;
    if ((st = jit_kernel_launch(ctx, kernel, &l, params)) != W8A8_OK)
        return st;
    CU_TRY(ctx, ctx->cu->cuMemcpyDtoHAsync(result, b->verify_result, 3 * sizeof *result, b->stream),
           "cuMemcpyDtoHAsync (verification result)");
    double waiting = util_now();
    st = timing_buffers_wait(ctx, b, NULL, 1, "the verification launch");
    /* what was left of the candidate's launch (and the comparison) once both were queued:
     * nearly all of a long one, the part that matters; never the comparison's compile */
    if (st == W8A8_OK && util_now() - waiting > b->launch_seconds)
        b->launch_seconds = util_now() - waiting;
    return st;
}

w8a8_status timing_verify_prepare(w8a8_context *ctx, timing_buffers *b)
{
    return b->reference_out ? W8A8_OK : launch_reference(ctx, b);
}

w8a8_status timing_verify(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                          void *user, double *error, bool *passed)
{
    *error = -1.0;
    *passed = false;
    w8a8_status st = W8A8_OK;
    if (!b->reference_out && (st = launch_reference(ctx, b)) != W8A8_OK)
        return st;
    const cu_api *cu = ctx->cu;
    const w8a8_tensors *t = &b->sets[0];
    CUdeviceptr out = (CUdeviceptr)(uintptr_t)t->out;
    CU_TRY(ctx, cu->cuMemsetD8Async(out, 0xFF, b->out_bytes, b->stream), "cuMemsetD8Async (poison)");
    if ((st = launch(ctx, user, &b->problem, t, b->workspace, b->stream)) != W8A8_OK)
        return st;
    double ulp_rel, acc_rel;
    timing_tolerance(&b->problem, &ulp_rel, &acc_rel);
    uint32_t result[3] = {0, 0, 0}; /* non-finite outputs, failed elements, worst |diff| bits */
    st = launch_compare(ctx, b, out, (float)ulp_rel, (float)(acc_rel * b->reference_max), result);
    if (st == W8A8_OK) {
        float worst;
        memcpy(&worst, &result[2], sizeof worst);
        *error = result[0] ? INFINITY : (double)worst / b->reference_max;
        *passed = result[0] == 0 && result[1] == 0;
    }
    return st;
}
