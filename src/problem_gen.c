/* Random problems and data for checking the reference kernel against the CPU reference
 * (problem_gen.h). Shared by tests/check_gpu_reference.c and `w8a8 check`, so both exercise
 * the same coverage. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"
#include "numeric.h"
#include "problem_gen.h"

#define PGEN_PAIRS 5
#define PGEN_KINDS 3 /* tensor, row, block */
#define PGEN_POISON 0xFF
#define PGEN_ALIGN 16
/* Slack for fp32 accumulation order in the kernel, relative to max |ref|. */
#define PGEN_ACCUMULATION_SLACK 0x1p-14

static const w8a8_dtype pair_a[PGEN_PAIRS] = {W8A8_E4M3, W8A8_E4M3, W8A8_E5M2, W8A8_E5M2, W8A8_INT8};
static const w8a8_dtype pair_b[PGEN_PAIRS] = {W8A8_E4M3, W8A8_E5M2, W8A8_E4M3, W8A8_E5M2, W8A8_INT8};
static const w8a8_dtype out_types[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};

/* Shapes: odd M, non-powers of two for N and K. N values keep 16-byte rows for every out
 * dtype; the extra ones only for fp32 (4-byte elements). */
static const int64_t m_values[] = {1, 7, 129, 1000};
static const int64_t n_values[] = {8, 24, 40, 72, 136, 200, 264, 520};
static const int64_t n_values_fp32[] = {4, 12, 36, 100};
static const int64_t k_values[] = {16, 48, 112, 128, 272, 400, 1040, 2064};
/* Block group shapes {group_rows, group_k}: vLLM's first, then others (tails included). */
static const int32_t a_groups[][2] = {{1, 128}, {1, 64}, {1, 16}, {2, 32}, {8, 128}};
static const int32_t b_groups[][2] = {{128, 128}, {64, 64}, {16, 32}, {1, 128}, {3, 16}};

#define COUNT_OF(x) ((int)(sizeof(x) / sizeof((x)[0])))

/* ---- random numbers --------------------------------------------------------------------- */

void pgen_rng_seed(pgen_rng *rng, uint64_t seed) { rng->state = seed * 0x9E3779B97F4A7C15ull + 1; }

uint64_t pgen_rng_next(pgen_rng *rng)
{
    uint64_t x = rng->state; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng->state = x;
}

double pgen_rng_uniform(pgen_rng *rng) { return (double)(pgen_rng_next(rng) >> 11) * 0x1.0p-53; }

static int pick(pgen_rng *rng, int count) { return (int)(pgen_rng_next(rng) % (uint64_t)count); }
static bool chance(pgen_rng *rng, double p) { return pgen_rng_uniform(rng) < p; }
static double log2_uniform(pgen_rng *rng, double lo, double hi)
{
    return exp2(lo + (hi - lo) * pgen_rng_uniform(rng));
}

/* ---- trait combinations ----------------------------------------------------------------- */

typedef struct traits {
    int pair;
    w8a8_scale_kind a_scale, b_scale;
    w8a8_dtype out, bias;
    w8a8_azp_kind azp;
} traits;

/* Walks every valid combination in a fixed order; fills *found with number `wanted` and
 * returns how many there are. */
static int trait_walk(int wanted, traits *found)
{
    int count = 0;
    for (int pair = 0; pair < PGEN_PAIRS; pair++)
        for (int sa = 0; sa < PGEN_KINDS; sa++)
            for (int sb = 0; sb < PGEN_KINDS; sb++)
                for (int o = 0; o < COUNT_OF(out_types); o++)
                    for (int bias = 0; bias < 3; bias++) {
                        bool int8 = pair_a[pair] == W8A8_INT8;
                        bool blocks = sa == W8A8_SCALE_BLOCK || sb == W8A8_SCALE_BLOCK;
                        int azp_kinds = int8 && !blocks ? 3 : 1;
                        for (int azp = 0; azp < azp_kinds; azp++, count++) {
                            if (count != wanted || !found)
                                continue;
                            found->pair = pair;
                            found->a_scale = (w8a8_scale_kind)sa;
                            found->b_scale = (w8a8_scale_kind)sb;
                            found->out = out_types[o];
                            found->bias = bias == 0   ? W8A8_DTYPE_NONE
                                          : bias == 1 ? out_types[o]
                                                      : W8A8_FP32;
                            found->azp = (w8a8_azp_kind)azp;
                        }
                    }
    return count;
}

int pgen_trait_count(void) { return trait_walk(-1, NULL); }

/* A block layout from `groups`; group_k is forced to `shared_group_k` when not 0 (block
 * scales of A and B share their K groups). */
static void random_block_layout(pgen_rng *rng, const int32_t (*groups)[2], int count,
                                int32_t shared_group_k, int64_t rows, int64_t k,
                                w8a8_scale_layout *layout)
{
    int g = pick(rng, count);
    layout->group_rows = groups[g][0];
    layout->group_k = shared_group_k ? shared_group_k : groups[g][1];
    layout->k_major = chance(rng, 0.5);
    layout->ld = 0;
    if (chance(rng, 0.25)) { /* padded leading dimension */
        int64_t dense = layout->k_major ? (rows + layout->group_rows - 1) / layout->group_rows
                                        : (k + layout->group_k - 1) / layout->group_k;
        layout->ld = dense + 1 + pick(rng, 4);
    }
}

static void random_shape(pgen_rng *rng, w8a8_problem *p)
{
    p->m = m_values[pick(rng, COUNT_OF(m_values))];
    for (int tries = 0;; tries++) {
        bool fp32_n = p->out_type == W8A8_FP32 && chance(rng, 0.3);
        p->n = fp32_n ? n_values_fp32[pick(rng, COUNT_OF(n_values_fp32))]
                      : n_values[pick(rng, COUNT_OF(n_values))];
        p->k = k_values[pick(rng, COUNT_OF(k_values))];
        if (p->m * p->n * p->k <= PGEN_MAX_MACS)
            return;
        if (tries > 64) { /* cannot happen with the lists above; stay small regardless */
            p->n = n_values[0];
            p->k = k_values[0];
            return;
        }
    }
}

void pgen_problem(pgen_rng *rng, int index, w8a8_problem *p)
{
    traits t = {0};
    int count = pgen_trait_count();
    trait_walk(((index % count) + count) % count, &t);
    memset(p, 0, sizeof *p);
    p->a_type = pair_a[t.pair];
    p->b_type = pair_b[t.pair];
    p->out_type = t.out;
    p->bias_type = t.bias;
    p->azp = t.azp;
    p->a_scale.kind = t.a_scale;
    p->b_scale.kind = t.b_scale;
    random_shape(rng, p);
    if (t.a_scale == W8A8_SCALE_BLOCK)
        random_block_layout(rng, a_groups, COUNT_OF(a_groups), 0, p->m, p->k, &p->a_scale);
    if (t.b_scale == W8A8_SCALE_BLOCK)
        random_block_layout(rng, b_groups, COUNT_OF(b_groups),
                            t.a_scale == W8A8_SCALE_BLOCK ? p->a_scale.group_k : 0, p->n, p->k,
                            &p->b_scale);
    if (chance(rng, 0.25)) { /* padded row strides, still 16-byte multiples */
        int64_t out_align = PGEN_ALIGN / (int64_t)w8a8_dtype_size(p->out_type);
        p->lda = p->k + PGEN_ALIGN * (1 + pick(rng, 3));
        p->ldb = p->k + PGEN_ALIGN * (1 + pick(rng, 3));
        p->ldc = p->n + out_align * (1 + pick(rng, 2));
    }
}

/* ---- data ---------------------------------------------------------------------------------- */

static void *alloc16(size_t bytes)
{
    size_t rounded = (bytes + PGEN_ALIGN - 1) / PGEN_ALIGN * PGEN_ALIGN;
    return aligned_alloc(PGEN_ALIGN, rounded ? rounded : PGEN_ALIGN);
}

/* A random non-zero code of an 8-bit dtype; *value gets its decoded value. Magnitudes are
 * log-uniform over 2^-8 … 2^4, which reaches e4m3's denormals. */
static uint8_t random_code(pgen_rng *rng, w8a8_dtype dtype, float *value)
{
    for (;;) {
        uint8_t code;
        if (dtype == W8A8_INT8) {
            code = (uint8_t)pick(rng, 256);
        } else {
            float v = (float)log2_uniform(rng, -8.0, 4.0);
            num_store_f32(dtype, &code, 0, chance(rng, 0.5) ? -v : v);
        }
        num_load_f32(dtype, &code, 0, value);
        if (*value != 0.0f)
            return code;
    }
}

/* Fills rows × ld codes; returns the RMS of the decoded values. */
static double fill_operand(pgen_rng *rng, w8a8_dtype dtype, uint8_t *data, int64_t count)
{
    double sum_sq = 0.0;
    for (int64_t i = 0; i < count; i++) {
        float value;
        data[i] = random_code(rng, dtype, &value);
        sum_sq += (double)value * value;
    }
    return sqrt(sum_sq / (double)count);
}

/* Floats in a scale buffer: 1, rows, or the block matrix with its padding. */
static int64_t scale_count(const w8a8_scale_layout *layout, int64_t rows, int64_t k)
{
    if (layout->kind == W8A8_SCALE_TENSOR)
        return 1;
    if (layout->kind == W8A8_SCALE_ROW)
        return rows;
    int64_t row_blocks = (rows + layout->group_rows - 1) / layout->group_rows;
    int64_t k_blocks = (k + layout->group_k - 1) / layout->group_k;
    return (layout->k_major ? k_blocks : row_blocks) * layout->ld;
}

/* Scales around `base` (jittered by up to 2× either way) so outputs stay O(1). */
static void fill_scales(pgen_rng *rng, float *scale, int64_t count, double base)
{
    for (int64_t i = 0; i < count; i++)
        scale[i] = (float)(base * log2_uniform(rng, -1.0, 1.0));
}

static void fill_bias(pgen_rng *rng, w8a8_dtype dtype, void *bias, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float v = (float)(4.0 * pgen_rng_uniform(rng) - 2.0);
        num_store_f32(dtype, bias, i, v != 0.0f ? v : 1.0f);
    }
}

static void fill_zero_points(pgen_rng *rng, pgen_case *c)
{
    const w8a8_problem *p = &c->problem;
    int64_t count = p->azp == W8A8_AZP_TOKEN ? p->m : 1;
    for (int64_t i = 0; i < count; i++)
        c->azp[i] = (int32_t)pick(rng, 17) - 8;
    for (int64_t n = 0; n < p->n; n++) {
        const int8_t *row = (const int8_t *)c->b + n * p->ldb;
        int32_t sum = 0;
        for (int64_t k = 0; k < p->k; k++)
            sum += row[k];
        c->b_col_sums[n] = sum;
    }
}

static bool case_alloc(pgen_case *c)
{
    const w8a8_problem *p = &c->problem;
    c->a_bytes = (size_t)(p->m * p->lda);
    c->b_bytes = (size_t)(p->n * p->ldb);
    c->out_bytes = (size_t)(p->m * p->ldc) * w8a8_dtype_size(p->out_type);
    c->a_scale_bytes = (size_t)scale_count(&p->a_scale, p->m, p->k) * sizeof(float);
    c->b_scale_bytes = (size_t)scale_count(&p->b_scale, p->n, p->k) * sizeof(float);
    c->bias_bytes = (size_t)p->n * w8a8_dtype_size(p->bias_type);
    c->azp_bytes = p->azp == W8A8_AZP_NONE ? 0
                   : (size_t)(p->azp == W8A8_AZP_TOKEN ? p->m : 1) * sizeof(int32_t);
    c->b_col_sums_bytes = p->azp == W8A8_AZP_NONE ? 0 : (size_t)p->n * sizeof(int32_t);
    c->a = alloc16(c->a_bytes);
    c->b = alloc16(c->b_bytes);
    c->a_scale = alloc16(c->a_scale_bytes);
    c->b_scale = alloc16(c->b_scale_bytes);
    c->bias = c->bias_bytes ? alloc16(c->bias_bytes) : NULL;
    c->azp = c->azp_bytes ? alloc16(c->azp_bytes) : NULL;
    c->b_col_sums = c->b_col_sums_bytes ? alloc16(c->b_col_sums_bytes) : NULL;
    return c->a && c->b && c->a_scale && c->b_scale && (c->bias || !c->bias_bytes) &&
           (c->azp || !c->azp_bytes) && (c->b_col_sums || !c->b_col_sums_bytes);
}

w8a8_status pgen_case_create(w8a8_context *ctx, pgen_rng *rng, const w8a8_problem *problem,
                             pgen_case *c)
{
    memset(c, 0, sizeof *c);
    gemm_problem_resolve(problem, &c->problem);
    const w8a8_problem *p = &c->problem;
    if (!case_alloc(c)) {
        pgen_case_destroy(c);
        return errorf(ctx, W8A8_NO_MEMORY, "pgen_case_create: out of host memory");
    }
    double rms_a = fill_operand(rng, p->a_type, c->a, (int64_t)c->a_bytes);
    double rms_b = fill_operand(rng, p->b_type, c->b, (int64_t)c->b_bytes);
    /* Each scaled operand gets RMS k^-1/4, so a dot product over k is O(1) and fp16 never
     * overflows. */
    double k_root = pow((double)p->k, 0.25);
    fill_scales(rng, c->a_scale, (int64_t)(c->a_scale_bytes / sizeof(float)), 1.0 / (rms_a * k_root));
    fill_scales(rng, c->b_scale, (int64_t)(c->b_scale_bytes / sizeof(float)), 1.0 / (rms_b * k_root));
    if (c->bias)
        fill_bias(rng, p->bias_type, c->bias, p->n);
    if (c->azp)
        fill_zero_points(rng, c);
    return W8A8_OK;
}

void pgen_block_scales(w8a8_problem *p, int a_k_major, int b_k_major, int pad)
{
    int64_t k_groups = (p->k + 127) / 128, n_groups = (p->n + 127) / 128;
    p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 128, a_k_major,
                                     (a_k_major ? p->m : k_groups) + pad};
    p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 128, b_k_major,
                                     (b_k_major ? n_groups : k_groups) + pad};
}

void pgen_case_destroy(pgen_case *c)
{
    if (!c)
        return;
    free(c->a);
    free(c->b);
    free(c->a_scale);
    free(c->b_scale);
    free(c->bias);
    free(c->azp);
    free(c->b_col_sums);
    memset(c, 0, sizeof *c);
}

w8a8_tensors pgen_case_tensors(const pgen_case *c, void *out)
{
    w8a8_tensors t = {c->a, c->b, out, c->a_scale, c->b_scale, c->bias, c->azp, c->b_col_sums};
    return t;
}

/* ---- the reference kernel on the GPU -------------------------------------------------------- */

enum { BUF_A, BUF_B, BUF_OUT, BUF_A_SCALE, BUF_B_SCALE, BUF_BIAS, BUF_AZP, BUF_COL_SUMS, BUF_COUNT };

static w8a8_status upload_all(w8a8_context *ctx, const pgen_case *c, CUdeviceptr dev[BUF_COUNT])
{
    const void *host[BUF_COUNT] = {c->a, c->b, NULL, c->a_scale, c->b_scale, c->bias, c->azp,
                                   c->b_col_sums};
    const size_t bytes[BUF_COUNT] = {c->a_bytes, c->b_bytes, c->out_bytes, c->a_scale_bytes,
                                     c->b_scale_bytes, c->bias_bytes, c->azp_bytes,
                                     c->b_col_sums_bytes};
    const cu_api *cu = ctx->cu;
    for (int i = 0; i < BUF_COUNT; i++) {
        if (bytes[i] == 0)
            continue;
        CUresult rc = cu->cuMemAlloc(&dev[i], bytes[i]);
        if (rc != CUDA_SUCCESS)
            return error_cuda(ctx, rc, "cuMemAlloc(%zu bytes)", bytes[i]);
        rc = host[i] ? cu->cuMemcpyHtoD(dev[i], host[i], bytes[i])
                     : cu->cuMemsetD8(dev[i], PGEN_POISON, bytes[i]);
        if (rc != CUDA_SUCCESS)
            return error_cuda(ctx, rc, "%s(%zu bytes)", host[i] ? "cuMemcpyHtoD" : "cuMemsetD8",
                              bytes[i]);
    }
    return W8A8_OK;
}

static void *dev_ptr(CUdeviceptr p) { return (void *)(uintptr_t)p; }

/* The case on device tensors: w8a8_scaled_mm_reference when family is NULL, else the family
 * planned with `config` (the arguments validated first, as the public entry points do). */
static w8a8_status run_case(w8a8_context *ctx, const gemm_family *family, const w8a8_problem *p,
                            const w8a8_tensors *t, const char *config)
{
    if (!family)
        return w8a8_scaled_mm_reference(ctx, p, t, NULL);
    w8a8_status st = validate_problem(ctx, p);
    if (st == W8A8_OK)
        st = validate_tensors(ctx, p, t);
    gemm_plan plan;
    if (st == W8A8_OK)
        st = family->plan(ctx, p, config, &plan);
    if (st == W8A8_OK)
        st = family->run(ctx, &plan, p, t, NULL);
    return st;
}

/* Uploads, poisons the output, runs (run_case), waits, downloads, frees. */
static w8a8_status run_on_gpu(w8a8_context *ctx, const gemm_family *family, const pgen_case *c,
                              const char *config, void *out_host)
{
    w8a8_status st = context_make_current(ctx);
    if (st != W8A8_OK)
        return st;
    CUdeviceptr dev[BUF_COUNT] = {0};
    st = upload_all(ctx, c, dev);
    if (st == W8A8_OK) {
        w8a8_tensors t = {dev_ptr(dev[BUF_A]), dev_ptr(dev[BUF_B]), dev_ptr(dev[BUF_OUT]),
                          dev_ptr(dev[BUF_A_SCALE]), dev_ptr(dev[BUF_B_SCALE]),
                          dev_ptr(dev[BUF_BIAS]), dev_ptr(dev[BUF_AZP]),
                          dev_ptr(dev[BUF_COL_SUMS])};
        st = run_case(ctx, family, &c->problem, &t, config);
    }
    if (st == W8A8_OK) {
        CUresult rc = ctx->cu->cuCtxSynchronize();
        if (rc == CUDA_SUCCESS)
            rc = ctx->cu->cuMemcpyDtoH(out_host, dev[BUF_OUT], c->out_bytes);
        if (rc != CUDA_SUCCESS)
            st = error_cuda(ctx, rc, "running %s", family ? family->name : "the reference kernel");
    }
    for (int i = 0; i < BUF_COUNT; i++)
        if (dev[i])
            ctx->cu->cuMemFree(dev[i]);
    return st;
}

w8a8_status pgen_run_reference_gpu(w8a8_context *ctx, const pgen_case *c, void *out_host)
{
    return run_on_gpu(ctx, NULL, c, NULL, out_host);
}

w8a8_status pgen_run_reference_gpu_config(w8a8_context *ctx, const pgen_case *c,
                                          const char *config, void *out_host)
{
    return run_on_gpu(ctx, config ? &gemm_family_reference : NULL, c, config, out_host);
}

w8a8_status pgen_run_family_gpu(w8a8_context *ctx, const struct gemm_family *family, const pgen_case *c,
                                const char *config, void *out_host)
{
    return run_on_gpu(ctx, family, c, config, out_host);
}

/* ---- parallel compilation ------------------------------------------------------------------- */

#define PGEN_MAX_THREADS 32

/* The define strings still to compile: entry i at defines + i · stride. */
typedef struct compile_work {
    w8a8_context *ctx;
    const char *template_name, *arch, *defines;
    size_t stride;
    int count;
    atomic_int next;
} compile_work;

static void *compile_thread(void *arg)
{
    compile_work *work = arg;
    for (int i; (i = atomic_fetch_add(&work->next, 1)) < work->count;)
        w8a8_kernel_compile(work->ctx, work->template_name, work->defines + (size_t)i * work->stride,
                            work->arch, NULL, NULL);
    return NULL;
}

void pgen_compile_each(w8a8_context *ctx, const char *template_name, const char *arch,
                       const char *defines, size_t stride, int count)
{
    if (count <= 0)
        return;
    compile_work work = {.ctx = ctx, .template_name = template_name, .arch = arch,
                         .defines = defines, .stride = stride, .count = count};
    atomic_init(&work.next, 0);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus < 1 ? 1 : cpus > PGEN_MAX_THREADS ? PGEN_MAX_THREADS : (int)cpus;
    pthread_t ids[PGEN_MAX_THREADS];
    int started = 0;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&ids[started], NULL, compile_thread, &work) == 0)
            started++;
    if (started == 0)
        compile_thread(&work);
    for (int i = 0; i < started; i++)
        pthread_join(ids[i], NULL);
}

void pgen_prewarm(w8a8_context *ctx, const w8a8_problem *problems, int count)
{
    if (!ctx->has_device || (ctx->flags & W8A8_CONTEXT_NO_DISK_CACHE) || count <= 0)
        return;
    /* the problems' distinct define strings */
    char (*defines)[W8A8_CONFIG_BYTES] = calloc((size_t)count, sizeof *defines);
    if (!defines)
        return;
    int distinct = 0;
    for (int i = 0; i < count; i++) {
        char text[W8A8_CONFIG_BYTES];
        if (gemm_defines(ctx, &problems[i], NULL, text, sizeof text) != W8A8_OK)
            continue;
        bool seen = false;
        for (int j = 0; j < distinct && !seen; j++)
            seen = strcmp(defines[j], text) == 0;
        if (!seen)
            memcpy(defines[distinct++], text, sizeof text);
    }
    pgen_compile_each(ctx, "reference_gemm", ctx->arch, defines[0], sizeof defines[0], distinct);
    free(defines);
}

/* ---- comparison and reports ------------------------------------------------------------------- */

double pgen_tolerance(w8a8_dtype out_type)
{
    double ulp = out_type == W8A8_BF16 ? 0x1p-7 : out_type == W8A8_FP16 ? 0x1p-10 : 0x1p-23;
    return ulp + PGEN_ACCUMULATION_SLACK;
}

void pgen_compare(const w8a8_problem *problem, const void *got, const void *want,
                  pgen_result *r)
{
    w8a8_problem p;
    gemm_problem_resolve(problem, &p);
    memset(r, 0, sizeof *r);
    size_t size = w8a8_dtype_size(p.out_type);
    for (int64_t m = 0; m < p.m; m++) {
        for (int64_t n = 0; n < p.n; n++) {
            float g = 0.0f, w = 0.0f;
            num_load_f32(p.out_type, got, m * p.ldc + n, &g);
            num_load_f32(p.out_type, want, m * p.ldc + n, &w);
            if (!isfinite(g) && isfinite(w)) {
                r->bad_values++;
                continue;
            }
            double error = fabs((double)g - (double)w);
            r->max_error = error > r->max_error ? error : r->max_error;
            r->max_ref = fabs((double)w) > r->max_ref ? fabs((double)w) : r->max_ref;
        }
        const uint8_t *row = (const uint8_t *)got + (size_t)(m * p.ldc) * size;
        for (size_t byte = (size_t)p.n * size; byte < (size_t)p.ldc * size; byte++)
            r->bad_padding += row[byte] != PGEN_POISON;
    }
    r->rel_error = r->max_error / (r->max_ref > 0.0 ? r->max_ref : 1.0);
    r->tolerance = pgen_tolerance(p.out_type);
    r->ok = r->rel_error <= r->tolerance && r->bad_values == 0 && r->bad_padding == 0;
}

static int pair_index(const w8a8_problem *p)
{
    for (int i = 0; i < PGEN_PAIRS; i++)
        if (pair_a[i] == p->a_type && pair_b[i] == p->b_type)
            return i;
    return 0;
}

int pgen_class_index(const w8a8_problem *problem)
{
    return (pair_index(problem) * PGEN_KINDS + (int)problem->a_scale.kind) * PGEN_KINDS +
           (int)problem->b_scale.kind;
}

void pgen_class_name(int index, char *out, size_t size)
{
    int pair = index / (PGEN_KINDS * PGEN_KINDS) % PGEN_PAIRS;
    snprintf(out, size, "%s×%s %s×%s", w8a8_dtype_name(pair_a[pair]),
             w8a8_dtype_name(pair_b[pair]),
             w8a8_scale_kind_name((w8a8_scale_kind)(index / PGEN_KINDS % PGEN_KINDS)),
             w8a8_scale_kind_name((w8a8_scale_kind)(index % PGEN_KINDS)));
}

static void describe_scale(const w8a8_scale_layout *s, char *out, size_t size)
{
    if (s->kind != W8A8_SCALE_BLOCK)
        snprintf(out, size, "%s", w8a8_scale_kind_name(s->kind));
    else
        snprintf(out, size, "block(%dx%d%s,ld=%lld)", (int)s->group_rows, (int)s->group_k,
                 s->k_major ? ",kmajor" : "", (long long)s->ld);
}

void pgen_problem_describe(const w8a8_problem *p, char *out, size_t size)
{
    static const char *const azp_names[] = {"none", "tensor", "token"};
    char sa[64], sb[64];
    describe_scale(&p->a_scale, sa, sizeof sa);
    describe_scale(&p->b_scale, sb, sizeof sb);
    const char *bias = w8a8_dtype_name(p->bias_type);
    snprintf(out, size,
             "m=%lld n=%lld k=%lld %s×%s a_scale=%s b_scale=%s out=%s bias=%s azp=%s "
             "accum=%s lda=%lld ldb=%lld ldc=%lld",
             (long long)p->m, (long long)p->n, (long long)p->k, w8a8_dtype_name(p->a_type),
             w8a8_dtype_name(p->b_type), sa, sb, w8a8_dtype_name(p->out_type),
             bias ? bias : "?", (unsigned)p->azp < 3 ? azp_names[p->azp] : "?",
             w8a8_accum_name(p->accum) ? w8a8_accum_name(p->accum) : "?", (long long)p->lda, (long long)p->ldb, (long long)p->ldc);
}
