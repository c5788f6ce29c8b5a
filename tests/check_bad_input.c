/* Bad input to the matmul, quantization and weight entry points (CPU only): every kind of bad
 * problem (sizes, strides, dtypes, scale layouts, zero points, group shapes, overflowing
 * products) and bad tensors (NULL, misaligned, overlapping) must come back as W8A8_INVALID
 * (or the documented status) with a message naming the field, print nothing and touch no
 * memory; host memory stands in for device pointers and must never be read. The API-wide
 * NULL/enum/string checks are check_robustness.c; shared helpers robustness.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "robustness.h"

/* Host memory passed where device pointers go: a CPU-only context must never read it. */
static _Alignas(256) unsigned char fake_device[FAKE_DEVICE_BYTES];

/* ---- matmul: bad problems and tensors ------------------------------------------------------- */

/* Bad problem number i (false past the last). */
static bool bad_problem(int i, w8a8_problem *p)
{
    *p = robust_good_problem();
    switch (i) {
    case 0: p->m = -1; break;
    case 1: p->m = 0; break;
    case 2: p->m = INT64_MAX; break;
    case 3: p->n = -1; break;
    case 4: p->n = INT64_MIN; break;
    case 5: p->k = 17; break;
    case 6: p->k = INT64_MAX; break;
    case 7: p->k = 0; break;
    case 8: p->a_type = (w8a8_dtype)77; break;
    case 9: p->b_type = (w8a8_dtype)-1; break;
    case 10: p->out_type = (w8a8_dtype)77; break;
    case 11: p->bias_type = (w8a8_dtype)77; break;
    case 12: p->a_type = p->b_type = W8A8_E4M3FNUZ; break;
    case 13: p->a_type = W8A8_INT8; break;
    case 14: p->a_scale.kind = (w8a8_scale_kind)77; break;
    case 15: p->b_scale.kind = (w8a8_scale_kind)-5; break;
    case 16: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 0, 16, 0, 0}; break;
    case 17: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, INT32_MIN, 16, 0, 0}; break;
    case 18: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, -16, 0, 0}; break;
    case 19: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 17, 0, 0}; break;
    case 20: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 7, 0}; break;
    case 21: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, -1}; break;
    case 22: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, INT64_MAX}; break;
    case 23: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 1, INT64_MIN}; break;
    case 24: p->azp = (w8a8_azp_kind)77; break;
    case 25: p->azp = W8A8_AZP_TOKEN; break;
    case 26: p->lda = -1; break;
    case 27: p->lda = INT64_MAX; break;
    case 28: p->ldb = 17; break;
    case 29: p->ldc = INT64_MIN; break;
    case 30: p->ldc = INT64_MAX / 2; break;
    case 31: p->m = p->n = INT32_MAX; p->k = INT32_MAX - 15; p->out_type = W8A8_FP32; break;
    case 32:
        p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, 0};
        p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 32, 0, 0};
        break;
    case 33: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, INT64_MAX / 4}; break;
    case 34: p->out_type = W8A8_DTYPE_NONE; break;
    case 35: p->a_type = W8A8_DTYPE_NONE; break;
    case 36: p->n = 7; break; /* dense bf16 rows of 14 bytes */
    case 37: p->a_type = p->b_type = W8A8_INT8; p->azp = W8A8_AZP_TENSOR;
        p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, 0}; break;
    case 38: memset(p, 0xFF, sizeof *p); break;
    case 39: memset(p, 0, sizeof *p); break;
    default: return false;
    }
    return true;
}

START_TEST(matmul_bad_problems)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    static _Alignas(16) unsigned char host[4096];
    w8a8_tensors t = {host, host + 512, host + 1536, (float *)(host + 2048),
                      (float *)(host + 2064), NULL, NULL, NULL};
    w8a8_problem p;
    w8a8_explain explain;
    w8a8_bench_result bench;
    w8a8_tune_report report;
    double us;
    for (int i = 0; bad_problem(i, &p); i++) {
        w8a8_status want = CALL(ctx, w8a8_problem_validate(ctx, &p));
        ck_assert_msg(want == W8A8_INVALID || want == W8A8_UNSUPPORTED,
                      "bad problem %d: validate says %s", i, w8a8_status_string(want));
        EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &t, NULL), want);
        EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, &t, NULL), want);
        EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, &t), want);
        EXPECT(ctx, w8a8_dispatch_warm(ctx, &p), want);
        EXPECT(ctx, w8a8_dispatch_explain(ctx, &p, &explain), want);
        EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, NULL, &bench), want);
        EXPECT(ctx, w8a8_bench_host_overhead(ctx, &p, -5, &us, &us), want);
        w8a8_tune_options o = {.problems = &p, .problem_count = 1, .space = "\xff"};
        FAILS(ctx, w8a8_tune(ctx, &o, NULL, NULL, &report));
        w8a8_tune_report_free(&report);
        CALL(ctx, w8a8_cache_explain(ctx, &p, &explain));
    }
    /* A good problem: the CPU runs it, the GPU entry points have no device. */
    p = robust_good_problem();
    EXPECT_OK_CLEAN(ctx, w8a8_problem_validate(ctx, &p));
    EXPECT_OK_CLEAN(ctx, w8a8_scaled_mm_cpu(ctx, &p, &t));
    EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &t, NULL), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, &t, (void *)-1), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_dispatch_warm(ctx, &p), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, NULL, &bench), W8A8_NO_DEVICE);
    /* options are checked before the device: a bad batch is refused without one */
    w8a8_bench_options bad_batch = {.batch = -1};
    EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, &bad_batch, &bench), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "options.batch"));
    bad_batch.batch = 1001;
    EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, &bad_batch, &bench), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_host_overhead(ctx, &p, INT32_MAX, &us, NULL), W8A8_NO_DEVICE);
    EXPECT_OK_CLEAN(ctx, w8a8_dispatch_explain(ctx, &p, &explain));
    w8a8_tune_options o = {.problems = &p, .problem_count = 1};
    EXPECT(ctx, w8a8_tune(ctx, &o, NULL, NULL, &report), W8A8_NO_DEVICE);
    w8a8_tune_report_free(&report);
    for (int settle = -1; settle <= 1001; settle += 1002) { /* options.final_settle_ms: 0..1000 */
        o.final_settle_ms = settle;
        EXPECT(ctx, w8a8_tune(ctx, &o, NULL, NULL, &report), W8A8_INVALID);
        w8a8_tune_report_free(&report);
    }
    o.final_settle_ms = 0;
    for (int seed = -1; seed <= 2; seed += 3) { /* options.seed_space: 0 or 1 */
        o.seed_space = seed;
        EXPECT(ctx, w8a8_tune(ctx, &o, NULL, NULL, &report), W8A8_INVALID);
        w8a8_tune_report_free(&report);
    }
    o.seed_space = 0;
    /* Bad tensors for the good problem. */
    w8a8_tensors bad[] = {
        {NULL, host, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, NULL, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, NULL, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, host, NULL, (float *)host, NULL, NULL, NULL},
        {host, host, host, (float *)host, NULL, NULL, NULL, NULL},
        {host + 1, host, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host + 8, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, host + 4, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, host, (float *)(host + 1), (float *)host, NULL, NULL, NULL},
        {host, host, host, (float *)host, (float *)host, host, NULL, NULL},
        {host, host, host, (float *)host, (float *)host, NULL, (int32_t *)host, NULL},
        {host, host, host, (float *)host, (float *)host, NULL, NULL, (int32_t *)host},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &bad[i], NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, &bad[i], NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, &bad[i]), W8A8_INVALID);
    }
    EXPECT(ctx, w8a8_dispatch_set_tune_mode(ctx, (w8a8_tune_mode)77), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_set_tune_mode(ctx, (w8a8_tune_mode)-1), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_set_tune_mode(ctx, W8A8_TUNE_ONLINE), W8A8_OK);
    EXPECT(ctx, w8a8_dispatch_warm(ctx, &p), W8A8_NO_DEVICE);
    robust_env_end(&env);
}
END_TEST

/* ---- quantization and weights: bad input ----------------------------------------------------- */

START_TEST(quant_bad_problems)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    static _Alignas(16) unsigned char host[4096];
    w8a8_quant_tensors t = {host, host + 1024, (float *)(host + 2048), (int32_t *)(host + 3072),
                            NULL};
    const w8a8_quant_problem good = {.m = 4, .k = 32, .in_type = W8A8_BF16,
                                     .out_type = W8A8_INT8, .mode = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_quant_problem bad[] = {good, good, good, good, good, good, good, good, good, good, good,
                                good, good, good, good, good, good, good, good, good, good, good};
    int n = 0;
    bad[n++].m = -1;
    bad[n++].m = INT64_MAX;
    bad[n++].k = 17;
    bad[n++].k = INT64_MAX - 15;
    bad[n++].in_type = (w8a8_dtype)77;
    bad[n++].out_type = W8A8_BF16;
    bad[n++].mode = (w8a8_quant_mode)77;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].group_k = 24;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].group_k = INT32_MIN;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].scale_ld = INT64_MAX;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n].scale_k_major = 1, bad[n++].scale_ld = 1;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n].scale_k_major = 1, bad[n++].scale_ld = INT64_MAX / 3;
    bad[n++].m_pad = -1;
    bad[n].m = INT64_MAX / 16, bad[n++].m_pad = INT32_MAX;
    bad[n++].min_amax = NAN;
    bad[n++].min_amax = -INFINITY;
    bad[n++].ld_in = INT64_MAX;
    bad[n++].ld_in = 33;
    bad[n++].ld_out = INT64_MIN;
    bad[n].out_type = W8A8_E4M3, bad[n++].asymmetric = 1;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].asymmetric = 1;
    memset(&bad[n++], 0xFF, sizeof bad[0]);
    ck_assert_int_eq(n, (int)(sizeof bad / sizeof bad[0]));
    for (int i = 0; i < n; i++) {
        EXPECT(ctx, w8a8_quant_problem_validate(ctx, &bad[i]), W8A8_INVALID);
        ck_assert_int_eq(w8a8_quant_rows_out(&bad[i]), -1);
        EXPECT(ctx, w8a8_quantize(ctx, &bad[i], &t, NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_quantize_cpu(ctx, &bad[i], &t), W8A8_INVALID);
    }
    EXPECT_OK_CLEAN(ctx, w8a8_quant_problem_validate(ctx, &good));
    ck_assert_int_eq(w8a8_quant_rows_out(&good), 4);
    t.azp = NULL; /* symmetric */
    EXPECT(ctx, w8a8_quantize(ctx, &good, &t, NULL), W8A8_NO_DEVICE);
    EXPECT_OK_CLEAN(ctx, w8a8_quantize_cpu(ctx, &good, &t));
    w8a8_quant_tensors bad_t[] = {
        {NULL, host, (float *)host, NULL, NULL},
        {host, NULL, (float *)host, NULL, NULL},
        {host, host + 1024, NULL, NULL, NULL},
        {host + 2, host + 1024, (float *)(host + 2048), NULL, NULL},
        {host, host + 1025, (float *)(host + 2048), NULL, NULL},
    };
    for (size_t i = 0; i < sizeof bad_t / sizeof bad_t[0]; i++) {
        EXPECT(ctx, w8a8_quantize(ctx, &good, &bad_t[i], NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_quantize_cpu(ctx, &good, &bad_t[i]), W8A8_INVALID);
    }
    w8a8_quant_problem asym = good;
    asym.asymmetric = 1;
    w8a8_quant_tensors no_azp = {host, host + 1024, (float *)(host + 2048), NULL, NULL};
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &asym, &no_azp), W8A8_INVALID);
    w8a8_quant_tensors ub_asym = {host, host + 1024, (float *)(host + 2048),
                                  (int32_t *)(host + 3072), (float *)host};
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &asym, &ub_asym), W8A8_INVALID);
    /* Linear problems. */
    const w8a8_linear_problem lgood = {.m = 4, .n = 16, .k = 32, .x_type = W8A8_BF16,
                                       .w_type = W8A8_E4M3, .out_type = W8A8_BF16,
                                       .x_quant = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_linear_problem lbad[] = {lgood, lgood, lgood, lgood, lgood, lgood, lgood, lgood, lgood,
                                  lgood, lgood};
    n = 0;
    lbad[n++].m = INT64_MAX;
    lbad[n].x_quant = W8A8_QUANT_DYNAMIC_GROUP, lbad[n].x_scale_k_major = 1, lbad[n++].m = INT64_MAX - 1;
    lbad[n++].n = -1;
    lbad[n++].k = 17;
    lbad[n++].w_type = (w8a8_dtype)77;
    lbad[n++].x_type = W8A8_E4M3;
    lbad[n++].x_quant = (w8a8_quant_mode)-1;
    lbad[n].x_quant = W8A8_QUANT_DYNAMIC_GROUP, lbad[n++].x_asymmetric = 1;
    lbad[n++].x_min_amax = NAN;
    lbad[n++].ld_x = INT64_MAX;
    memset(&lbad[n++], 0xFF, sizeof lbad[0]);
    ck_assert_int_eq(n, (int)(sizeof lbad / sizeof lbad[0]));
    w8a8_linear_tensors lt = {fake_device, fake_device, fake_device, (float *)fake_device,
                              NULL, NULL, NULL, NULL, NULL};
    w8a8_quant_problem qp;
    w8a8_problem mm;
    size_t bytes = 0;
    for (int i = 0; i < n; i++) {
        EXPECT(ctx, w8a8_linear_problems(ctx, &lbad[i], &qp, &mm), W8A8_INVALID);
        EXPECT(ctx, w8a8_linear_workspace_size(ctx, &lbad[i], &bytes), W8A8_INVALID);
        EXPECT(ctx, w8a8_linear(ctx, &lbad[i], &lt, fake_device, sizeof fake_device, NULL),
               W8A8_INVALID);
    }
    EXPECT_OK_CLEAN(ctx, w8a8_linear_workspace_size(ctx, &lgood, &bytes));
    ck_assert_uint_le(bytes, sizeof fake_device);
    EXPECT(ctx, w8a8_linear(ctx, &lgood, &lt, fake_device, bytes, NULL), W8A8_NO_DEVICE);
    robust_env_end(&env);
}
END_TEST

START_TEST(weight_bad_input)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    static _Alignas(16) unsigned char w_in[256], w_out[256];
    float scales[64] = {1}, scale = 0;
    for (int i = 0; i < 64; i++)
        scales[i] = 1.0f + (float)i;
    int64_t rows[65];
    for (int i = 0; i < 65; i++)
        rows[i] = 1;
    static const int32_t shard_counts[] = {-1, 0, 65, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < sizeof shard_counts / sizeof shard_counts[0]; i++) {
        int32_t n = shard_counts[i];
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, n, w_in, w_out,
                                                     scales, &scale), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_E4M3, 16, rows, n, w_in, w_out,
                                                 scales, &scale, NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, n, scales, scales), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, n, scales, scales, NULL), W8A8_INVALID);
    }
    static const int64_t bad_rows[][3] = {{1, 0, 1}, {1, -1, 1}, {INT64_MIN, 1, 1},
                                          {INT64_MAX / 2, INT64_MAX / 2, INT64_MAX / 2},
                                          {INT64_MAX, 1, 1}};
    for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_INT8, 16, bad_rows[i], 3, w_in,
                                                     w_out, scales, &scale), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_INT8, 16, bad_rows[i], 3, w_in, w_out,
                                                 scales, &scale, NULL), W8A8_INVALID);
        /* Overflowing totals are refused as well as non-positive counts. */
        EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, bad_rows[i], 3, scales, scales),
               W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales(ctx, bad_rows[i], 3, scales, scales, NULL),
               W8A8_INVALID);
    }
    int64_t big[2] = {1 << 20, 1 << 20};
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, INT64_MAX / 32 * 16, big, 2,
                                                 w_in, w_out, scales, &scale), W8A8_INVALID);
    static const int64_t bad_k[] = {-16, 0, 8, 17, INT64_MIN, INT64_MAX};
    for (size_t i = 0; i < sizeof bad_k / sizeof bad_k[0]; i++)
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, bad_k[i], rows, 2, w_in,
                                                     w_out, scales, &scale), W8A8_INVALID);
    static const int bad_types[] = {-1, 0, W8A8_E5M2, W8A8_BF16, W8A8_E4M3FNUZ, 77};
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++)
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, (w8a8_dtype)bad_types[i], 16, rows, 2,
                                                     w_in, w_out, scales, &scale), W8A8_INVALID);
    /* Misaligned and overlapping buffers. */
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, w_in + 1, w_out,
                                                 scales, &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, w_in, w_in + 16,
                                                 scales, &scale), W8A8_INVALID);
    EXPECT_OK_CLEAN(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, w_in,
                                                          w_in, scales, &scale));
    EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_E4M3, 16, rows, 2, w_in, w_out, scales,
                                             &scale, NULL), W8A8_NO_DEVICE);
    /* e4m3fn → fnuz. */
    static const int64_t bad_sizes[][2] = {{-1, 0}, {0, -1}, {INT64_MIN, 1}, {16, INT64_MIN}};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, w_in, bad_sizes[i][0], scales,
                                                   bad_sizes[i][1]), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, w_in, bad_sizes[i][0], scales,
                                               bad_sizes[i][1], NULL), W8A8_INVALID);
    }
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, w_in + 3, 16, scales, 1, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, w_in, INT64_MAX, scales, INT64_MAX, NULL),
           W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, 64, scales, scales, NULL), W8A8_NO_DEVICE);
    robust_env_end(&env);
}
END_TEST

int main(void)
{
    robust_fill_long_text(); /* before the forks */
    Suite *s = suite_create("bad_input");
    TCase *tc = tcase_create("bad_input");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, matmul_bad_problems);
    tcase_add_test(tc, quant_bad_problems);
    tcase_add_test(tc, weight_bad_input);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
