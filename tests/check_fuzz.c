/* Random problems through the public API (CPU only), under the sanitize build too: a seeded
 * random loop fills w8a8_problem / w8a8_quant_problem / w8a8_linear_problem with random bytes
 * or random small values and checks the validators against the entry points: the CPU entry
 * points run (on buffers sized from the documented layouts, so ASan catches a write past them)
 * exactly when validation says OK, and the GPU entry points of a CPU-only context answer
 * W8A8_NO_DEVICE for good input and the validator's status for bad input. Random shard lists
 * go through the weight utilities the same way. Shared helpers: robustness.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robustness.h"

#define RANDOM_ITERATIONS 3000          /* per random test */
#define RANDOM_MAX_BYTES (2u << 20)     /* skip random problems whose buffers exceed this */

/* Host memory passed where device pointers go: a CPU-only context must never read it. */
static _Alignas(256) unsigned char fake_device[FAKE_DEVICE_BYTES];

/* ---- random problems ------------------------------------------------------------------------ */

static int64_t pick(test_rng *r, const int64_t *values, size_t count)
{
    return values[test_rng_next(r) % count];
}
#define PICK(r, ...) pick((r), (const int64_t[]){__VA_ARGS__}, \
                          sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static void random_bytes(test_rng *r, void *dst, size_t size)
{
    unsigned char *p = dst;
    for (size_t i = 0; i < size; i++)
        p[i] = (unsigned char)test_rng_next(r);
}

/* A problem is random bytes (1 in 8), or legal by construction with each field replaced by
 * an edge value now and then, or that with one bit flipped: many are invalid, many valid. */
typedef enum fill_kind { FILL_BYTES, FILL_LEGAL, FILL_FLIPPED } fill_kind;

static fill_kind random_fill_kind(test_rng *r)
{
    uint64_t v = test_rng_next(r) % 8;
    return v == 0 ? FILL_BYTES : v == 1 ? FILL_FLIPPED : FILL_LEGAL;
}

/* Whether to replace a field by an edge value (about one field in twelve). */
static bool edge(test_rng *r) { return test_rng_next(r) % 12 == 0; }

static void flip_bit(test_rng *r, void *obj, size_t size)
{
    ((unsigned char *)obj)[test_rng_next(r) % size] ^= (unsigned char)(1u << (test_rng_next(r) % 8));
}

static w8a8_scale_layout random_scale(test_rng *r, int64_t rows, int64_t k, int32_t group_k)
{
    w8a8_scale_layout s = {0};
    s.kind = (w8a8_scale_kind)PICK(r, W8A8_SCALE_TENSOR, W8A8_SCALE_ROW, W8A8_SCALE_BLOCK);
    s.group_rows = (int32_t)PICK(r, 1, 2, 3, 128);
    s.group_k = group_k;
    s.k_major = (int32_t)PICK(r, 0, 1);
    int64_t dense = s.k_major ? (rows + s.group_rows - 1) / s.group_rows
                              : (k + s.group_k - 1) / s.group_k;
    s.ld = PICK(r, 0, 0, dense, dense + 3);
    if (edge(r))
        s.kind = (w8a8_scale_kind)PICK(r, -1, 3, 77);
    if (edge(r))
        s.group_rows = (int32_t)PICK(r, 0, -1, INT32_MIN, INT32_MAX);
    if (edge(r))
        s.group_k = (int32_t)PICK(r, 0, 17, -16, 8, INT32_MAX);
    if (edge(r))
        s.k_major = (int32_t)PICK(r, 2, -1);
    if (edge(r))
        s.ld = PICK(r, -1, 1, INT64_MAX, INT64_MIN, INT64_MAX / 4);
    return s;
}

static void random_problem(test_rng *r, w8a8_problem *p)
{
    fill_kind kind = random_fill_kind(r);
    if (kind == FILL_BYTES) {
        random_bytes(r, p, sizeof *p);
        return;
    }
    p->m = PICK(r, 1, 2, 3, 7, 8, 17, 33);
    p->n = PICK(r, 8, 16, 24, 40, 64);
    p->k = PICK(r, 16, 32, 48, 64, 144);
    if (PICK(r, 0, 0, 1)) {
        p->a_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_E5M2);
        p->b_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_E5M2);
    } else {
        p->a_type = p->b_type = W8A8_INT8;
    }
    p->out_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->bias_type = (w8a8_dtype)PICK(r, W8A8_DTYPE_NONE, W8A8_DTYPE_NONE, W8A8_FP32, p->out_type);
    int32_t group_k = (int32_t)PICK(r, 16, 32, 128); /* shared: A's and B's must agree */
    p->a_scale = random_scale(r, p->m, p->k, group_k);
    p->b_scale = random_scale(r, p->n, p->k, group_k);
    bool blocks = p->a_scale.kind == W8A8_SCALE_BLOCK || p->b_scale.kind == W8A8_SCALE_BLOCK;
    p->azp = p->a_type == W8A8_INT8 && !blocks
                 ? (w8a8_azp_kind)PICK(r, W8A8_AZP_NONE, W8A8_AZP_TENSOR, W8A8_AZP_TOKEN)
                 : W8A8_AZP_NONE;
    p->lda = PICK(r, 0, 0, p->k, p->k + 16);
    p->ldb = PICK(r, 0, 0, p->k, p->k + 32);
    p->ldc = PICK(r, 0, 0, p->n, p->n + 8);
    const int64_t n = p->n, k = p->k; /* legal: the edges below are relative to them */
    if (edge(r))
        p->m = PICK(r, 0, -1, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MAX, INT64_MIN);
    if (edge(r))
        p->n = PICK(r, 0, -8, 4, 7, INT32_MAX, INT64_MAX);
    if (edge(r))
        p->k = PICK(r, 0, -16, 17, 8, (int64_t)INT32_MAX - 15, INT64_MAX);
    if (edge(r))
        p->a_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_BF16, W8A8_E4M3FNUZ, 8, 77);
    if (edge(r))
        p->b_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_INT8, W8A8_E4M3, W8A8_E4M3FNUZ, 77);
    if (edge(r))
        p->out_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_E4M3, W8A8_INT8, 77);
    if (edge(r))
        p->bias_type = (w8a8_dtype)PICK(r, -1, W8A8_BF16, W8A8_E4M3, 77);
    if (edge(r))
        p->azp = (w8a8_azp_kind)PICK(r, -1, W8A8_AZP_TENSOR, W8A8_AZP_TOKEN, 3, 77);
    if (edge(r))
        p->lda = PICK(r, -1, 1, k - 16, k + 1, INT64_MAX, INT64_MAX / 2);
    if (edge(r))
        p->ldb = PICK(r, -1, 1, k + 3, INT64_MIN, INT64_MAX / 8);
    if (edge(r))
        p->ldc = PICK(r, -1, 1, n + 1, n + 4, INT64_MAX, INT64_MAX / 16);
    if (kind == FILL_FLIPPED)
        flip_bit(r, p, sizeof *p);
}

/* Floats one operand's scales span in the documented layout (w8a8_scale_layout). */
static double scale_floats(const w8a8_scale_layout *s, int64_t rows, int64_t k)
{
    if (s->kind == W8A8_SCALE_TENSOR)
        return 1;
    if (s->kind == W8A8_SCALE_ROW)
        return (double)rows;
    double row_blocks = (double)((rows + s->group_rows - 1) / s->group_rows);
    double k_blocks = (double)((k + s->group_k - 1) / s->group_k);
    double dense = s->k_major ? row_blocks : k_blocks, lines = s->k_major ? k_blocks : row_blocks;
    return (lines - 1) * (s->ld ? (double)s->ld : dense) + dense;
}

/* An exactly sized host buffer (16-byte aligned, as the API wants), filled with random bytes:
 * ASan reports any access past `bytes`. */
static void *host_buffer(test_rng *r, double bytes)
{
    void *p = NULL;
    ck_assert_int_eq(posix_memalign(&p, 16, (size_t)bytes > 0 ? (size_t)bytes : 1), 0);
    random_bytes(r, p, (size_t)bytes);
    return p;
}

/* Runs a problem the validator accepted: on the CPU (when small) and through the GPU entry
 * points of a CPU-only context. Returns whether it ran on the CPU. */
static bool run_valid_problem(w8a8_context *ctx, test_rng *r, const w8a8_problem *p)
{
    int64_t lda = p->lda ? p->lda : p->k, ldb = p->ldb ? p->ldb : p->k, ldc = p->ldc ? p->ldc : p->n;
    double a = (double)(p->m - 1) * (double)lda + (double)p->k;
    double b = (double)(p->n - 1) * (double)ldb + (double)p->k;
    double out = ((double)(p->m - 1) * (double)ldc + (double)p->n) * (double)w8a8_dtype_size(p->out_type);
    double sa = 4 * scale_floats(&p->a_scale, p->m, p->k), sb = 4 * scale_floats(&p->b_scale, p->n, p->k);
    double bias = p->bias_type ? (double)p->n * (double)w8a8_dtype_size(p->bias_type) : 0;
    double azp = p->azp ? 4.0 * (double)(p->azp == W8A8_AZP_TOKEN ? p->m : 1) : 0;
    double sums = p->azp ? 4.0 * (double)p->n : 0;
    if (a + b + out + sa + sb + bias + azp + sums > RANDOM_MAX_BYTES)
        return false;
    w8a8_tensors t = {host_buffer(r, a), host_buffer(r, b), host_buffer(r, out),
                      host_buffer(r, sa), host_buffer(r, sb),
                      p->bias_type ? host_buffer(r, bias) : NULL,
                      p->azp ? host_buffer(r, azp) : NULL, p->azp ? host_buffer(r, sums) : NULL};
    EXPECT_OK_CLEAN(ctx, w8a8_scaled_mm_cpu(ctx, p, &t));
    EXPECT(ctx, w8a8_scaled_mm(ctx, p, &t, NULL), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, p, &t, NULL), W8A8_NO_DEVICE);
    free((void *)t.a), free((void *)t.b), free(t.out), free((void *)t.a_scale);
    free((void *)t.b_scale), free((void *)t.bias), free((void *)t.azp), free((void *)t.b_col_sums);
    return true;
}

START_TEST(random_matmul_problems)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    test_rng r;
    test_rng_seed(&r, 20250611u + (uint64_t)_i);
    static _Alignas(16) unsigned char host[64];
    w8a8_tensors dummy = {host, host, host, (float *)host, (float *)host, NULL, NULL, NULL};
    int valid = 0, ran = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        w8a8_problem p;
        memset(&p, 0, sizeof p);
        random_problem(&r, &p);
        w8a8_status st = CALL(ctx, w8a8_problem_validate(ctx, &p));
        ck_assert_msg(st == W8A8_OK || st == W8A8_INVALID || st == W8A8_UNSUPPORTED,
                      "iteration %d: validate returned %s", it, w8a8_status_string(st));
        if (st != W8A8_OK) {
            /* Nothing may touch the 64-byte dummies: the problem is refused first. */
            EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, &dummy), st);
            EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &dummy, NULL), st);
            continue;
        }
        valid++;
        ran += run_valid_problem(ctx, &r, &p);
        w8a8_explain explain;
        EXPECT_OK_CLEAN(ctx, w8a8_dispatch_explain(ctx, &p, &explain));
    }
    ck_assert_msg(valid > RANDOM_ITERATIONS / 20 && ran > RANDOM_ITERATIONS / 40,
                  "too few valid problems to mean anything: %d valid, %d ran", valid, ran);
    robust_env_end(&env);
}
END_TEST

static void random_quant_problem(test_rng *r, w8a8_quant_problem *p)
{
    fill_kind kind = random_fill_kind(r);
    if (kind == FILL_BYTES) {
        random_bytes(r, p, sizeof *p);
        return;
    }
    p->m = PICK(r, 1, 2, 3, 5, 16, 33);
    p->k = PICK(r, 16, 32, 48, 128, 272);
    p->in_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->out_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_INT8);
    p->mode = (w8a8_quant_mode)PICK(r, 0, 1, 2, 3);
    p->group_k = (int32_t)PICK(r, 0, 16, 32, 64, 128, 256);
    p->scale_k_major = p->mode == W8A8_QUANT_DYNAMIC_GROUP ? (int32_t)PICK(r, 0, 1) : 0;
    p->m_pad = (int32_t)PICK(r, 0, 0, 1, 2, 4, 16);
    int64_t pad = p->m_pad > 1 ? p->m_pad : 1, m_out = (p->m + pad - 1) / pad * pad;
    int64_t groups = (p->k + (p->group_k ? p->group_k : 128) - 1) / (p->group_k ? p->group_k : 128);
    int64_t dense = p->scale_k_major ? m_out : groups;
    p->scale_ld = p->mode == W8A8_QUANT_DYNAMIC_GROUP ? PICK(r, 0, 0, dense, dense + 5) : 0;
    p->asymmetric = p->out_type == W8A8_INT8 && p->mode != W8A8_QUANT_DYNAMIC_GROUP
                        ? (int32_t)PICK(r, 0, 1) : 0;
    static const float amax[] = {0.0f, 0.0f, 1e-3f, 1e-8f};
    p->min_amax = amax[test_rng_next(r) % 4];
    p->ld_in = PICK(r, 0, 0, p->k, p->k + 8);
    p->ld_out = PICK(r, 0, 0, p->k, p->k + 16);
    const int64_t k = p->k; /* legal: the edges below are relative to it */
    if (edge(r))
        p->m = PICK(r, 0, -1, INT64_MAX, INT64_MAX / 16, INT64_MIN);
    if (edge(r))
        p->k = PICK(r, 0, -16, 17, 8, INT64_MAX - 15, INT64_MAX);
    if (edge(r))
        p->in_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_E4M3, W8A8_INT8, 77);
    if (edge(r))
        p->out_type = (w8a8_dtype)PICK(r, -1, W8A8_BF16, W8A8_E5M2, W8A8_E4M3FNUZ, 77);
    if (edge(r))
        p->mode = (w8a8_quant_mode)PICK(r, -1, 4, 77);
    if (edge(r))
        p->group_k = (int32_t)PICK(r, -16, 8, 48, 512, INT32_MIN, INT32_MAX);
    if (edge(r))
        p->scale_k_major = (int32_t)PICK(r, 1, 2, -1);
    if (edge(r))
        p->scale_ld = PICK(r, -1, 1, INT64_MAX, INT64_MAX / 3, INT64_MIN);
    if (edge(r))
        p->m_pad = (int32_t)PICK(r, -1, 3, 1 << 20, INT32_MAX, INT32_MIN);
    if (edge(r))
        p->asymmetric = (int32_t)PICK(r, 1, 2, -1);
    if (edge(r))
        p->min_amax = (float)PICK(r, -1, 1, 1000000);
    if (edge(r))
        p->min_amax = test_rng_next(r) % 2 ? NAN : INFINITY;
    if (edge(r))
        p->ld_in = PICK(r, -1, 1, k + 1, k + 4, INT64_MAX, INT64_MAX / 4);
    if (edge(r))
        p->ld_out = PICK(r, -1, 1, k + 1, k + 8, INT64_MIN, INT64_MAX / 2);
    if (kind == FILL_FLIPPED)
        flip_bit(r, p, sizeof *p);
}

/* A float for the caller's scale or bound: usually sane, sometimes not. */
static float random_scale_value(test_rng *r)
{
    static const float values[] = {1.0f, 0.5f, 3e-3f, 0.0f, NAN, INFINITY, 1e-30f, -2.0f};
    return values[test_rng_next(r) % 8];
}

/* Runs a quantization the validator accepted, on buffers sized from the documented layout
 * (w8a8_quant_problem, w8a8_quant_tensors). Returns whether it ran on the CPU. */
static bool run_valid_quant(w8a8_context *ctx, test_rng *r, const w8a8_quant_problem *p)
{
    int64_t m_out = w8a8_quant_rows_out(p);
    ck_assert_int_ge(m_out, p->m);
    int64_t ld_in = p->ld_in ? p->ld_in : p->k, ld_out = p->ld_out ? p->ld_out : p->k;
    double in = ((double)(p->m - 1) * (double)ld_in + (double)p->k) * (double)w8a8_dtype_size(p->in_type);
    double out = (double)(m_out - 1) * (double)ld_out + (double)p->k;
    double scales = 1;
    if (p->mode == W8A8_QUANT_DYNAMIC_TOKEN) {
        scales = (double)m_out;
    } else if (p->mode == W8A8_QUANT_DYNAMIC_GROUP) {
        int64_t group = p->group_k ? p->group_k : 128, groups = (p->k + group - 1) / group;
        double dense = (double)(p->scale_k_major ? m_out : groups);
        double outer = (double)(p->scale_k_major ? groups : m_out);
        scales = (outer - 1) * (p->scale_ld ? (double)p->scale_ld : dense) + dense;
    }
    if (in + out + 8 * scales > RANDOM_MAX_BYTES)
        return false;
    bool is_static = p->mode == W8A8_QUANT_STATIC_TENSOR;
    bool may_bound = !is_static && !p->asymmetric;
    float bound = random_scale_value(r);
    w8a8_quant_tensors t = {host_buffer(r, in), host_buffer(r, out), host_buffer(r, 4 * scales),
                            p->asymmetric ? host_buffer(r, 4 * scales) : NULL,
                            may_bound && test_rng_next(r) % 3 == 0 ? &bound : NULL};
    if (is_static)
        t.scale[0] = random_scale_value(r);
    EXPECT_OK_CLEAN(ctx, w8a8_quantize_cpu(ctx, p, &t));
    EXPECT(ctx, w8a8_quantize(ctx, p, &t, NULL), W8A8_NO_DEVICE);
    free((void *)t.in), free(t.out), free(t.scale), free(t.azp);
    return true;
}

START_TEST(random_quant_problems)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    test_rng r;
    test_rng_seed(&r, 977u + (uint64_t)_i);
    static _Alignas(16) unsigned char host[64];
    w8a8_quant_tensors dummy = {host, host + 16, (float *)(host + 32), (int32_t *)(host + 48),
                                NULL};
    int valid = 0, ran = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        w8a8_quant_problem p;
        memset(&p, 0, sizeof p);
        random_quant_problem(&r, &p);
        w8a8_status st = CALL(ctx, w8a8_quant_problem_validate(ctx, &p));
        ck_assert_msg(st == W8A8_OK || st == W8A8_INVALID, "iteration %d: %s", it,
                      w8a8_status_string(st));
        if (st != W8A8_OK) {
            ck_assert_int_eq(w8a8_quant_rows_out(&p), -1);
            EXPECT(ctx, w8a8_quantize_cpu(ctx, &p, &dummy), W8A8_INVALID);
            EXPECT(ctx, w8a8_quantize(ctx, &p, &dummy, NULL), W8A8_INVALID);
            continue;
        }
        valid++;
        ran += run_valid_quant(ctx, &r, &p);
    }
    ck_assert_msg(valid > RANDOM_ITERATIONS / 20 && ran > RANDOM_ITERATIONS / 40,
                  "too few valid problems to mean anything: %d valid, %d ran", valid, ran);
    robust_env_end(&env);
}
END_TEST

static void random_linear_problem(test_rng *r, w8a8_linear_problem *p)
{
    fill_kind kind = random_fill_kind(r);
    if (kind == FILL_BYTES) {
        random_bytes(r, p, sizeof *p);
        return;
    }
    p->m = PICK(r, 1, 3, 16, 33);
    p->n = PICK(r, 8, 16, 64);
    p->k = PICK(r, 16, 32, 128, 272);
    p->x_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->w_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_E5M2, W8A8_INT8);
    p->out_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->bias_type = (w8a8_dtype)PICK(r, W8A8_DTYPE_NONE, W8A8_DTYPE_NONE, W8A8_FP32, p->out_type);
    p->x_quant = (w8a8_quant_mode)PICK(r, 0, 1, 2, 3);
    p->x_group_k = (int32_t)PICK(r, 0, 16, 128);
    p->x_scale_k_major = (int32_t)PICK(r, 0, 1);
    p->x_asymmetric = p->w_type == W8A8_INT8 && p->x_quant != W8A8_QUANT_DYNAMIC_GROUP
                          ? (int32_t)PICK(r, 0, 1) : 0;
    p->x_min_amax = test_rng_next(r) % 2 ? 0.0f : 1e-3f;
    /* The weight's block groups along K must match x's (128 when x_group_k is 0). */
    int32_t group_k = p->x_quant == W8A8_QUANT_DYNAMIC_GROUP && p->x_group_k ? p->x_group_k : 128;
    p->w_scale = random_scale(r, p->n, p->k, group_k);
    if (p->x_asymmetric && p->w_scale.kind == W8A8_SCALE_BLOCK)
        p->w_scale.kind = W8A8_SCALE_ROW;
    p->ld_x = PICK(r, 0, 0, p->k, p->k + 8);
    p->ld_w = PICK(r, 0, 0, p->k, p->k + 16);
    p->ld_out = PICK(r, 0, 0, p->n, p->n + 8);
    const int64_t n = p->n, k = p->k; /* legal: the edges below are relative to them */
    if (edge(r))
        p->m = PICK(r, 0, -1, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MAX - 1, INT64_MIN);
    if (edge(r))
        p->n = PICK(r, 0, -1, 7, INT64_MAX);
    if (edge(r))
        p->k = PICK(r, 0, 17, -16, INT64_MAX - 15);
    if (edge(r))
        p->x_type = (w8a8_dtype)PICK(r, -1, W8A8_E4M3, W8A8_INT8, 77);
    if (edge(r))
        p->w_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_BF16, W8A8_E4M3FNUZ, 77);
    if (edge(r))
        p->out_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_E4M3, 77);
    if (edge(r))
        p->bias_type = (w8a8_dtype)PICK(r, -1, W8A8_E4M3, 77);
    if (edge(r))
        p->x_quant = (w8a8_quant_mode)PICK(r, -1, 4, 77);
    if (edge(r))
        p->x_group_k = (int32_t)PICK(r, -1, 48, 512, INT32_MIN);
    if (edge(r))
        p->x_scale_k_major = (int32_t)PICK(r, 2, -1);
    if (edge(r))
        p->x_asymmetric = (int32_t)PICK(r, 1, 2, -1);
    if (edge(r))
        p->x_min_amax = test_rng_next(r) % 2 ? NAN : -1.0f;
    if (edge(r))
        p->ld_x = PICK(r, -1, k + 1, INT64_MAX);
    if (edge(r))
        p->ld_w = PICK(r, -1, k + 1, INT64_MAX / 2);
    if (edge(r))
        p->ld_out = PICK(r, -1, n + 1, INT64_MIN);
    if (kind == FILL_FLIPPED)
        flip_bit(r, p, sizeof *p);
}

START_TEST(random_linear_problems)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    test_rng r;
    test_rng_seed(&r, 4242u + (uint64_t)_i);
    int valid = 0, runnable = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        w8a8_linear_problem p;
        memset(&p, 0, sizeof p);
        random_linear_problem(&r, &p);
        w8a8_quant_problem qp;
        w8a8_problem mm;
        size_t bytes = 0;
        w8a8_status st = CALL(ctx, w8a8_linear_problems(ctx, &p, &qp, &mm));
        ck_assert_msg(st == W8A8_OK || st == W8A8_INVALID, "iteration %d: %s", it,
                      w8a8_status_string(st));
        EXPECT(ctx, w8a8_linear_workspace_size(ctx, &p, &bytes), st);
        /* Tensors that are right for the problem, so only the problem can be wrong. */
        bool is_static = p.x_quant == W8A8_QUANT_STATIC_TENSOR;
        w8a8_linear_tensors t = {fake_device, fake_device, fake_device, (float *)fake_device,
                                 p.bias_type != W8A8_DTYPE_NONE ? fake_device : NULL,
                                 is_static ? (float *)fake_device : NULL,
                                 is_static && p.x_asymmetric ? (int32_t *)fake_device : NULL,
                                 NULL, p.x_asymmetric ? (int32_t *)fake_device : NULL};
        if (st != W8A8_OK) {
            EXPECT(ctx, w8a8_linear(ctx, &p, &t, fake_device, sizeof fake_device, NULL), st);
            continue;
        }
        valid++;
        /* The problems w8a8_linear runs: the quantization is valid; the matmul decides. */
        EXPECT_OK_CLEAN(ctx, w8a8_quant_problem_validate(ctx, &qp));
        w8a8_status want = CALL(ctx, w8a8_problem_validate(ctx, &mm));
        runnable += want == W8A8_OK;
        if (want == W8A8_OK)
            want = W8A8_NO_DEVICE;
        /* Device pointers are never dereferenced on a CPU-only context, so the workspace may
         * claim more bytes than fake_device holds. */
        EXPECT(ctx, w8a8_linear(ctx, &p, &t, fake_device, bytes, NULL), want);
        if (bytes > 0)
            EXPECT(ctx, w8a8_linear(ctx, &p, &t, fake_device, bytes - 1, NULL), W8A8_INVALID);
    }
    ck_assert_msg(valid > RANDOM_ITERATIONS / 20 && runnable > RANDOM_ITERATIONS / 100,
                  "too few valid problems to mean anything: %d valid, %d runnable", valid,
                  runnable);
    robust_env_end(&env);
}
END_TEST

/* Random shard lists through the weight utilities: the CPU versions run on exactly sized
 * buffers whenever the arguments are legal (as the header states them). */
START_TEST(random_weight_calls)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    test_rng r;
    test_rng_seed(&r, 31337u + (uint64_t)_i);
    int ran = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        int32_t n = (int32_t)PICK(&r, 1, 2, 3, 5, 64, 0, -1, 65);
        int64_t rows[65];
        bool legal_rows = n >= 1 && n <= 64;
        int64_t total = 0;
        for (int i = 0; i < 65; i++) {
            rows[i] = PICK(&r, 1, 2, 7, 16, 1, 3, 5, 8, 0, -1, INT64_MAX / 3);
            if (i < n && (rows[i] < 1 || __builtin_add_overflow(total, rows[i], &total)))
                legal_rows = false;
        }
        int64_t k = PICK(&r, 16, 32, 64, 17, 0, -16, INT64_MAX / 2);
        w8a8_dtype type = (w8a8_dtype)PICK(&r, W8A8_E4M3, W8A8_INT8, W8A8_INT8, W8A8_E5M2, 77);
        int64_t bytes;
        bool legal = legal_rows && k >= 16 && k % 16 == 0 &&
                     (type == W8A8_E4M3 || type == W8A8_INT8) &&
                     !__builtin_mul_overflow(total, k, &bytes) && bytes <= INT64_MAX / 8;
        float out_scale = 0;
        if (legal && bytes <= (int64_t)RANDOM_MAX_BYTES) {
            void *w_in = host_buffer(&r, (double)bytes), *w_out = host_buffer(&r, (double)bytes);
            float *scales = host_buffer(&r, 4.0 * n), *channel = host_buffer(&r, 4.0 * (double)total);
            for (int i = 0; i < n; i++)
                scales[i] = random_scale_value(&r);
            EXPECT_OK_CLEAN(ctx, w8a8_weight_requantize_fused_cpu(ctx, type, k, rows, n, w_in,
                                                                  test_rng_next(&r) % 2 ? w_in : w_out,
                                                                  scales, &out_scale));
            EXPECT_OK_CLEAN(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, n, scales, channel));
            EXPECT_OK_CLEAN(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, w_out, bytes, scales, n));
            free(w_in), free(w_out), free(scales), free(channel);
            ran++;
        } else if (!legal) {
            static _Alignas(16) unsigned char w[64];
            float scales[65] = {1};
            EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, type, k, rows, n, w, w, scales,
                                                         &out_scale), W8A8_INVALID);
            if (!legal_rows)
                EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, n, scales, scales),
                       W8A8_INVALID);
        }
        /* The GPU versions never touch memory on a CPU-only context. */
        EXPECT(ctx, w8a8_weight_requantize_fused(ctx, type, k, rows, n, fake_device, fake_device,
                                                 (float *)fake_device, (float *)fake_device, NULL),
               legal ? W8A8_NO_DEVICE : W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, n, (float *)fake_device,
                                              (float *)fake_device, NULL),
               legal_rows ? W8A8_NO_DEVICE : W8A8_INVALID);
    }
    ck_assert_int_gt(ran, RANDOM_ITERATIONS / 50);
    robust_env_end(&env);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fuzz");
    TCase *random = tcase_create("random");
    tcase_set_timeout(random, 600);
    tcase_add_loop_test(random, random_matmul_problems, 0, 2);
    tcase_add_loop_test(random, random_quant_problems, 0, 2);
    tcase_add_loop_test(random, random_linear_problems, 0, 2);
    tcase_add_loop_test(random, random_weight_calls, 0, 2);
    suite_add_tcase(s, random);
    return test_run_suite(s);
}
