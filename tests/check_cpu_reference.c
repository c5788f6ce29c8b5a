/* w8a8_scaled_mm_cpu on small hand-computed cases: each scale kind (row-major and K-major
 * blocks, tails, padded ld), FP8 mixes, int8 with zero points, bias in both dtypes, strides,
 * rounding once to the out dtype, and that a rejected call writes nothing. */
#include <math.h>
#include <string.h>

#include "numeric.h"
#include "testutil.h"

/* e4m3 codes of small values */
#define E4M3_HALF 0x30
#define E4M3_ONE 0x38
#define E4M3_TWO 0x40
#define E5M2_ONE 0x3C
#define E5M2_FOUR 0x44
#define POISON 0xFF

static w8a8_context *ctx_cpu(void) { return test_ctx_open_with(NULL, NULL, W8A8_CONTEXT_CPU_ONLY); }

static void run_ok(w8a8_context *ctx, const w8a8_problem *p, const w8a8_tensors *t)
{
    w8a8_status st = w8a8_scaled_mm_cpu(ctx, p, t);
    ck_assert_msg(st == W8A8_OK, "w8a8_scaled_mm_cpu: %s: %s", w8a8_status_string(st),
                  w8a8_errmsg(ctx));
}

static void expect_f32(const float *out, int64_t ldc, int64_t m, int64_t n, const double *want)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            ck_assert_msg(out[i * ldc + j] == (float)want[i * n + j], "out[%lld][%lld] = %g, want %g",
                          (long long)i, (long long)j, (double)out[i * ldc + j], want[i * n + j]);
}

START_TEST(per_tensor_and_per_row)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) uint8_t a[2 * 16], b[2 * 16];
    memset(a, E4M3_ONE, sizeof a);
    memset(b, E4M3_TWO, 16);           /* B row 0: 2.0 */
    memset(b + 16, E4M3_HALF, 16);     /* B row 1: 0.5 */
    _Alignas(16) float out[2 * 4];
    _Alignas(16) float sa[2] = {0.5f, 2.0f}, sb[2] = {3.0f, 10.0f};
    w8a8_problem p;
    w8a8_problem_init(&p, 2, 2, 16, W8A8_E4M3, W8A8_FP32);
    p.ldc = 4; /* two fp32 columns in 16-byte rows */
    w8a8_tensors t = {a, b, out, sa, sb, NULL, NULL, NULL};
    run_ok(ctx, &p, &t);
    /* per tensor: sa[0]=0.5, sb[0]=3: 16·1·2·1.5 = 48, 16·1·0.5·1.5 = 12 */
    expect_f32(out, 4, 2, 2, (double[]){48, 12, 48, 12});
    p.a_scale.kind = W8A8_SCALE_ROW;
    p.b_scale.kind = W8A8_SCALE_ROW;
    run_ok(ctx, &p, &t);
    /* 16·A·B·sa[m]·sb[n]: row 0 (0.5): 48, 40; row 1 (2): 192, 160 */
    expect_f32(out, 4, 2, 2, (double[]){48, 40, 192, 160});
    p.a_scale.kind = W8A8_SCALE_TENSOR; /* per-tensor A × per-channel B */
    run_ok(ctx, &p, &t);
    expect_f32(out, 4, 2, 2, (double[]){48, 40, 48, 40});
    w8a8_context_close(ctx);
}
END_TEST

/* K = 32 in two groups of 16. A: 1.0 in group 0, 2.0 in group 1. B: all 1.0.
 * A block 1×16 row-major (M × 2), B block 2×16 K-major (2 × 1). */
START_TEST(block_scales_row_and_k_major)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) uint8_t a[2 * 32], b[2 * 32];
    for (int m = 0; m < 2; m++) {
        memset(a + 32 * m, E4M3_ONE, 16);
        memset(a + 32 * m + 16, E4M3_TWO, 16);
    }
    memset(b, E4M3_ONE, sizeof b);
    _Alignas(16) float sa[4] = {1.0f, 0.5f, 1.0f, 1.0f}; /* [m][kb] */
    _Alignas(16) float sb[2] = {2.0f, 4.0f};             /* [kb][n / 2] */
    _Alignas(16) float out[2 * 4];
    w8a8_problem p;
    w8a8_problem_init(&p, 2, 2, 32, W8A8_E4M3, W8A8_FP32);
    p.ldc = 4;
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, 0};
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 2, 16, 1, 0};
    w8a8_tensors t = {a, b, out, sa, sb, NULL, NULL, NULL};
    run_ok(ctx, &p, &t);
    /* row 0: 16·1·1·2 + 16·2·0.5·4 = 96; row 1: 16·1·1·2 + 16·2·1·4 = 160 */
    expect_f32(out, 4, 2, 2, (double[]){96, 96, 160, 160});
    /* The same A scales transposed (K-major, ld padded to 4) give the same result. */
    _Alignas(16) float sa_t[8] = {1.0f, 1.0f, -7, -7, 0.5f, 1.0f, -7, -7}; /* [kb][m], ld 4 */
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 1, 4};
    t.a_scale = sa_t;
    run_ok(ctx, &p, &t);
    expect_f32(out, 4, 2, 2, (double[]){96, 96, 160, 160});
    w8a8_context_close(ctx);
}
END_TEST

/* K = 48 with group_k 32: the tail block (k 32…47) uses its own scale. B is 128×… in vLLM;
 * here B rows 0 and 1 fall in different row blocks (group_rows 1, row-major, ld 3 padded). */
START_TEST(block_tail_and_row_blocks)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) uint8_t a[48], b[2 * 48];
    memset(a, E4M3_ONE, sizeof a);
    memset(b, E4M3_ONE, sizeof b);
    _Alignas(16) float sa[1] = {1.0f};
    _Alignas(16) float sb[6] = {1.0f, 10.0f, -99, 2.0f, 20.0f, -99}; /* [n][kb], ld 3 */
    _Alignas(16) float out[4];
    w8a8_problem p;
    w8a8_problem_init(&p, 1, 2, 48, W8A8_E4M3, W8A8_FP32);
    p.ldc = 4;
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 32, 0, 3};
    w8a8_tensors t = {a, b, out, sa, sb, NULL, NULL, NULL};
    run_ok(ctx, &p, &t);
    /* n 0: 32·1 + 16·10 = 192; n 1: 32·2 + 16·20 = 384 */
    expect_f32(out, 4, 1, 2, (double[]){192, 384});
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(fp8_mixes)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) uint8_t a[16], b[16];
    memset(a, E5M2_FOUR, sizeof a); /* e5m2 4.0 */
    memset(b, E4M3_HALF, sizeof b); /* e4m3 0.5 */
    _Alignas(16) float s[1] = {1.0f};
    w8a8_problem p;
    w8a8_problem_init(&p, 1, 1, 16, W8A8_E5M2, W8A8_FP32);
    p.b_type = W8A8_E4M3;
    p.ldc = 4; /* 16-byte rows for a single fp32 column */
    _Alignas(16) float wide[4];
    w8a8_tensors t = {a, b, wide, s, s, NULL, NULL, NULL};
    run_ok(ctx, &p, &t);
    ck_assert_float_eq(wide[0], 32.0f); /* 16 · 4 · 0.5 */
    memset(a, E5M2_ONE, sizeof a);
    p.a_type = W8A8_E4M3; /* reinterpret: 0x3C in e4m3 is 1.5 */
    p.b_type = W8A8_E5M2; /* 0x30 in e5m2 is 0.125 */
    run_ok(ctx, &p, &t);
    ck_assert_float_eq(wide[0], 16 * 1.5f * 0.125f);
    w8a8_context_close(ctx);
}
END_TEST

/* int8 with zero points: out = sa·sb·(Σ A·B − azp·b_col_sums[n]) + bias[n]. */
START_TEST(int8_zero_points_and_bias)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) int8_t a[2 * 16], b[2 * 16];
    for (int k = 0; k < 16; k++) {
        a[k] = (int8_t)(k + 1);      /* 1…16 */
        a[16 + k] = (int8_t)(-k);    /* 0…-15 */
        b[k] = 1;
        b[16 + k] = (int8_t)(k % 2 ? -3 : 3);
    }
    _Alignas(16) int32_t col_sums[2] = {16, 0};
    _Alignas(16) int32_t azp[2] = {3, -2};
    _Alignas(16) float sa[2] = {0.5f, 0.25f}, sb[2] = {2.0f, 4.0f};
    _Alignas(16) float bias[2] = {0.25f, -1.0f};
    _Alignas(16) float out[2 * 4];
    w8a8_problem p;
    w8a8_problem_init(&p, 2, 2, 16, W8A8_INT8, W8A8_FP32);
    p.ldc = 4;
    p.a_scale.kind = W8A8_SCALE_ROW;
    p.b_scale.kind = W8A8_SCALE_ROW;
    p.azp = W8A8_AZP_TOKEN;
    p.bias_type = W8A8_FP32;
    w8a8_tensors t = {a, b, out, sa, sb, bias, azp, col_sums};
    run_ok(ctx, &p, &t);
    /* Σ A·B: row0·b0 = 136, row0·b1 = 3·(1−2+3−…−16) = −24; row1·b0 = −120, row1·b1 = 24.
     * row 0 (azp 3): (136 − 48)·1 + 0.25 = 88.25;  (−24 − 0)·2 − 1 = −49
     * row 1 (azp −2): (−120 + 32)·0.5 + 0.25 = −43.75; (24 − 0)·1 − 1 = 23 */
    expect_f32(out, 4, 2, 2, (double[]){88.25, -49, -43.75, 23});
    p.azp = W8A8_AZP_TENSOR; /* azp[0] = 3 for both rows */
    run_ok(ctx, &p, &t);
    expect_f32(out, 4, 2, 2, (double[]){88.25, -49, (-120 - 48) * 0.5 + 0.25, 23});
    w8a8_context_close(ctx);
}
END_TEST

/* bf16 out with a bf16 and an fp32 bias; rounding happens once, from the exact sum. */
START_TEST(bias_and_single_rounding)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) uint8_t a[16] = {E4M3_ONE, 0x02}, b[8 * 16]; /* A: 1, 2^-8, then zeros */
    for (int n = 0; n < 8; n++)
        memset(b + 16 * n, E4M3_ONE, 16);
    _Alignas(16) float s[1] = {1.0f};
    _Alignas(16) float bias32[8] = {0, 0x1p-20f, -0x1p-20f, 1, 0, 0, 0, 0};
    _Alignas(16) uint16_t bias16[8], out[8];
    for (int n = 0; n < 8; n++)
        bias16[n] = num_f32_to_bf16(bias32[n]);
    w8a8_problem p;
    w8a8_problem_init(&p, 1, 8, 16, W8A8_E4M3, W8A8_BF16);
    p.bias_type = W8A8_FP32;
    w8a8_tensors t = {a, b, out, s, s, bias32, NULL, NULL};
    run_ok(ctx, &p, &t);
    ck_assert_uint_eq(out[0], 0x3F80); /* 1 + 2^-8 is a tie: even */
    ck_assert_uint_eq(out[1], 0x3F81); /* just above the tie */
    ck_assert_uint_eq(out[2], 0x3F80); /* just below */
    ck_assert_uint_eq(out[3], 0x4000); /* 2 + 2^-8 → 2 */
    p.bias_type = W8A8_BF16;
    t.bias = bias16;
    run_ok(ctx, &p, &t);
    ck_assert_uint_eq(out[3], 0x4000);
    ck_assert_uint_eq(out[1], num_f32_to_bf16(1.0f + 0x1p-8f + num_bf16_to_f32(bias16[1])));
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(strides_leave_padding_alone)
{
    w8a8_context *ctx = ctx_cpu();
    enum { M = 3, N = 8, K = 16, LDA = 48, LDB = 32, LDC = 16 };
    _Alignas(16) uint8_t a[M * LDA], b[N * LDB];
    memset(a, 0x7F, sizeof a); /* NaN in the padding: it must never be read */
    memset(b, 0x7F, sizeof b);
    for (int m = 0; m < M; m++)
        memset(a + m * LDA, E4M3_ONE, K);
    for (int n = 0; n < N; n++)
        memset(b + n * LDB, E4M3_TWO, K);
    _Alignas(16) float s[1] = {1.0f};
    _Alignas(16) uint16_t out[M * LDC];
    memset(out, POISON, sizeof out);
    w8a8_problem p;
    w8a8_problem_init(&p, M, N, K, W8A8_E4M3, W8A8_FP16);
    p.lda = LDA, p.ldb = LDB, p.ldc = LDC;
    w8a8_tensors t = {a, b, out, s, s, NULL, NULL, NULL};
    run_ok(ctx, &p, &t);
    for (int m = 0; m < M; m++)
        for (int c = 0; c < LDC; c++)
            ck_assert_uint_eq(out[m * LDC + c], c < N ? num_f32_to_fp16(32.0f) : 0xFFFF);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(fp16_overflow_is_inf)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) uint8_t a[16], b[8 * 16];
    memset(a, 0x7E, sizeof a); /* 448 */
    memset(b, 0x7E, sizeof b);
    _Alignas(16) float s[1] = {1.0f};
    _Alignas(16) uint16_t out[8];
    w8a8_problem p;
    w8a8_problem_init(&p, 1, 8, 16, W8A8_E4M3, W8A8_FP16);
    w8a8_tensors t = {a, b, out, s, s, NULL, NULL, NULL};
    run_ok(ctx, &p, &t);
    ck_assert_uint_eq(out[0], 0x7C00); /* 16 · 448² ≫ 65504 */
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(rejected_call_writes_nothing)
{
    w8a8_context *ctx = ctx_cpu();
    _Alignas(16) uint8_t a[32], b[32];
    memset(a, E4M3_ONE, sizeof a);
    memset(b, E4M3_ONE, sizeof b);
    _Alignas(16) float s[1] = {1.0f};
    _Alignas(16) uint8_t out[64];
    memset(out, POISON, sizeof out);
    w8a8_problem p;
    w8a8_problem_init(&p, 2, 8, 16, W8A8_E4M3, W8A8_BF16);
    p.bias_type = W8A8_BF16; /* but no bias pointer */
    w8a8_tensors t = {a, b, out, s, s, NULL, NULL, NULL};
    ck_assert_int_eq(w8a8_scaled_mm_cpu(ctx, &p, &t), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "tensors.bias"));
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_uint_eq(out[i], POISON);
    ck_assert_int_eq(w8a8_scaled_mm_cpu(NULL, &p, &t), W8A8_INVALID);
    w8a8_context_close(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cpu_reference");
    TCase *tc = tcase_create("cpu_reference");
    tcase_add_test(tc, per_tensor_and_per_row);
    tcase_add_test(tc, block_scales_row_and_k_major);
    tcase_add_test(tc, block_tail_and_row_blocks);
    tcase_add_test(tc, fp8_mixes);
    tcase_add_test(tc, int8_zero_points_and_bias);
    tcase_add_test(tc, bias_and_single_rounding);
    tcase_add_test(tc, strides_leave_padding_alone);
    tcase_add_test(tc, fp16_overflow_is_inf);
    tcase_add_test(tc, rejected_call_writes_nothing);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
