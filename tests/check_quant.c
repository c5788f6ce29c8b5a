/* Quantization on the CPU: the reference quantizer's documented edge cases (zero rows, inf and
 * NaN, saturation, ties, denormals, asymmetric int8, groups with K-major scales and padding,
 * the upper bound), argument validation, and the weight utilities. Expected codes are worked
 * out by hand in the comments, not recomputed with the library's formulas. */
#include <math.h>
#include <string.h>

#include "numeric.h"
#include "quant.h"
#include "testutil.h"

/* 16-byte aligned host buffers. */
static void *alloc16(size_t bytes)
{
    void *p = NULL;
    ck_assert_int_eq(posix_memalign(&p, 16, bytes ? bytes : 16), 0);
    memset(p, 0, bytes ? bytes : 16);
    return p;
}

static w8a8_quant_problem problem(int64_t m, int64_t k, w8a8_dtype in, w8a8_dtype out,
                                  w8a8_quant_mode mode)
{
    w8a8_quant_problem p;
    memset(&p, 0, sizeof p);
    p.m = m;
    p.k = k;
    p.in_type = in;
    p.out_type = out;
    p.mode = mode;
    return p;
}

/* Runs the CPU quantizer; fails the test on error. */
static void run(w8a8_context *ctx, const w8a8_quant_problem *p, const void *in, void *out,
                float *scale, int32_t *azp, const float *ub)
{
    w8a8_quant_tensors t = {.in = in, .out = out, .scale = scale, .azp = azp, .scale_ub = ub};
    w8a8_status st = w8a8_quantize_cpu(ctx, p, &t);
    ck_assert_msg(st == W8A8_OK, "w8a8_quantize_cpu: %s", w8a8_errmsg(ctx));
}

static float *fp32_row(int64_t k, const float *head, int n)
{
    float *x = alloc16((size_t)k * sizeof(float));
    for (int i = 0; i < n; i++)
        x[i] = head[i];
    return x;
}

START_TEST(zero_rows_get_the_floor_scale)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    enum { K = 32 };
    uint16_t *x = alloc16(2 * K * sizeof(uint16_t)); /* row 0: zeros */
    float head[3] = {2.0f, -1.0f, 0.5f};
    for (int i = 0; i < 3; i++)
        x[K + i] = num_f32_to_bf16(head[i]);
    uint8_t out[2 * K];
    float scale[2];
    memset(out, 0xAB, sizeof out);
    w8a8_quant_problem p = problem(2, K, W8A8_BF16, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
    run(ctx, &p, x, out, scale, NULL, NULL);
    /* vLLM's per-token FP8 floor 1/(448·512), bit for bit. */
    ck_assert(scale[0] == 1.0f / (448.0f * 512.0f));
    for (int i = 0; i < K; i++)
        ck_assert_uint_eq(out[i], 0x00);
    ck_assert(scale[1] == 2.0f / 448.0f);
    ck_assert_uint_eq(out[K + 0], 0x7E); /* 2 · 224 = 448 */
    ck_assert_uint_eq(out[K + 1], 0xF6); /* −224 = −1.75·2^7: S 1110 110 */
    ck_assert_uint_eq(out[K + 2], 0x6E); /* 112 = 1.75·2^6 */
    ck_assert_uint_eq(out[K + 3], 0x00);

    int8_t q8[2 * K];
    int32_t azp[2];
    p.out_type = W8A8_INT8;
    run(ctx, &p, x, q8, scale, NULL, NULL);
    ck_assert(scale[0] == 0.001953125f / 127.0f);
    ck_assert_int_eq(q8[0], 0);
    ck_assert_int_eq(q8[K + 0], 127);
    ck_assert_int_eq(q8[K + 1], -64); /* −1 · 63.5 = −63.5 → −64 (even) */
    ck_assert_int_eq(q8[K + 2], 32);  /* 31.75 */
    p.asymmetric = 1;
    run(ctx, &p, x, q8, scale, azp, NULL);
    ck_assert(scale[0] == 0.001953125f / 255.0f);
    ck_assert_int_eq(azp[0], -128);
    ck_assert_int_eq(q8[0], -128); /* 0 + azp: dequantizes to 0 */
    free(x);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(inf_and_nan_do_not_move_scales)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    enum { K = 16 };
    float head[5] = {1.0f, INFINITY, -INFINITY, NAN, 0.5f};
    float *x = alloc16(2 * K * sizeof(float));
    memcpy(x, head, sizeof head);
    x[K] = NAN; /* row 1: NaN, +inf, zeros → no finite nonzero value */
    x[K + 1] = INFINITY;
    uint8_t out[2 * K];
    float scale[2];
    w8a8_quant_problem p = problem(2, K, W8A8_FP32, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
    run(ctx, &p, x, out, scale, NULL, NULL);
    ck_assert(scale[0] == 1.0f / 448.0f);
    ck_assert_uint_eq(out[0], 0x7E);
    ck_assert_uint_eq(out[1], 0x7E); /* +inf saturates */
    ck_assert_uint_eq(out[2], 0xFE); /* −inf saturates */
    ck_assert_uint_eq(out[3], 0x7F); /* NaN */
    ck_assert_uint_eq(out[4], 0x76); /* 224 */
    ck_assert(scale[1] == 1.0f / (448.0f * 512.0f));
    ck_assert_uint_eq(out[K], 0x7F);
    ck_assert_uint_eq(out[K + 1], 0x7E);

    int8_t q8[2 * K];
    p.out_type = W8A8_INT8;
    run(ctx, &p, x, q8, scale, NULL, NULL);
    ck_assert_int_eq(q8[1], 127);
    ck_assert_int_eq(q8[2], -128);
    ck_assert_int_eq(q8[3], 0);
    int32_t azp[2];
    p.asymmetric = 1; /* min 0 (zeros), max 1 → scale 1/255, azp −128 */
    run(ctx, &p, x, q8, scale, azp, NULL);
    ck_assert(scale[0] == 1.0f / 255.0f);
    ck_assert_int_eq(azp[0], -128);
    ck_assert_int_eq(q8[0], 127);
    ck_assert_int_eq(q8[3], -128); /* NaN → 0 + azp */
    ck_assert_int_eq(q8[1], 127);  /* +inf saturates in int32, then in int8 */
    ck_assert_int_eq(q8[2], -128);
    free(x);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(static_saturation_ties_and_denormals)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    enum { K = 16 };
    float head[16] = {500.0f, -1000.0f, 448.0f, 464.0f, 1.0625f, 1.1875f, 0x1p-9f, 0x1.8p-9f,
                      0x1p-10f, -0x1p-10f, 1e-40f, -1e-40f, 0.0f, -0.0f, 0x1.Fp-5f, 240.0f};
    float *x = fp32_row(K, head, 16);
    uint8_t out[K];
    float one = 1.0f;
    w8a8_quant_problem p = problem(1, K, W8A8_FP32, W8A8_E4M3, W8A8_QUANT_STATIC_TENSOR);
    run(ctx, &p, x, out, &one, NULL, NULL);
    const uint8_t want[16] = {
        0x7E, 0xFE, 0x7E, 0x7E, /* saturation to ±448 */
        0x38, 0x3A,             /* 1.0625 → 1.0 (even), 1.1875 → 1.25 (even) */
        0x01, 0x02,             /* 2^-9; 1.5·2^-9 → 2·2^-9 (even) */
        0x00, 0x80,             /* 2^-10 ties to 0; the sign stays */
        0x00, 0x80,             /* fp32 denormals → ±0 */
        0x00, 0x80,             /* ±0 */
        0x18, 0x77              /* 1.9375·2^-5 ties to 2^-4 (carry into the exponent); 240 */
    };
    for (int i = 0; i < K; i++)
        ck_assert_msg(out[i] == want[i], "element %d (%g): 0x%02X, want 0x%02X", i,
                      (double)head[i], out[i], want[i]);

    float ihead[8] = {200.0f, -200.0f, 127.5f, -128.5f, 2.5f, 3.5f, -2.5f, 0.5f};
    const int8_t iwant[8] = {127, -128, 127, -128, 2, 4, -2, 0};
    float *xi = fp32_row(K, ihead, 8);
    int8_t q8[K];
    p.out_type = W8A8_INT8;
    run(ctx, &p, xi, q8, &one, NULL, NULL);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(q8[i] == iwant[i], "int8 element %d: %d, want %d", i, q8[i], iwant[i]);
    /* static asymmetric: scale 0.5, azp 10: 3 → 6 + 10; −100 → −200 + 10 → −128 */
    float half = 0.5f;
    int32_t azp = 10;
    xi[0] = 3.0f;
    xi[1] = -100.0f;
    p.asymmetric = 1;
    run(ctx, &p, xi, q8, &half, &azp, NULL);
    ck_assert_int_eq(q8[0], 16);
    ck_assert_int_eq(q8[1], -128);
    ck_assert_int_eq(q8[15], 10);
    free(x);
    free(xi);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(asymmetric_int8)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    enum { K = 16 };
    float *x = alloc16(2 * K * sizeof(float));
    x[0] = -1.0f;
    x[1] = 3.0f;
    x[2] = 1.0f;
    for (int i = 0; i < K; i++)
        x[K + i] = 1.0f; /* a constant row: the range floor keeps the scale positive */
    int8_t q[2 * K];
    float scale[2];
    int32_t azp[2];
    w8a8_quant_problem p = problem(2, K, W8A8_FP32, W8A8_INT8, W8A8_QUANT_DYNAMIC_TOKEN);
    p.asymmetric = 1;
    run(ctx, &p, x, q, scale, azp, NULL);
    ck_assert(scale[0] == 4.0f / 255.0f);
    ck_assert_int_eq(azp[0], -64); /* −128 + 63.75 = −64.25 */
    ck_assert_int_eq(q[0], -128);  /* −63.75 → −64, − 64 */
    ck_assert_int_eq(q[1], 127);   /* 191.25 → 191, − 64 */
    ck_assert_int_eq(q[2], 0);     /* 63.75 → 64, − 64 */
    ck_assert_int_eq(q[3], -64);   /* 0 → azp */
    ck_assert(scale[1] == 0.001953125f / 255.0f);
    ck_assert_int_eq(azp[1], -130688); /* −128 − 1/(2^-9/255) */
    ck_assert_int_eq(q[K], -128);
    /* per tensor, padded: min 0 (row 0 has zeros), max 3; pad rows do not count */
    p.mode = W8A8_QUANT_DYNAMIC_TENSOR;
    p.m_pad = 4;
    int8_t qp[4 * K];
    memset(qp, 0x55, sizeof qp);
    run(ctx, &p, x, qp, scale, azp, NULL);
    ck_assert(scale[0] == 4.0f / 255.0f);
    ck_assert_int_eq(azp[0], -64);
    ck_assert_int_eq(qp[K], 0);      /* 1.0 like row 0's third element */
    ck_assert_int_eq(qp[3 * K], -64); /* padding: the code of 0 */
    ck_assert_int_eq(w8a8_quant_rows_out(&p), 4);
    free(x);
    w8a8_context_close(ctx);
}
END_TEST

/* Group g of row r equals per-token quantization of that slice with the group floor. */
START_TEST(groups_k_major_with_padding)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    enum { M = 3, K = 48, G = 2, MPAD = 4, LD = 6 };
    test_rng rng;
    test_rng_seed(&rng, 7);
    uint16_t *x = alloc16(M * K * sizeof(uint16_t));
    for (int i = 0; i < M * K; i++)
        x[i] = num_f32_to_fp16((float)(test_rng_normal(&rng) * (1 + i / K)));
    uint8_t *out = alloc16(MPAD * K);
    float scale[G * LD];
    for (int i = 0; i < G * LD; i++)
        scale[i] = -7.0f;
    w8a8_quant_problem p = problem(M, K, W8A8_FP16, W8A8_E4M3, W8A8_QUANT_DYNAMIC_GROUP);
    p.group_k = 32;
    p.scale_k_major = 1;
    p.scale_ld = LD;
    p.m_pad = MPAD;
    run(ctx, &p, x, out, scale, NULL, NULL);
    for (int r = 0; r < M; r++) {
        for (int g = 0; g < G; g++) {
            int begin = 32 * g, len = g == 0 ? 32 : 16;
            uint16_t *slice = alloc16(len * sizeof(uint16_t));
            memcpy(slice, x + r * K + begin, len * sizeof(uint16_t));
            uint8_t ref[32];
            float ref_scale;
            w8a8_quant_problem t = problem(1, len, W8A8_FP16, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
            t.min_amax = W8A8_QUANT_GROUP_MIN_AMAX;
            run(ctx, &t, slice, ref, &ref_scale, NULL, NULL);
            ck_assert_msg(scale[g * LD + r] == ref_scale, "scale of row %d group %d", r, g);
            ck_assert_mem_eq(out + r * K + begin, ref, len);
            free(slice);
        }
    }
    for (int g = 0; g < G; g++) {
        ck_assert(scale[g * LD + 3] == 1e-10f / 448.0f); /* the padded row */
        ck_assert(scale[g * LD + 4] == -7.0f && scale[g * LD + 5] == -7.0f); /* untouched */
    }
    for (int i = 0; i < K; i++)
        ck_assert_uint_eq(out[3 * K + i], 0);
    /* row-major with a wider ld: scale of (r, g) at r·3 + g */
    p.scale_k_major = 0;
    p.scale_ld = 3;
    float rm[MPAD * 3];
    for (int i = 0; i < MPAD * 3; i++)
        rm[i] = -7.0f;
    run(ctx, &p, x, out, rm, NULL, NULL);
    for (int r = 0; r < M; r++)
        for (int g = 0; g < G; g++)
            ck_assert(rm[r * 3 + g] == scale[g * LD + r]);
    ck_assert(rm[2] == -7.0f && rm[5] == -7.0f);
    free(x);
    free(out);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(upper_bound_clamps_amax)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    enum { K = 16 };
    float *x = alloc16(2 * K * sizeof(float));
    x[0] = 4.0f;
    x[1] = 0.5f;
    x[K] = 0.5f;
    uint8_t out[2 * K];
    float scale[2], ub = 1.0f;
    w8a8_quant_problem p = problem(2, K, W8A8_FP32, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
    run(ctx, &p, x, out, scale, NULL, &ub);
    ck_assert(scale[0] == 1.0f / 448.0f);
    ck_assert_uint_eq(out[0], 0x7E); /* 4 · 448 saturates */
    ck_assert_uint_eq(out[1], 0x76); /* 224 */
    ck_assert(scale[1] == 0.5f / 448.0f);
    ck_assert_uint_eq(out[K], 0x7E);
    p.mode = W8A8_QUANT_DYNAMIC_TENSOR;
    run(ctx, &p, x, out, scale, NULL, &ub);
    ck_assert(scale[0] == 1.0f / 448.0f);
    run(ctx, &p, x, out, scale, NULL, NULL);
    ck_assert(scale[0] == 4.0f / 448.0f);
    ck_assert_uint_eq(out[1], 0x66); /* 0.5 · 112 = 56 = 1.75·2^5 */
    free(x);
    w8a8_context_close(ctx);
}
END_TEST

static void expect_invalid(w8a8_context *ctx, const w8a8_quant_problem *p,
                           const w8a8_quant_tensors *t, const char *word)
{
    ck_assert_int_eq(w8a8_quantize_cpu(ctx, p, t), W8A8_INVALID);
    ck_assert_msg(strstr(w8a8_errmsg(ctx), word), "message '%s' lacks '%s'", w8a8_errmsg(ctx), word);
}

START_TEST(invalid_arguments_are_named)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    uint16_t *x = alloc16(64 * 2);
    uint8_t *out = alloc16(64);
    float scale[4] = {1, 1, 1, 1}, ub = 1;
    int32_t azp[4];
    w8a8_quant_tensors t = {.in = x, .out = out, .scale = scale};
    w8a8_quant_problem p = problem(1, 24, W8A8_BF16, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
    expect_invalid(ctx, &p, &t, "k:");
    p = problem(1, 32, W8A8_INT8, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
    expect_invalid(ctx, &p, &t, "in_type");
    p = problem(1, 32, W8A8_BF16, W8A8_BF16, W8A8_QUANT_DYNAMIC_TOKEN);
    expect_invalid(ctx, &p, &t, "out_type");
    p = problem(1, 32, W8A8_BF16, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
    p.asymmetric = 1;
    expect_invalid(ctx, &p, &t, "asymmetric");
    p.out_type = W8A8_INT8;
    p.mode = W8A8_QUANT_DYNAMIC_GROUP;
    expect_invalid(ctx, &p, &t, "asymmetric");
    p.mode = W8A8_QUANT_DYNAMIC_TOKEN;
    expect_invalid(ctx, &p, &t, "azp");
    p = problem(1, 32, W8A8_BF16, W8A8_E4M3, W8A8_QUANT_STATIC_TENSOR);
    t.scale_ub = &ub;
    expect_invalid(ctx, &p, &t, "scale_ub");
    t.scale_ub = NULL;
    t.azp = azp; /* a zero point a symmetric problem would ignore */
    expect_invalid(ctx, &p, &t, "azp is set but the problem is symmetric");
    ck_assert_int_eq(w8a8_quantize(ctx, &p, &t, NULL), W8A8_INVALID); /* before any device */
    t.azp = NULL;
    p.min_amax = -1.0f;
    expect_invalid(ctx, &p, &t, "min_amax");
    p = problem(1, 32, W8A8_BF16, W8A8_E4M3, W8A8_QUANT_DYNAMIC_GROUP);
    p.group_k = 48;
    expect_invalid(ctx, &p, &t, "group_k");
    p.group_k = 16;
    p.scale_ld = 1;
    expect_invalid(ctx, &p, &t, "scale_ld");
    p = problem(1, 32, W8A8_BF16, W8A8_E4M3, W8A8_QUANT_DYNAMIC_TOKEN);
    p.ld_in = 36; /* 72 bytes: rows lose 16-byte alignment */
    expect_invalid(ctx, &p, &t, "ld_in");
    p.ld_in = 0;
    t.in = x + 1;
    expect_invalid(ctx, &p, &t, "in is not 16-byte aligned");
    t.in = x;
    t.out = NULL;
    expect_invalid(ctx, &p, &t, "out");
    p.m = 0;
    ck_assert_int_eq(w8a8_quant_problem_validate(ctx, &p), W8A8_INVALID);
    ck_assert_int_eq(w8a8_quant_rows_out(&p), -1);
    ck_assert_str_eq(w8a8_quant_mode_name(W8A8_QUANT_DYNAMIC_GROUP), "group");
    ck_assert_ptr_null(w8a8_quant_mode_name((w8a8_quant_mode)9));
    free(x);
    free(out);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(requantize_fused_shards)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    enum { K = 16 };
    int64_t rows[2] = {1, 2};
    uint8_t *w = alloc16(3 * K);
    w[0] = 0x40;     /* 2.0 · 0.5 / 2 = 0.5 = 0x30 */
    w[1] = 0x7E;     /* 448 / 4 = 112 = 0x6E */
    w[2] = 0x7F;     /* NaN stays NaN */
    w[3] = 0x81;     /* −2^-9 / 4 → −0 */
    w[K] = 0x40;     /* shard 1 has the max scale: unchanged */
    w[K + 1] = 0x7F;
    float scales[2] = {0.5f, 2.0f}, out_scale = 0;
    uint8_t *o = alloc16(3 * K);
    ck_assert_int_eq(w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, K, rows, 2, w, o, scales,
                                                      &out_scale), W8A8_OK);
    ck_assert(out_scale == 2.0f);
    ck_assert_uint_eq(o[0], 0x30);
    ck_assert_uint_eq(o[1], 0x6E);
    ck_assert_uint_eq(o[2], 0x7F);
    ck_assert_uint_eq(o[3], 0x80);
    ck_assert_mem_eq(o + K, w + K, 2 * K);
    /* in place, int8, out_scale aliasing a shard scale */
    int8_t *q = alloc16(3 * K);
    q[0] = 100;  /* 100 · 0.5 / 2 = 25 */
    q[1] = -7;   /* −1.75 → −2 */
    q[2] = -128; /* −32 */
    q[3] = 2;    /* 0.5 → 0 (even) */
    q[K] = 99;
    ck_assert_int_eq(w8a8_weight_requantize_fused_cpu(ctx, W8A8_INT8, K, rows, 2, q, q, scales,
                                                      &scales[0]), W8A8_OK);
    ck_assert(scales[0] == 2.0f);
    ck_assert_int_eq(q[0], 25);
    ck_assert_int_eq(q[1], -2);
    ck_assert_int_eq(q[2], -32);
    ck_assert_int_eq(q[3], 0);
    ck_assert_int_eq(q[K], 99);
    ck_assert_int_eq(w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, K, rows, 2, w, w + 1,
                                                      scales, &out_scale), W8A8_INVALID);
    ck_assert_int_eq(w8a8_weight_requantize_fused_cpu(ctx, W8A8_BF16, K, rows, 2, w, o, scales,
                                                      &out_scale), W8A8_INVALID);
    rows[1] = 0;
    ck_assert_int_eq(w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, K, rows, 2, w, o, scales,
                                                      &out_scale), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "shard_rows[1]"));
    free(w);
    free(o);
    free(q);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(expand_scales_per_channel)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    int64_t rows[3] = {3, 1, 2};
    float scales[3] = {0.25f, 4.0f, -1.0f}, out[6];
    ck_assert_int_eq(w8a8_weight_expand_scales_cpu(ctx, rows, 3, scales, out), W8A8_OK);
    const float want[6] = {0.25f, 0.25f, 0.25f, 4.0f, -1.0f, -1.0f};
    ck_assert_mem_eq(out, want, sizeof want);
    ck_assert_int_eq(w8a8_weight_expand_scales_cpu(ctx, rows, 0, scales, out), W8A8_INVALID);
    ck_assert_int_eq(w8a8_weight_expand_scales_cpu(ctx, rows, 3, NULL, out), W8A8_INVALID);
    w8a8_context_close(ctx);
}
END_TEST

/* Every e4m3fn code: fnuz(code) · 2 == fn(code), except 0x80 → 0 and the fn NaNs → ±240. */
START_TEST(fnuz_conversion_table)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    uint8_t codes[256];
    for (int i = 0; i < 256; i++)
        codes[i] = (uint8_t)i;
    float scales[2] = {0.75f, 3.0f};
    ck_assert_int_eq(w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, codes, 256, scales, 2), W8A8_OK);
    ck_assert(scales[0] == 1.5f && scales[1] == 6.0f);
    for (int c = 0; c < 256; c++) {
        float fn = num_e4m3_to_f32((uint8_t)c), fnuz = num_e4m3fnuz_to_f32(codes[c]);
        if (c == 0x80) {
            ck_assert_uint_eq(codes[c], 0);
        } else if (isnan(fn)) {
            ck_assert(fnuz == (c & 0x80 ? -240.0f : 240.0f));
        } else {
            ck_assert_uint_eq(codes[c], c);
            ck_assert_msg(fnuz * 2.0f == fn, "code 0x%02X: fnuz %g · 2 != fn %g", c,
                          (double)fnuz, (double)fn);
        }
    }
    ck_assert_int_eq(w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, NULL, 16, scales, 0), W8A8_INVALID);
    w8a8_context_close(ctx);
}
END_TEST

/* The integer e4m3 encoder of templates/quant.cuh (q_e4m3_soft, used below sm_89), written
 * again in C, against the host encoder on every float whose low 12 bits are zero or one of a
 * few patterns (covers every e4m3 rounding boundary and tie), plus random floats. */
static uint8_t soft_e4m3(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0x7F;
    if (a >= 0x43E00000u)
        return (uint8_t)(sign | 0x7Eu);
    if (a < 0x3C800000u) {
        float t;
        memcpy(&t, &a, 4);
        return (uint8_t)(sign | (uint32_t)quant_rne_s32(t * 512.0f));
    }
    uint32_t r = a + 0x7FFFFu + ((a >> 20) & 1u);
    return (uint8_t)(sign | ((r >> 20) - (120u << 3)));
}

START_TEST(integer_e4m3_encoder_matches_host)
{
    const uint32_t lows[4] = {0x000u, 0x001u, 0xFFFu, 0x800u};
    for (uint64_t hi = 0; hi < (1u << 20); hi++) {
        for (int j = 0; j < 4; j++) {
            uint32_t bits = (uint32_t)(hi << 12) | lows[j];
            float x;
            memcpy(&x, &bits, 4);
            uint8_t want = isnan(x) ? 0x7F : num_f32_to_e4m3(x);
            ck_assert_msg(soft_e4m3(x) == want, "bits 0x%08X: 0x%02X, want 0x%02X", bits,
                          soft_e4m3(x), want);
        }
    }
}
END_TEST

START_TEST(rne_s32_edges)
{
    ck_assert_int_eq(quant_rne_s32(2.5f), 2);
    ck_assert_int_eq(quant_rne_s32(-2.5f), -2);
    ck_assert_int_eq(quant_rne_s32(3.5f), 4);
    ck_assert_int_eq(quant_rne_s32(-0.5f), 0);
    ck_assert_int_eq(quant_rne_s32(3e9f), INT32_MAX);
    ck_assert_int_eq(quant_rne_s32(-3e9f), INT32_MIN);
    ck_assert_int_eq(quant_rne_s32(-2147483648.0f), INT32_MIN);
    ck_assert_int_eq(quant_rne_s32(NAN), 0);
    ck_assert_int_eq(quant_rne_s32(16777215.0f), 16777215);
}
END_TEST

START_TEST(compile_sets_are_listed)
{
    size_t n = 0;
    while (quant_compile_defines(n))
        n++;
    ck_assert_uint_ge(n, 20);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quant");
    TCase *tc = tcase_create("quant");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, zero_rows_get_the_floor_scale);
    tcase_add_test(tc, inf_and_nan_do_not_move_scales);
    tcase_add_test(tc, static_saturation_ties_and_denormals);
    tcase_add_test(tc, asymmetric_int8);
    tcase_add_test(tc, groups_k_major_with_padding);
    tcase_add_test(tc, upper_bound_clamps_amax);
    tcase_add_test(tc, invalid_arguments_are_named);
    tcase_add_test(tc, requantize_fused_shards);
    tcase_add_test(tc, expand_scales_per_channel);
    tcase_add_test(tc, fnuz_conversion_table);
    tcase_add_test(tc, integer_e4m3_encoder_matches_host);
    tcase_add_test(tc, rne_s32_edges);
    tcase_add_test(tc, compile_sets_are_listed);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
