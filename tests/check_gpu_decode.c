/* The decode family (src/sm80_decode.c, templates/sm80_decode.cuh) against the reference
 * kernel, on random data (never zero), outputs poisoned with 0xFF before every run and the
 * padding between n and ldc checked untouched afterwards:
 *  - every trait combination the family supports (FP8 mixes and INT8 × A scale × B scale ×
 *    out dtype × bias × zero point) on random shapes, cycling through the configs;
 *  - every config on odd shapes: M = 1, 3, 7, 17, 31, 33; N = 1, 17, 129, 517 (not a
 *    multiple of a tile); K that the warps' 128-byte split does not divide (16, 48, 144,
 *    1040, 4112), FP8 per-row and INT8 with per-token zero points, bias; the span configs
 *    (a weight row over 2…8 K segments of a tile, 128·span-byte chunks) among them;
 *  - block scales (A 1×128, B 128×128; promoted per chunk) on odd shapes, row-major and
 *    K-major scale matrices with padded ld, every out dtype;
 *  - FP8 with the integer unpacks of sm_80/86 (gemm_force_soft_fp8), every config on odd
 *    shapes and block scales;
 *  - two runs of the same problem are bitwise equal (the split-K sum has a fixed order);
 *  - a dispatched call (empty cache: the family's default for a decode bucket) captured in a
 *    CUDA graph and replayed equals the reference;
 *  - configs the template cannot build are refused with W8A8_INVALID before NVRTC.
 * FP8 mma.sync accumulates in fp32 with a reduced-precision adder, so FP8 problems get 5e-3
 * relative on top of the out dtype's bound (1e-3 with block scales); INT8 is exact.
 * Needs compute capability 8.0: skipped (77) without a GPU. CK_FORK=no. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "problem_gen.h"
#include "testutil.h"

#define SEED 20261123u

static w8a8_context *ctx;

#include "decode_configs.h"

static void setup(void)
{
    ctx = test_ctx_open();
    ck_assert_ptr_nonnull(ctx);
}

static void teardown(void)
{
    w8a8_context_close(ctx);
    ctx = NULL;
}

/* The run-th supported trait combination's config: the list in turn. */
static void config_of(int run, const w8a8_problem *p, char *out, size_t size)
{
    bool block = p->a_scale.kind == W8A8_SCALE_BLOCK;
    int count = block ? DECODE_SPAN1_COUNT : DECODE_CONFIG_COUNT;
    snprintf(out, size, "%s", decode_configs[run % count]);
}

START_TEST(every_supported_trait_combination)
{
    test_family_each_trait(ctx, &gemm_family_sm80_decode, SEED, config_of, "decode", 100);
}
END_TEST

START_TEST(every_config_on_odd_shapes)
{
    static const int64_t ms[] = {1, 3, 7, 17, 31, 33};
    static const int64_t nks[][2] = {{1, 16}, {17, 48}, {129, 144}, {517, 1040}, {200, 4112}};
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 1);
    int runs = 0, failures = 0;
    for (int int8 = 0; int8 < 2; int8++)
        for (int mi = 0; mi < (int)(sizeof ms / sizeof ms[0]); mi++)
            for (int s = 0; s < (int)(sizeof nks / sizeof nks[0]); s++) {
                w8a8_problem p;
                w8a8_problem_init(&p, ms[mi], nks[s][0], nks[s][1], int8 ? W8A8_INT8 : W8A8_E4M3,
                                  int8 ? W8A8_FP16 : W8A8_BF16);
                p.a_scale.kind = W8A8_SCALE_ROW;
                p.b_scale.kind = (mi + s) % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
                p.bias_type = (mi + s) % 3 == 0 ? W8A8_DTYPE_NONE : W8A8_FP32;
                p.azp = int8 ? ((mi + s) % 2 ? W8A8_AZP_TOKEN : W8A8_AZP_TENSOR) : W8A8_AZP_NONE;
                p.ldc = test_padded_ldc(nks[s][0]);
                if (!int8 && ctx->cc_major * 10 + ctx->cc_minor < 80)
                    continue;
                failures += test_family_case_configs(ctx, &gemm_family_sm80_decode, &rng, &p,
                                                     decode_configs, DECODE_CONFIG_COUNT, &runs);
            }
    printf("decode: %d config × shape runs, %d failed\n", runs, failures);
    ck_assert_int_gt(runs, 0);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST


START_TEST(block_scales_on_odd_shapes)
{
    static const int64_t shapes[][3] = {{1, 200, 2064}, {7, 517, 400}, {17, 129, 16},
                                        {31, 264, 1024}, {33, 1032, 4112}, {2, 7168, 512}};
    if (ctx->cc_major * 10 + ctx->cc_minor < 80)
        return; /* FP8 only */
    test_family_block_shapes(ctx, &gemm_family_sm80_decode, SEED + 2, shapes,
                             (int)(sizeof shapes / sizeof shapes[0]), decode_configs,
                             DECODE_SPAN1_COUNT, "decode");
}
END_TEST

/* FP8 with the integer unpacks of sm_80/86 (gemm_force_soft_fp8: SOFT_FP8=1 in the defines,
 * f16 mmas for every config): every config on odd shapes, both FP8 mixes, per-tensor and
 * per-row scales, every out dtype; then block scales. */
START_TEST(fp8_integer_unpacks_on_odd_shapes)
{
    static const int64_t ms[] = {1, 7, 31};
    static const int64_t nks[][2] = {{17, 48}, {517, 1040}, {200, 4112}};
    static const int64_t block_shapes[][3] = {{7, 517, 400}, {31, 264, 1024}, {2, 7168, 512}};
    static const w8a8_dtype outs[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};
    gemm_force_soft_fp8(true);
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 5);
    int runs = 0, failures = 0;
    for (int mi = 0; mi < 3; mi++)
        for (int s = 0; s < 3; s++) {
            int v = mi + s;
            w8a8_problem p;
            w8a8_problem_init(&p, ms[mi], nks[s][0], nks[s][1], v % 2 ? W8A8_E5M2 : W8A8_E4M3,
                              outs[v % 3]);
            p.b_type = v % 3 == 1 ? W8A8_E5M2 : W8A8_E4M3;
            p.a_scale.kind = v % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
            p.b_scale.kind = mi % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
            p.bias_type = v % 3 == 0 ? W8A8_DTYPE_NONE : W8A8_FP32;
            p.ldc = test_padded_ldc(nks[s][0]);
            failures += test_family_case_configs(ctx, &gemm_family_sm80_decode, &rng, &p,
                                                 decode_configs, DECODE_CONFIG_COUNT, &runs);
        }
    printf("decode: %d FP8 config × shape runs with integer unpacks, %d failed\n", runs,
           failures);
    test_family_block_shapes(ctx, &gemm_family_sm80_decode, SEED + 6, block_shapes, 3,
                             decode_configs, DECODE_SPAN1_COUNT, "decode, integer unpacks");
    gemm_force_soft_fp8(false);
    ck_assert_int_gt(runs, 0);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST

/* The split-K sum runs in warp order: the same inputs give the same bits, on every config. */
START_TEST(two_runs_are_bitwise_equal)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 3);
    w8a8_problem p;
    bool fp8 = ctx->cc_major * 10 + ctx->cc_minor >= 80;
    w8a8_problem_init(&p, 5, 1000, 8208, fp8 ? W8A8_E4M3 : W8A8_INT8, W8A8_FP32);
    p.a_scale.kind = W8A8_SCALE_ROW;
    p.b_scale.kind = W8A8_SCALE_ROW;
    pgen_case c;
    ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
    test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm80_decode, &c, decode_configs,
                                       DECODE_CONFIG_COUNT);
    pgen_case_destroy(&c);
}
END_TEST

/* Through the public entry point with an empty cache: a decode bucket gets this family's
 * default (checked with explain), captured in a graph, replayed, equal to the reference. */
START_TEST(dispatched_call_in_a_cuda_graph)
{
    char dir[512];
    w8a8_context *fresh = test_ctx_open_empty_cache(dir, sizeof dir);
    ck_assert_ptr_nonnull(fresh);
    w8a8_context *saved = ctx;
    ctx = fresh;
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 4);
    w8a8_problem p;
    bool fp8 = ctx->cc_major * 10 + ctx->cc_minor >= 80;
    w8a8_problem_init(&p, 3, 2048, 4096, fp8 ? W8A8_E4M3 : W8A8_INT8, W8A8_BF16);
    p.a_scale.kind = W8A8_SCALE_ROW;
    p.bias_type = W8A8_BF16;
    pgen_case c;
    ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &c.problem, &e), W8A8_OK);
    ck_assert_str_eq(e.family, "sm80_decode");
    ck_assert_int_eq(w8a8_dispatch_warm(ctx, &c.problem), W8A8_OK);
    test_dispatched_in_a_graph(ctx, &c);
    pgen_case_destroy(&c);
    w8a8_context_close(fresh);
    ctx = saved;
}
END_TEST

START_TEST(invalid_configs_are_refused)
{
    static const char *const bad[] = {
        "warps=3",          "row_tiles=3",          "token_tiles=8",
        "unroll=8",         "warps=8,bogus=1",      "warps=x",
        "warps=16,row_tiles=4,token_tiles=4,unroll=4", /* load registers past the cap */
        "span=3",           "span=16",
    };
    w8a8_problem p;
    w8a8_problem_init(&p, 4, 256, 512, W8A8_INT8, W8A8_BF16);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gemm_plan plan;
        uint64_t compiles = atomic_load(&ctx->nvrtc_compiles);
        w8a8_status st = gemm_family_sm80_decode.plan(ctx, &p, bad[i], &plan);
        ck_assert_msg(st == W8A8_INVALID, "'%s' gave %s", bad[i], w8a8_status_string(st));
        ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "sm80_decode config"));
        ck_assert_uint_eq(atomic_load(&ctx->nvrtc_compiles), compiles);
    }
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("gpu_decode");
    w8a8_context *probe = test_ctx_open();
    bool old_arch = probe->cc_major < 8;
    if (old_arch)
        printf("gpu_decode: skipped: compute capability %d.%d, the family needs 8.0\n",
               probe->cc_major, probe->cc_minor);
    w8a8_context_close(probe);
    if (old_arch)
        return TEST_SKIP_CODE;
    Suite *s = suite_create("gpu_decode");
    TCase *tc = tcase_create("decode");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, invalid_configs_are_refused);
    tcase_add_test(tc, every_supported_trait_combination);
    tcase_add_test(tc, every_config_on_odd_shapes);
    tcase_add_test(tc, block_scales_on_odd_shapes);
    tcase_add_test(tc, fp8_integer_unpacks_on_odd_shapes);
    tcase_add_test(tc, two_runs_are_bitwise_equal);
    tcase_add_test(tc, dispatched_call_in_a_cuda_graph);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
