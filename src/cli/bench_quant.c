/* `w8a8 bench --op quant|linear`: times activation quantization (w8a8_quantize) against a
 * device-to-device copy of the same input, and the fused linear call (w8a8_linear) beside its
 * two halves. CUDA events around batches of calls, warm-up first, inputs rotated through
 * buffer sets totalling at least 4× the L2 size, median of the samples.
 *
 * Bandwidth counts bytes read plus bytes written, for the copy too (a copy of B bytes moves
 * 2B), so "ratio" is the fraction of the copy's achieved bandwidth. JSON lines carry provider,
 * dtype (the quantized type; the copy's: its input type), scale (the quantization mode), m,
 * n (0 for quantization and the copy: there is no N), k, us, tflops (0 where no product),
 * gbps, and for quantization in_dtype and ratio. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "internal.h"
#include "numeric.h"
#include "quant.h"

#define BQ_MAX_SHAPES 16
#define BQ_MAX_SETS 64
#define BQ_ROTATE_L2 4.0
#define BQ_BATCH_US 1000.0
#define BQ_WARMUP 3
#define BQ_DEFAULT_SAMPLES 20

typedef struct bq_args {
    long long shapes[BQ_MAX_SHAPES][3];
    int nshapes, samples;
    bool json, all_modes;
    w8a8_dtype in_type, q_type, w_type, out_type;
    w8a8_quant_mode mode;
    w8a8_scale_kind w_scale;
    int group_k, k_major, asym, ub;
} bq_args;

/* One timed call on buffer set `set`; returns a status. */
typedef w8a8_status (*bq_call)(w8a8_context *ctx, void *user, int set);

/* ---- timing --------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median microseconds per call: warm-up, a batch sized to last about BQ_BATCH_US, `samples`
 * batches between two events each, on the legacy default stream. */
static w8a8_status bq_time(w8a8_context *ctx, bq_call call, void *user, int sets, int samples,
                           double *median_us)
{
    const cu_api *cu = ctx->cu;
    CUevent start, stop;
    if (cu->cuEventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
        return errorf(ctx, W8A8_CUDA_ERROR, "cuEventCreate failed");
    if (cu->cuEventCreate(&stop, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
        cu->cuEventDestroy(start);
        return errorf(ctx, W8A8_CUDA_ERROR, "cuEventCreate failed");
    }
    double *times = calloc((size_t)samples + 1, sizeof *times);
    w8a8_status st = times ? W8A8_OK : errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    int next = 0, batch = 1;
    for (int i = 0; i < BQ_WARMUP && st == W8A8_OK; i++)
        st = call(ctx, user, next++ % sets);
    for (int s = -1; s < samples && st == W8A8_OK; s++) { /* s = -1 sizes the batch */
        cu->cuEventRecord(start, NULL);
        for (int i = 0; i < batch && st == W8A8_OK; i++)
            st = call(ctx, user, next++ % sets);
        cu->cuEventRecord(stop, NULL);
        float ms = 0;
        if (st == W8A8_OK && (cu->cuEventSynchronize(stop) != CUDA_SUCCESS ||
                              cu->cuEventElapsedTime(&ms, start, stop) != CUDA_SUCCESS))
            st = errorf(ctx, W8A8_CUDA_ERROR, "timing events failed");
        double us = 1000.0 * ms / batch;
        if (s < 0)
            batch = us > 0 && us < BQ_BATCH_US ? (int)(BQ_BATCH_US / us) + 1 : 1;
        else
            times[s] = us;
    }
    if (st == W8A8_OK) {
        qsort(times, (size_t)samples, sizeof *times, cmp_double);
        *median_us = times[samples / 2];
    }
    free(times);
    cu->cuEventDestroy(start);
    cu->cuEventDestroy(stop);
    return st;
}

/* Enough sets of set_bytes to cover BQ_ROTATE_L2 × L2, within a quarter of free memory. */
static int bq_sets(w8a8_context *ctx, size_t set_bytes)
{
    size_t free_bytes = 0, total = 0;
    ctx->cu->cuMemGetInfo(&free_bytes, &total);
    double want = BQ_ROTATE_L2 * (double)ctx->l2_bytes / (double)set_bytes;
    int sets = want < 1 ? 1 : (int)want + 1;
    while (sets > 1 && (double)sets * (double)set_bytes > 0.25 * (double)free_bytes)
        sets--;
    return sets > BQ_MAX_SETS ? BQ_MAX_SETS : sets;
}

static void *bq_alloc(w8a8_context *ctx, size_t bytes, w8a8_status *st)
{
    CUdeviceptr p = 0;
    if (*st != W8A8_OK)
        return NULL;
    if (ctx->cu->cuMemAlloc(&p, bytes ? bytes : 16) != CUDA_SUCCESS)
        *st = errorf(ctx, W8A8_NO_MEMORY, "cuMemAlloc(%zu bytes) failed", bytes);
    return (void *)(uintptr_t)p;
}

static void bq_free(w8a8_context *ctx, void *p)
{
    if (p)
        ctx->cu->cuMemFree((CUdeviceptr)(uintptr_t)p);
}

/* Uploads `bytes` of random values of `type` (normal, varied row magnitude; FP8/int8 codes
 * without NaN) to dst. */
static w8a8_status bq_fill(w8a8_context *ctx, void *dst, w8a8_dtype type, size_t count)
{
    size_t size = w8a8_dtype_size(type);
    uint8_t *host = malloc(count * size);
    if (!host)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < count; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        double u = (double)(state >> 11) * 0x1.0p-53;
        if (type == W8A8_E4M3 || type == W8A8_E5M2 || type == W8A8_INT8)
            host[i] = (uint8_t)((state >> 20) % 0x7D) | (uint8_t)(state & 0x80);
        else
            num_store_f64(type, host, (int64_t)i, (u - 0.5) * 4.0);
    }
    CUresult rc = ctx->cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, host, count * size);
    free(host);
    return rc == CUDA_SUCCESS ? W8A8_OK : errorf(ctx, W8A8_CUDA_ERROR, "cuMemcpyHtoD failed");
}

/* ---- arguments ------------------------------------------------------------------------------ */

static void bq_usage(FILE *f)
{
    fprintf(f,
            "usage: w8a8 bench --op quant  [--shape M,K]... [--in bf16|fp16|fp32] [--out e4m3|int8]\n"
            "                  [--mode static|tensor|token|group|all] [--group N] [--k-major]\n"
            "                  [--asym] [--ub] [--samples N] [--json]\n"
            "       w8a8 bench --op linear [--shape M,N,K]... [--in bf16|fp16|fp32]\n"
            "                  [--dtype e4m3|int8] [--out bf16|fp16|fp32] [--mode ...]\n"
            "                  [--w-scale tensor|row|block] [--group N] [--k-major] [--asym]\n"
            "                  [--samples N] [--json]\n"
            "Defaults: quant 8192,8192 bf16 → e4m3 per-token; linear 4096,4096,4096 bf16 x,\n"
            "e4m3 weight, per-token x, per-channel w, bf16 out. GB/s counts bytes read + written;\n"
            "quant also times a device-to-device copy of its input and prints the ratio.\n");
}

static int bq_mode(const char *s, bq_args *a)
{
    const char *names[] = {"static", "tensor", "token", "group"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            a->mode = (w8a8_quant_mode)i;
            return 1;
        }
    if (strcmp(s, "all") == 0) {
        a->all_modes = true;
        return 1;
    }
    return cli_usage_error("--mode: '%s' is not static, tensor, token, group or all", s), -1;
}

static int bq_dtype(const char *opt, const char *s, w8a8_dtype *out)
{
    if (w8a8_dtype_parse(s, out) != W8A8_OK)
        return cli_usage_error("%s: '%s' is not a dtype", opt, s), -1;
    return 1;
}

static int bq_parse(int argc, char **argv, bool linear, bq_args *a)
{
    memset(a, 0, sizeof *a);
    a->samples = BQ_DEFAULT_SAMPLES;
    a->in_type = W8A8_BF16;
    a->q_type = W8A8_E4M3;
    a->w_type = W8A8_E4M3;
    a->out_type = W8A8_BF16;
    a->mode = W8A8_QUANT_DYNAMIC_TOKEN;
    a->w_scale = W8A8_SCALE_ROW;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = 0;
        if (strcmp(o, "--help") == 0)
            return bq_usage(stdout), 0;
        if (strcmp(o, "--json") == 0) {
            a->json = true;
        } else if (strcmp(o, "--k-major") == 0) {
            a->k_major = 1;
        } else if (strcmp(o, "--asym") == 0) {
            a->asym = 1;
        } else if (strcmp(o, "--ub") == 0) {
            a->ub = 1;
        } else if (!v) {
            return cli_usage_error("bench: unknown option or missing value: '%s'", o);
        } else if (strcmp(o, "--op") == 0) {
            r = 1;
        } else if (strcmp(o, "--shape") == 0) {
            long long *s = a->shapes[a->nshapes];
            bool ok = a->nshapes < BQ_MAX_SHAPES &&
                      (linear ? cli_parse_shape(v, &s[0], &s[1], &s[2])
                              : sscanf(v, "%lld,%lld", &s[0], &s[2]) == 2 && s[0] > 0 && s[2] > 0);
            if (!ok)
                return cli_usage_error("--shape: '%s' is not %s", v, linear ? "M,N,K" : "M,K");
            a->nshapes++;
            r = 1;
        } else if (strcmp(o, "--in") == 0) {
            r = bq_dtype(o, v, &a->in_type);
        } else if (strcmp(o, "--out") == 0) {
            r = bq_dtype(o, v, linear ? &a->out_type : &a->q_type);
        } else if (strcmp(o, "--dtype") == 0) {
            r = bq_dtype(o, v, &a->w_type);
        } else if (strcmp(o, "--mode") == 0) {
            r = bq_mode(v, a);
        } else if (strcmp(o, "--w-scale") == 0) {
            a->w_scale = strcmp(v, "tensor") == 0 ? W8A8_SCALE_TENSOR
                         : strcmp(v, "block") == 0 ? W8A8_SCALE_BLOCK : W8A8_SCALE_ROW;
            r = 1;
        } else if (strcmp(o, "--group") == 0) {
            a->group_k = atoi(v);
            r = 1;
        } else if (strcmp(o, "--samples") == 0) {
            a->samples = atoi(v) > 0 ? atoi(v) : 1;
            r = 1;
        } else {
            return cli_usage_error("bench: unknown option '%s'", o);
        }
        if (r < 0)
            return 2;
        i += r;
    }
    if (a->nshapes == 0) {
        long long d = linear ? 4096 : 8192;
        a->shapes[0][0] = d, a->shapes[0][1] = linear ? d : 0, a->shapes[0][2] = d;
        a->nshapes = 1;
    }
    return -1;
}

static void bq_print(const bq_args *a, const char *provider, const char *dtype, const char *scale,
                     const long long s[3], double us, double tflops, double gbps,
                     const char *in_dtype, double ratio)
{
    if (a->json) {
        printf("{\"provider\": \"%s\", \"dtype\": \"%s\", \"scale\": \"%s\", \"m\": %lld, "
               "\"n\": %lld, \"k\": %lld, \"us\": %.2f, \"tflops\": %.1f, \"gbps\": %.1f",
               provider, dtype, scale, s[0], s[1], s[2], us, tflops, gbps);
        if (in_dtype)
            printf(", \"in_dtype\": \"%s\", \"ratio\": %.3f", in_dtype, ratio);
        printf("}\n");
    } else {
        char shape[64];
        snprintf(shape, sizeof shape, s[1] ? "%lldx%lldx%lld" : "%lldx%lld", s[0],
                 s[1] ? s[1] : s[2], s[2]);
        printf("%-15s %-5s %-7s %-18s %10.2f us %8.1f TFLOP/s %8.1f GB/s", provider, dtype, scale,
               shape, us, tflops, gbps);
        if (in_dtype && ratio > 0)
            printf("  %5.1f%% of copy", 100.0 * ratio);
        printf("\n");
    }
    fflush(stdout);
}

/* ---- quantization --------------------------------------------------------------------------- */

typedef struct bq_quant {
    w8a8_quant_problem p;
    int sets;
    void **in, **out, **copy_dst;
    float **scale;
    int32_t **azp;
    float *ub;
    size_t in_bytes;
} bq_quant;

static w8a8_status quant_call(w8a8_context *ctx, void *user, int set)
{
    bq_quant *q = user;
    w8a8_quant_tensors t = {.in = q->in[set], .out = q->out[set], .scale = q->scale[set],
                            .azp = q->p.asymmetric ? q->azp[set] : NULL, .scale_ub = q->ub};
    return w8a8_quantize(ctx, &q->p, &t, NULL);
}

static w8a8_status copy_call(w8a8_context *ctx, void *user, int set)
{
    bq_quant *q = user;
    CUresult rc = ctx->cu->cuMemcpyDtoD((CUdeviceptr)(uintptr_t)q->copy_dst[set],
                                        (CUdeviceptr)(uintptr_t)q->in[set], q->in_bytes);
    return rc == CUDA_SUCCESS ? W8A8_OK : errorf(ctx, W8A8_CUDA_ERROR, "cuMemcpyDtoD failed");
}

static w8a8_status bench_quant_one(w8a8_context *ctx, const bq_args *a, const long long s[3],
                                   w8a8_quant_mode mode)
{
    bq_quant q;
    memset(&q, 0, sizeof q);
    q.p = (w8a8_quant_problem){.m = s[0], .k = s[2], .in_type = a->in_type, .out_type = a->q_type,
                               .mode = mode, .group_k = a->group_k, .scale_k_major = a->k_major,
                               .asymmetric = a->asym && mode != W8A8_QUANT_DYNAMIC_GROUP};
    w8a8_status st = w8a8_quant_problem_validate(ctx, &q.p);
    if (st != W8A8_OK)
        return st;
    size_t scales = (size_t)(s[0] * (s[2] / 16 + 1)); /* ≥ any layout's extent */
    q.in_bytes = (size_t)(s[0] * s[2]) * w8a8_dtype_size(a->in_type);
    size_t out_bytes = (size_t)(s[0] * s[2]);
    q.sets = bq_sets(ctx, 2 * q.in_bytes + out_bytes);
    void **slots = calloc((size_t)q.sets * 5, sizeof *slots);
    if (!slots)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    q.in = slots, q.out = slots + q.sets, q.copy_dst = slots + 2 * q.sets;
    q.scale = (float **)(slots + 3 * q.sets), q.azp = (int32_t **)(slots + 4 * q.sets);
    float init[2] = {0.01f, 4.0f}; /* static scale; upper bound */
    for (int i = 0; i < q.sets && st == W8A8_OK; i++) {
        q.in[i] = bq_alloc(ctx, q.in_bytes, &st);
        q.out[i] = bq_alloc(ctx, out_bytes, &st);
        q.copy_dst[i] = bq_alloc(ctx, q.in_bytes, &st);
        q.scale[i] = bq_alloc(ctx, scales * 4, &st);
        q.azp[i] = bq_alloc(ctx, scales * 4, &st);
        if (st == W8A8_OK)
            st = bq_fill(ctx, q.in[i], a->in_type, (size_t)(s[0] * s[2]));
        if (st == W8A8_OK)
            ctx->cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)q.scale[i], init, 4);
        if (st == W8A8_OK)
            ctx->cu->cuMemsetD8((CUdeviceptr)(uintptr_t)q.azp[i], 0, 4);
    }
    q.ub = a->ub && !q.p.asymmetric && mode != W8A8_QUANT_STATIC_TENSOR
               ? bq_alloc(ctx, 4, &st) : NULL;
    if (q.ub && st == W8A8_OK)
        ctx->cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)q.ub, &init[1], 4);
    double us = 0, copy_us = 0;
    if (st == W8A8_OK)
        st = bq_time(ctx, quant_call, &q, q.sets, a->samples, &us);
    if (st == W8A8_OK)
        st = bq_time(ctx, copy_call, &q, q.sets, a->samples, &copy_us);
    if (st == W8A8_OK) {
        double moved = (double)(q.in_bytes + out_bytes), copied = 2.0 * (double)q.in_bytes;
        double gbps = moved / us / 1e3, copy_gbps = copied / copy_us / 1e3;
        long long shape[3] = {s[0], 0, s[2]};
        bq_print(a, "copy", w8a8_dtype_name(a->in_type), "none", shape, copy_us, 0, copy_gbps,
                 NULL, 0);
        bq_print(a, "w8a8jit", w8a8_dtype_name(a->q_type), w8a8_quant_mode_name(mode), shape, us,
                 0, gbps, w8a8_dtype_name(a->in_type), gbps / copy_gbps);
    }
    for (int i = 0; i < 5 * q.sets; i++)
        bq_free(ctx, slots[i]);
    bq_free(ctx, q.ub);
    free(slots);
    return st;
}

static int bench_open(w8a8_context **ctx)
{
    *ctx = cli_open(0);
    if (!*ctx)
        return 1;
    w8a8_status st = context_make_current(*ctx);
    if (st != W8A8_OK) {
        int rc = cli_fail_ctx(*ctx, st);
        w8a8_context_close(*ctx);
        return rc;
    }
    return 0;
}

int cli_bench_quant(int argc, char **argv)
{
    bq_args a;
    int rc = bq_parse(argc, argv, false, &a);
    if (rc >= 0)
        return rc;
    w8a8_context *ctx;
    if ((rc = bench_open(&ctx)) != 0)
        return rc;
    for (int i = 0; i < a.nshapes && rc == 0; i++)
        for (int m = 0; m < 4 && rc == 0; m++) {
            if (!a.all_modes && m != (int)a.mode)
                continue;
            w8a8_status st = bench_quant_one(ctx, &a, a.shapes[i], (w8a8_quant_mode)m);
            if (st != W8A8_OK)
                rc = cli_fail_ctx(ctx, st);
        }
    w8a8_context_close(ctx);
    return rc;
}

/* ---- linear --------------------------------------------------------------------------------- */

typedef struct bq_linear {
    w8a8_linear_problem p;
    w8a8_quant_problem qp;
    w8a8_problem mm;
    int sets;
    void **x, **w, **out, **work;
    float *w_scale, *x_scale;
    int32_t *col_sums, *x_azp;
    size_t work_bytes, scale_offset, azp_offset;
} bq_linear;

static w8a8_status linear_call(w8a8_context *ctx, void *user, int set)
{
    bq_linear *l = user;
    w8a8_linear_tensors t = {.x = l->x[set], .w = l->w[set], .out = l->out[set],
                             .w_scale = l->w_scale, .x_scale = l->x_scale, .x_azp = l->x_azp,
                             .w_col_sums = l->qp.asymmetric ? l->col_sums : NULL};
    return w8a8_linear(ctx, &l->p, &t, l->work[set], l->work_bytes, NULL);
}

static w8a8_status linear_quant_call(w8a8_context *ctx, void *user, int set)
{
    bq_linear *l = user;
    char *ws = l->work[set];
    bool is_static = l->qp.mode == W8A8_QUANT_STATIC_TENSOR;
    w8a8_quant_tensors t = {.in = l->x[set], .out = ws,
                            .scale = is_static ? l->x_scale : (float *)(ws + l->scale_offset),
                            .azp = !l->qp.asymmetric ? NULL
                                   : is_static ? l->x_azp : (int32_t *)(ws + l->azp_offset)};
    return w8a8_quantize(ctx, &l->qp, &t, NULL);
}

static w8a8_status linear_gemm_call(w8a8_context *ctx, void *user, int set)
{
    bq_linear *l = user;
    char *ws = l->work[set];
    bool is_static = l->qp.mode == W8A8_QUANT_STATIC_TENSOR;
    w8a8_tensors t = {.a = ws, .b = l->w[set], .out = l->out[set],
                      .a_scale = is_static ? l->x_scale : (float *)(ws + l->scale_offset),
                      .b_scale = l->w_scale,
                      .b_col_sums = l->qp.asymmetric ? l->col_sums : NULL,
                      .azp = !l->qp.asymmetric ? NULL
                             : is_static ? l->x_azp : (int32_t *)(ws + l->azp_offset)};
    return w8a8_scaled_mm(ctx, &l->mm, &t, NULL);
}

static w8a8_status bench_linear_one(w8a8_context *ctx, const bq_args *a, const long long s[3])
{
    bq_linear l;
    memset(&l, 0, sizeof l);
    l.p = (w8a8_linear_problem){.m = s[0], .n = s[1], .k = s[2], .x_type = a->in_type,
                                .w_type = a->w_type, .out_type = a->out_type,
                                .x_quant = a->mode, .x_group_k = a->group_k,
                                .x_scale_k_major = a->k_major, .x_asymmetric = a->asym};
    l.p.w_scale.kind = a->w_scale;
    if (a->w_scale == W8A8_SCALE_BLOCK)
        l.p.w_scale.group_rows = 128, l.p.w_scale.group_k = 128;
    w8a8_status st = w8a8_linear_problems(ctx, &l.p, &l.qp, &l.mm);
    if (st == W8A8_OK)
        st = w8a8_linear_workspace_size(ctx, &l.p, &l.work_bytes);
    if (st != W8A8_OK)
        return st;
    size_t codes = (size_t)(s[0] * s[2]);
    if ((st = quant_linear_offsets(ctx, &l.p, &l.scale_offset, &l.azp_offset)) != W8A8_OK)
        return st;
    size_t xb = codes * w8a8_dtype_size(a->in_type), wb = (size_t)(s[1] * s[2]);
    size_t ob = (size_t)(s[0] * s[1]) * w8a8_dtype_size(a->out_type);
    l.sets = bq_sets(ctx, xb + wb + ob + l.work_bytes);
    void **slots = calloc((size_t)l.sets * 4, sizeof *slots);
    if (!slots)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    l.x = slots, l.w = slots + l.sets, l.out = slots + 2 * l.sets, l.work = slots + 3 * l.sets;
    size_t nscale = (size_t)(s[1] + (s[1] / 128 + 1) * (s[2] / 128 + 1));
    l.w_scale = bq_alloc(ctx, nscale * 4, &st);
    l.x_scale = bq_alloc(ctx, 4, &st);
    l.x_azp = bq_alloc(ctx, 4, &st);
    l.col_sums = bq_alloc(ctx, (size_t)s[1] * 4, &st);
    if (st == W8A8_OK) {
        const unsigned int hundredth = 0x3C23D70Au; /* 0.01f */
        ctx->cu->cuMemsetD32Async((CUdeviceptr)(uintptr_t)l.w_scale, hundredth, nscale, NULL);
        ctx->cu->cuMemsetD32Async((CUdeviceptr)(uintptr_t)l.x_scale, hundredth, 1, NULL);
        ctx->cu->cuMemsetD8((CUdeviceptr)(uintptr_t)l.x_azp, 0, 4);
        ctx->cu->cuMemsetD8((CUdeviceptr)(uintptr_t)l.col_sums, 0, (size_t)s[1] * 4);
    }
    for (int i = 0; i < l.sets && st == W8A8_OK; i++) {
        l.x[i] = bq_alloc(ctx, xb, &st);
        l.w[i] = bq_alloc(ctx, wb, &st);
        l.out[i] = bq_alloc(ctx, ob, &st);
        l.work[i] = bq_alloc(ctx, l.work_bytes, &st);
        if (st == W8A8_OK)
            st = bq_fill(ctx, l.x[i], a->in_type, codes);
        if (st == W8A8_OK)
            st = bq_fill(ctx, l.w[i], a->w_type, wb);
    }
    double us[3] = {0, 0, 0};
    bq_call calls[3] = {linear_call, linear_quant_call, linear_gemm_call};
    const char *names[3] = {"w8a8jit-linear", "w8a8jit-quant", "w8a8jit-gemm"};
    for (int c = 0; c < 3 && st == W8A8_OK; c++)
        st = bq_time(ctx, calls[c], &l, l.sets, a->samples, &us[c]);
    for (int c = 0; c < 3 && st == W8A8_OK; c++) {
        double bytes = c == 1 ? (double)(xb + codes) : c == 2 ? (double)(codes + wb + ob)
                                                              : (double)(xb + wb + ob);
        double flops = c == 1 ? 0.0 : 2.0 * (double)s[0] * (double)s[1] * (double)s[2];
        bq_print(a, names[c], w8a8_dtype_name(a->w_type), w8a8_quant_mode_name(a->mode), s,
                 us[c], flops / us[c] / 1e6, bytes / us[c] / 1e3, NULL, 0);
    }
    for (int i = 0; i < 4 * l.sets; i++)
        bq_free(ctx, slots[i]);
    bq_free(ctx, l.w_scale);
    bq_free(ctx, l.x_scale);
    bq_free(ctx, l.x_azp);
    bq_free(ctx, l.col_sums);
    free(slots);
    return st;
}

int cli_bench_linear(int argc, char **argv)
{
    bq_args a;
    int rc = bq_parse(argc, argv, true, &a);
    if (rc >= 0)
        return rc;
    if (a.all_modes)
        return cli_usage_error("--mode all is for --op quant");
    w8a8_context *ctx;
    if ((rc = bench_open(&ctx)) != 0)
        return rc;
    for (int i = 0; i < a.nshapes && rc == 0; i++) {
        w8a8_status st = bench_linear_one(ctx, &a, a.shapes[i]);
        if (st != W8A8_OK)
            rc = cli_fail_ctx(ctx, st);
    }
    w8a8_context_close(ctx);
    return rc;
}
