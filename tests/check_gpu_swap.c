/* Swap-AB in the Hopper GEMM (sm90_gemm with swap=1, space scripts/sm90_swap.lua: the weights
 * on wgmma's M side, the tokens on its N, the transposed tile stored directly) against the
 * reference kernel, on random data (never zero), outputs poisoned with 0xFF before every run
 * and the padding between n and ldc checked untouched afterwards:
 *  - every trait combination sm90_gemm supports (FP8 mixes and INT8 × A scale × B scale × out
 *    dtype × bias × zero point; block scales and promoted FP8 sums included) on random
 *    shapes, cycling through the configs;
 *  - every config on odd shapes: M = 1, 3, 7, 17, 31, 33, 64 (token tiles of 8…64 with and
 *    without a tail); N = 1, 17, 129, 517, 4100 (weight tiles of 64…256 rows with a tail);
 *    K that neither the 128-byte K blocks nor the split divides (16, 48, 144, 1040, 4112),
 *    nor the 256- and 512-byte stages of block_k (boxes wholly past K zero-filled);
 *    FP8 (e4m3, e5m2, e5m2 × e4m3) with per-row / per-tensor mixes and INT8 with per-token
 *    and per-tensor zero points, bias, every out dtype;
 *  - block scales (A 1×128, B 128×128, promoted every K block) on odd shapes, row-major and
 *    K-major scale matrices with padded ld, every out dtype, 256-row tiles over two weight
 *    blocks;
 *  - two runs of each split config give the same bytes (the cluster sums in rank order), per-row
 *    and block-scaled;
 *  - overlap (promoted sums: each K block promoted while the next one's wgmmas run, groups of
 *    2, 4, 8 K blocks, the last padded with zero blocks) with block scales and promoted FP8
 *    sums on odd shapes: one consumer, two cooperative, ping-pong, split-K (slices of whole
 *    groups; two runs bitwise equal), a cluster, 256-row tiles;
 *  - configs the template cannot build (swap with a staged epilogue, with stagger, overlap
 *    without promoted sums, block scales with a token tile over 64, swap outside 0/1) are
 *    refused with W8A8_INVALID before NVRTC;
 *  - a plan's grid counts tiles over N × M.
 * The dispatched swap row captured in a CUDA graph is check_gpu_dispatch's. FP8 wgmma
 * accumulates with a reduced-precision adder (test_accumulation_bound). Needs compute
 * capability 9.0: skipped (77) otherwise. CK_FORK=no. */
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "problem_gen.h"
#include "testutil.h"

#define SEED 20261126u

static w8a8_context *ctx;

/* Weight tiles of 64 (one consumer), 128 (two cooperative, or ping-pong of 64-row tiles) and
 * 256 rows; token tiles of 8…64 (INT8-legal N); split 1, 2 and 4 (K slices that do not divide
 * evenly, and empty ones at K = 16); shapes compiled in; 2-CTA clusters sharing the tokens;
 * the weights loaded evict-first (evict=1), in a cluster too. */
static const char *const configs[] = {
    "block_m=64,block_n=8,stages=8,consumers=1,split=1,swap=1,evict=1",
    "block_m=128,block_n=16,stages=6,consumers=2,split=2,swap=1,evict=1",
    "block_m=64,block_n=32,stages=10,consumers=1,split=4,swap=1",
    "block_m=256,block_n=24,stages=4,consumers=2,split=1,swap=1",
    "block_m=64,block_n=48,stages=6,consumers=2,pingpong=1,swap=1,evict=1",
    "block_m=128,block_n=64,stages=5,consumers=2,split=4,specialize=1,swap=1",
    "block_m=128,block_n=16,stages=6,consumers=1,split=2,specialize=1,swap=1",
    "block_m=128,block_n=32,stages=4,consumers=2,cluster=2,swap=1",
    /* a cluster with the weights evict-first (swap multicasts only the tokens) */
    "block_m=64,block_n=16,stages=8,consumers=1,cluster=2,swap=1,evict=1",
};
#define CONFIG_COUNT ((int)(sizeof configs / sizeof configs[0]))

/* Stages of 256 and 512 K bytes (block_k: 2 or 4 boxes side by side; fast accumulation only):
 * one and two consumers, ping-pong, split 2 and 4 (K slices of whole stages, empty ones at
 * small K), N and K compiled in, a 2-CTA cluster multicasting each box's half of the tokens. */
static const char *const wide_configs[] = {
    "block_m=64,block_n=8,block_k=512,stages=4,consumers=1,split=1,swap=1,evict=1",
    "block_m=128,block_n=16,block_k=256,stages=6,consumers=2,split=2,swap=1",
    "block_m=64,block_n=32,block_k=256,stages=6,consumers=2,pingpong=1,swap=1",
    "block_m=128,block_n=64,block_k=512,stages=2,consumers=2,split=4,specialize=1,swap=1",
    "block_m=128,block_n=32,block_k=256,stages=4,consumers=2,cluster=2,swap=1",
    "block_m=256,block_n=24,block_k=256,stages=3,consumers=2,swap=1",
};
#define WIDE_COUNT ((int)(sizeof wide_configs / sizeof wide_configs[0]))

static bool check_case(const pgen_case *c, const char *config)
{
    return test_family_matches_reference(ctx, &gemm_family_sm90, c, config);
}

/* The run-th supported trait combination's config: the list in turn. */
static void config_of(int run, const w8a8_problem *p, char *out, size_t size)
{
    (void)p;
    snprintf(out, size, "%s", configs[run % CONFIG_COUNT]);
}

START_TEST(every_supported_trait_combination)
{
    test_family_each_trait(ctx, &gemm_family_sm90, SEED, config_of, "swap", 50);
}
END_TEST

START_TEST(every_config_on_odd_shapes)
{
    static const int64_t ms[] = {1, 3, 7, 17, 31, 33, 64};
    static const int64_t nks[][2] = {{1, 16}, {17, 48}, {129, 144}, {517, 1040}, {4100, 4112}};
    static const w8a8_dtype outs[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 1);
    int runs = 0, failures = 0;
    for (int int8 = 0; int8 < 2; int8++)
        for (int mi = 0; mi < (int)(sizeof ms / sizeof ms[0]); mi++)
            for (int s = 0; s < (int)(sizeof nks / sizeof nks[0]); s++) {
                int v = mi + s;
                w8a8_problem p;
                w8a8_problem_init(&p, ms[mi], nks[s][0], nks[s][1],
                                  int8 ? W8A8_INT8 : (v % 4 == 3 ? W8A8_E5M2 : W8A8_E4M3),
                                  outs[(v + int8) % 3]);
                if (!int8 && v % 8 == 3)
                    p.b_type = W8A8_E4M3; /* e5m2 × e4m3: wgmma's operand types exchange */
                p.a_scale.kind = v % 3 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
                p.b_scale.kind = v % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
                p.bias_type = v % 3 == 0 ? W8A8_DTYPE_NONE : v % 3 == 1 ? W8A8_FP32 : p.out_type;
                p.azp = int8 ? (v % 2 ? W8A8_AZP_TOKEN : W8A8_AZP_TENSOR) : W8A8_AZP_NONE;
                p.ldc = test_padded_ldc(nks[s][0]);
                failures += test_family_case_configs(ctx, &gemm_family_sm90, &rng, &p,
                                                     configs, CONFIG_COUNT, &runs);
                failures += test_family_case_configs(ctx, &gemm_family_sm90, &rng, &p,
                                                     wide_configs, WIDE_COUNT, &runs);
            }
    printf("swap: %d config × shape runs, %d failed\n", runs, failures);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST

/* Promoted FP8 sums (accum promoted) on each shape with every config: per-row scales on A
 * (row_a) or B, the second shape's out fp32 (bf16 otherwise), bias of bias_type on shape
 * bias_shape; then the bitwise configs run twice on the last shape. */
static void promoted_runs(const int64_t (*shapes)[3], int shape_count, uint64_t seed, bool row_a,
                          int bias_shape, w8a8_dtype bias_type, const char *const *cfgs,
                          int cfg_count, const char *const *bitwise, int bitwise_count,
                          const char *label)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, seed);
    int runs = 0, failures = 0;
    for (int s = 0; s < shape_count; s++) {
        w8a8_problem p;
        w8a8_problem_init(&p, shapes[s][0], shapes[s][1], shapes[s][2], W8A8_E4M3,
                          s == 1 ? W8A8_FP32 : W8A8_BF16);
        p.accum = W8A8_ACCUM_PROMOTED;
        (row_a ? &p.a_scale : &p.b_scale)->kind = W8A8_SCALE_ROW;
        p.bias_type = s == bias_shape ? bias_type : W8A8_DTYPE_NONE;
        p.ldc = test_padded_ldc(shapes[s][1]);
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
        for (int ci = 0; ci < cfg_count; ci++) {
            failures += !check_case(&c, cfgs[ci]);
            runs++;
        }
        if (bitwise_count && s == shape_count - 1)
            test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm90, &c, bitwise, bitwise_count);
        pgen_case_destroy(&c);
    }
    printf("swap: %d %s config × shape runs, %d failed\n", runs, label, failures);
    ck_assert_msg(failures == 0, "%d of %d %s runs differ", failures, runs, label);
}

/* Promoted FP8 sums (accum promoted: the temporary set added every K block) with swap. */
START_TEST(promoted_accumulation_on_odd_shapes)
{
    static const int64_t shapes[][3] = {{1, 517, 4112}, {17, 129, 1040}, {33, 4100, 144}};
    promoted_runs(shapes, 3, SEED + 2, true, 2, W8A8_BF16, configs, CONFIG_COUNT, NULL, 0,
                  "promoted");
}
END_TEST

/* Block scales (A 1×128 per token, B 128×128 per weight block; promoted every K block): odd
 * M, N not a multiple of the tile nor of 128, K tails, row-major and K-major scale matrices
 * with padded ld, every out dtype, with and without bias, e5m2 × e4m3; 256-row tiles touch two
 * weight blocks. */
START_TEST(block_scales_on_odd_shapes)
{
    static const int64_t shapes[][3] = {{1, 200, 2064},   {7, 517, 400},  {17, 129, 16},
                                        {31, 264, 1024},  {33, 1032, 4112}, {2, 7168, 512},
                                        {64, 4100, 1040}};
    test_family_block_shapes(ctx, &gemm_family_sm90, SEED + 4, shapes,
                             (int)(sizeof shapes / sizeof shapes[0]), configs,
                             CONFIG_COUNT, "swap");
}
END_TEST

/* overlap with swap: block scales and promoted FP8 sums (fast sums refuse it: below) */
static const char *const overlap_configs[] = {
    "block_m=64,block_n=16,stages=8,consumers=1,overlap=1,swap=1",
    "block_m=128,block_n=32,stages=6,consumers=2,overlap=2,swap=1,evict=1",
    "block_m=64,block_n=64,stages=6,consumers=2,pingpong=1,overlap=3,swap=1",
    "block_m=128,block_n=16,stages=6,consumers=1,split=2,overlap=1,swap=1",
    "block_m=64,block_n=8,stages=10,consumers=1,split=4,overlap=2,specialize=1,swap=1",
    "block_m=256,block_n=24,stages=4,consumers=2,overlap=1,swap=1",
    "block_m=128,block_n=32,stages=4,consumers=2,cluster=2,overlap=2,swap=1",
};
#define OVERLAP_COUNT ((int)(sizeof overlap_configs / sizeof overlap_configs[0]))

START_TEST(overlap_on_odd_shapes)
{
    /* K blocks 17, 4, 1, 33, 9 and 8: groups padded with zero blocks, slices empty or short */
    static const int64_t block_shapes[][3] = {
        {1, 200, 2064}, {7, 517, 400}, {17, 129, 16}, {33, 1032, 4112}, {64, 4100, 1040},
        {5, 7168, 1024}};
    test_family_block_shapes(ctx, &gemm_family_sm90, SEED + 5, block_shapes,
                             (int)(sizeof block_shapes / sizeof block_shapes[0]),
                             overlap_configs, OVERLAP_COUNT, "swap overlap");
    static const int64_t shapes[][3] = {{3, 517, 4112}, {31, 129, 1040}};
    /* the split ones run twice too */
    promoted_runs(shapes, 2, SEED + 6, false, 0, W8A8_FP32, overlap_configs, OVERLAP_COUNT,
                  overlap_configs + 3, 2, "promoted overlap");
}
END_TEST

START_TEST(split_runs_are_bitwise_equal)
{
    static const char *const split[] = {
        "block_m=128,block_n=16,stages=6,consumers=2,split=2,swap=1",
        "block_m=64,block_n=32,stages=10,consumers=1,split=4,swap=1",
        "block_m=128,block_n=64,stages=5,consumers=2,split=4,specialize=1,swap=1",
    };
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 3);
    for (int block = 0; block < 2; block++) {
        w8a8_problem p;
        w8a8_problem_init(&p, 29, 1000, 8208, W8A8_E4M3, W8A8_FP32);
        if (block) {
            pgen_block_scales(&p, 1, 0, 3);
        } else {
            p.a_scale.kind = W8A8_SCALE_ROW;
            p.b_scale.kind = W8A8_SCALE_ROW;
        }
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
        test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm90, &c, split,
                                           (int)(sizeof split / sizeof split[0]));
        /* 256- and 512-byte stages (fast accumulation only): the split ones */
        const char *const wide_split[] = {wide_configs[1], wide_configs[3]};
        if (!block)
            test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm90, &c, wide_split, 2);
        pgen_case_destroy(&c);
    }
}
END_TEST

START_TEST(invalid_configs_are_refused)
{
    static const char *const bad[] = {
        "block_m=64,block_n=16,consumers=1,swap=2",
        "block_m=64,block_n=16,consumers=1,epilogue=1,swap=1", /* staged stores: not swapped */
        "block_m=128,block_n=64,consumers=2,epilogue=2,swap=1",
        "block_m=64,block_n=16,block_k=384,consumers=1,swap=1", /* 128, 256 or 512 */
        "block_m=64,block_n=16,block_k=64,consumers=1,swap=1",
    };
    w8a8_problem p;
    w8a8_problem_init(&p, 16, 256, 512, W8A8_E4M3, W8A8_BF16);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gemm_plan plan;
        uint64_t compiles = atomic_load(&ctx->nvrtc_compiles);
        w8a8_status st = gemm_family_sm90.plan(ctx, &p, bad[i], &plan);
        ck_assert_msg(st == W8A8_INVALID, "'%s' gave %s", bad[i], w8a8_status_string(st));
        ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "sm90_gemm config"));
        ck_assert_uint_eq(atomic_load(&ctx->nvrtc_compiles), compiles);
    }
    /* promoted sums go by 128 K bytes: block_k 128 only */
    p.accum = W8A8_ACCUM_PROMOTED;
    {
        gemm_plan plan;
        w8a8_status st = gemm_family_sm90.plan(
            ctx, &p, "block_m=64,block_n=16,block_k=256,consumers=1,swap=1", &plan);
        ck_assert_msg(st == W8A8_INVALID, "promoted block_k=256 gave %s", w8a8_status_string(st));
        ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "block_k=256"));
    }
    p.accum = W8A8_ACCUM_FAST;
    /* overlap: promoted sums only */
    {
        gemm_plan plan;
        w8a8_status st = gemm_family_sm90.plan(
            ctx, &p, "block_m=64,block_n=16,consumers=1,overlap=1,swap=1", &plan);
        ck_assert_msg(st == W8A8_INVALID, "fast sums with overlap=1 gave %s",
                      w8a8_status_string(st));
        ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "overlap=1"));
    }
    /* block scales: token tiles of at most 64 (one scale a loader lane), no stagger */
    pgen_block_scales(&p, 0, 0, 0);
    ck_assert(gemm_family_sm90.supports(ctx, &p));
    static const char *const bad_block[] = {
        "block_m=64,block_n=80,consumers=1,swap=1",
        "block_m=128,block_n=64,consumers=2,stagger=1,swap=1",
    };
    for (size_t i = 0; i < sizeof bad_block / sizeof bad_block[0]; i++) {
        gemm_plan plan;
        w8a8_status st = gemm_family_sm90.plan(ctx, &p, bad_block[i], &plan);
        ck_assert_msg(st == W8A8_INVALID, "'%s' with block scales gave %s", bad_block[i],
                      w8a8_status_string(st));
        ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "swap=1"));
    }
    gemm_plan plan; /* block scales go by 128 K bytes too */
    ck_assert(gemm_family_sm90.plan(ctx, &p, "block_m=64,block_n=16,block_k=512,consumers=1,swap=1",
                                    &plan) == W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "block_k=512"));
}
END_TEST

/* The grid counts tiles over N (block_m rows) × M (block_n tokens), times the split. */
START_TEST(grid_counts_swapped_tiles)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 20, 1000, 4096, W8A8_E4M3, W8A8_BF16);
    gemm_plan plan;
    /* 1000 / 128 → 8 tile rows, 20 / 16 → 2 tile columns, split 2: 32 CTAs */
    ck_assert_msg(gemm_family_sm90.plan(ctx, &p, configs[1], &plan) == W8A8_OK, "%s",
                  w8a8_errmsg(ctx));
    ck_assert_uint_eq(plan.launch.grid[0], 32u);
    ck_assert_uint_eq(plan.launch.cluster[0], 2u);
    /* 1000 / 64 → 16 tile rows, 20 / 8 → 3 tile columns: 48 CTAs */
    ck_assert(gemm_family_sm90.plan(ctx, &p, configs[0], &plan) == W8A8_OK);
    ck_assert_uint_eq(plan.launch.grid[0], 48u);
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("gpu_swap");
    w8a8_status st = w8a8_context_open(&ctx, NULL);
    w8a8_device_info info;
    if (st == W8A8_OK)
        st = w8a8_context_device_info(ctx, &info);
    if (st != W8A8_OK) {
        printf("gpu_swap: context: %s: %s\n", w8a8_status_string(st), w8a8_errmsg(ctx));
        w8a8_context_close(ctx);
        return 1;
    }
    if (info.cc_major != 9 || info.cc_minor != 0) {
        printf("gpu_swap: skipped: %s is compute capability %d.%d, sm_90a needs 9.0\n",
               info.name, info.cc_major, info.cc_minor);
        w8a8_context_close(ctx);
        return TEST_SKIP_CODE;
    }
    Suite *s = suite_create("gpu_swap");
    TCase *tc = tcase_create("swap");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, invalid_configs_are_refused);
    tcase_add_test(tc, grid_counts_swapped_tiles);
    tcase_add_test(tc, overlap_on_odd_shapes);
    tcase_add_test(tc, every_supported_trait_combination);
    tcase_add_test(tc, every_config_on_odd_shapes);
    tcase_add_test(tc, promoted_accumulation_on_odd_shapes);
    tcase_add_test(tc, block_scales_on_odd_shapes);
    tcase_add_test(tc, split_runs_are_bitwise_equal);
    suite_add_tcase(s, tc);
    int status = test_run_suite(s);
    w8a8_context_close(ctx);
    return status;
}
