/* The portable tensor-core family (src/sm80_gemm.c, templates/sm80_gemm.cuh) against the
 * reference kernel, on random data (never zero), outputs poisoned with 0xFF before every run
 * and the padding between n and ldc checked untouched afterwards. On Hopper the family runs
 * compiled for plain sm_90 (the context's arch), the same mma.sync code as on sm_80/86/89 (FP8
 * as f16 mmas, as on sm_80/86, whose integer unpacks a test forces here).
 *  - every trait combination the family supports (FP8 mixes and INT8 × A scale × B scale ×
 *    out dtype × bias × zero point) on random shapes, cycling through the configs;
 *  - every config on odd shapes: M = 1, 7, 33, 129, 257; N = 16, 17, 129, 517 (not a
 *    multiple of a tile) and 256; K = 16, 48, 144, 1040, 4112 (not a multiple of the
 *    64/128-byte K tile, and rings that wrap many times) and 1024, 2048 (whole K tiles: the
 *    CTAs inside M and N take the unpredicated copies, the edge ones not), FP8 per-row and
 *    INT8 with per-token / per-tensor zero points, bias, fp16/bf16/fp32 out;
 *  - block scales (A 1×128, B 128×128; promoted per K tile) on odd shapes, row-major and
 *    K-major scale matrices with padded ld, every out dtype;
 *  - FP8 with the integer unpacks of sm_80/86 (gemm_force_soft_fp8), every config on odd
 *    shapes and block scales;
 *  - persistent CTAs (persist 1: grids smaller than the tile count) on shapes of many tiles;
 *  - two runs of the same problem are bitwise equal (the K slices add in a fixed order);
 *  - the tuner times the space on this device (sm_90 included), the dispatcher then runs the
 *    winner, captured in a CUDA graph, equal to the reference;
 *  - configs the template cannot build are refused with W8A8_INVALID before NVRTC.
 * FP8 mma.sync accumulates in fp32 with a reduced-precision adder, so FP8 problems get 5e-3
 * relative on top of the out dtype's bound (1e-3 with block scales); INT8 is exact.
 * Needs compute capability 8.0: skipped (77) without a GPU. CK_FORK=no. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gemm.h"
#include "problem_gen.h"
#include "testutil.h"

#define SEED 20261124u

static w8a8_context *ctx;

/* Each fits 99 KB of shared memory (sm_86/89); together they cover block_k 64/128/256, 2–6
 * stages, 4 and 8 warps, slice_k 1/2/4, warp tiles from 16×16 to 64×64 (n8 tiles 2…8,
 * 48-wide ones too), block_n 256 and raster groups 1…8; and both main loops: prefetch 1 with
 * 2, 4 and 8 k32 steps a tile (one of 4 and one of 8 on a 2-stage ring: block_k 256 copies
 * over 2 steps there, over 6 on 3 stages) and, outside what the space offers, with 1 step
 * (slice_k 4); and both epilogues (staged: with slices too, and at N and row ends that split
 * a 16-byte chunk). */
static const char *const configs[] = {
    "block_m=128,block_n=128,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=1,group=8",
    "block_m=64,block_n=128,block_k=64,stages=5,warps_m=2,warps_n=4,slice_k=1,group=4",
    "block_m=16,block_n=64,block_k=128,stages=4,warps_m=1,warps_n=2,slice_k=4,group=1",
    "block_m=32,block_n=96,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=2,group=8",
    "block_m=256,block_n=64,block_k=64,stages=3,warps_m=4,warps_n=2,slice_k=1,group=8",
    "block_m=64,block_n=256,block_k=128,stages=2,warps_m=1,warps_n=4,slice_k=1,group=3",
    "block_m=32,block_n=32,block_k=64,stages=6,warps_m=1,warps_n=2,slice_k=2,group=2",
    "block_m=16,block_n=16,block_k=128,stages=2,warps_m=1,warps_n=1,slice_k=4,group=1",
    "block_m=128,block_n=256,block_k=64,stages=3,warps_m=2,warps_n=4,slice_k=1,group=8,prefetch=1",
    "block_m=256,block_n=128,block_k=128,stages=2,warps_m=4,warps_n=2,slice_k=1,group=2,prefetch=1",
    "block_m=16,block_n=64,block_k=128,stages=4,warps_m=1,warps_n=2,slice_k=4,group=1,prefetch=1",
    "block_m=64,block_n=128,block_k=64,stages=4,warps_m=2,warps_n=2,slice_k=1,group=8,epilogue=1",
    "block_m=32,block_n=96,block_k=128,stages=3,warps_m=2,warps_n=1,slice_k=4,group=8,epilogue=1",
    "block_m=64,block_n=256,block_k=128,stages=2,warps_m=1,warps_n=4,slice_k=1,group=3,prefetch=1,"
    "epilogue=1",
    "block_m=128,block_n=128,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=1,"
    "epilogue=1",
    "block_m=64,block_n=128,block_k=256,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=1,"
    "epilogue=1",
    "block_m=64,block_n=64,block_k=256,stages=3,warps_m=2,warps_n=2,slice_k=1,group=4,prefetch=1",
    "block_m=32,block_n=64,block_k=256,stages=4,warps_m=1,warps_n=2,slice_k=2,group=1",
};
#define CONFIG_COUNT ((int)(sizeof configs / sizeof configs[0]))

/* Block scales: block_k 128 and warp tiles whose width divides 128, both accumulator sets
 * within the register budget; the last with the prefetching main loop (which the space
 * offers only for 64×64 warp tiles, too large for block scales' two sets). */
static const char *const block_configs[] = {
    "block_m=64,block_n=128,block_k=128,stages=3,warps_m=2,warps_n=4,slice_k=1,group=8",
    "block_m=16,block_n=64,block_k=128,stages=4,warps_m=1,warps_n=2,slice_k=4,group=1",
    "block_m=128,block_n=64,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=1,group=8",
    "block_m=32,block_n=256,block_k=128,stages=2,warps_m=1,warps_n=4,slice_k=2,group=5",
    "block_m=64,block_n=128,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=1",
    "block_m=64,block_n=128,block_k=128,stages=3,warps_m=2,warps_n=4,slice_k=1,group=8,epilogue=1",
};
#define BLOCK_CONFIG_COUNT ((int)(sizeof block_configs / sizeof block_configs[0]))

static bool is_block(const w8a8_problem *p) { return p->a_scale.kind == W8A8_SCALE_BLOCK; }

static bool fp8_capable(void) { return ctx->cc_major * 10 + ctx->cc_minor >= 80; }

/* Runs one case against the reference kernel; returns whether it passed (prints if not). */
static bool check_case(const pgen_case *c, const char *config)
{
    return test_family_matches_reference(ctx, &gemm_family_sm80_gemm, c, config);
}


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

START_TEST(every_supported_trait_combination)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED);
    int count = pgen_trait_count(), runs = 0, failures = 0;
    w8a8_problem *problems = calloc((size_t)count, sizeof *problems);
    const char **chosen = calloc((size_t)count, sizeof *chosen);
    test_prewarm *l = test_prewarm_new(ctx, &gemm_family_sm80_gemm);
    ck_assert(problems && chosen);
    for (int i = 0; i < count; i++) {
        w8a8_problem p;
        pgen_problem(&rng, i, &p);
        if (!gemm_family_sm80_gemm.supports(ctx, &p))
            continue;
        chosen[runs] = is_block(&p) ? block_configs[runs % BLOCK_CONFIG_COUNT]
                                    : configs[runs % CONFIG_COUNT];
        problems[runs] = p;
        test_prewarm_add(l, &p, chosen[runs]);
        runs++;
    }
    test_prewarm_run(l, problems, runs);
    for (int i = 0; i < runs; i++) {
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &problems[i], &c), W8A8_OK);
        failures += !check_case(&c, chosen[i]);
        pgen_case_destroy(&c);
    }
    printf("sm80_gemm: %d trait combinations run, %d failed\n", runs, failures);
    free(problems);
    free(chosen);
    ck_assert_int_ge(runs, 100);
    ck_assert_msg(failures == 0, "%d of %d problems differ from the reference", failures, runs);
}
END_TEST

/* Every config of `list` (list_count of them) on each of the count problems, compiled ahead;
 * adds the runs to *runs and returns the failures. */
static int run_configs(const char *const *list, int list_count, const w8a8_problem *problems,
                       int count, uint64_t seed, int *runs)
{
    test_prewarm *l = test_prewarm_new(ctx, &gemm_family_sm80_gemm);
    for (int i = 0; i < count; i++)
        for (int ci = 0; ci < list_count; ci++)
            test_prewarm_add(l, &problems[i], list[ci]);
    test_prewarm_run(l, problems, count);
    pgen_rng rng;
    pgen_rng_seed(&rng, seed);
    int failures = 0;
    for (int i = 0; i < count; i++)
        failures += test_family_case_configs(ctx, &gemm_family_sm80_gemm, &rng, &problems[i],
                                             list, list_count, runs);
    return failures;
}

static int run_every_config(const w8a8_problem *problems, int count, uint64_t seed, int *runs)
{
    return run_configs(configs, CONFIG_COUNT, problems, count, seed, runs);
}

#define ODD_MS 5
#define ODD_NKS 7

START_TEST(every_config_on_odd_shapes)
{
    static const int64_t ms[ODD_MS] = {1, 7, 33, 129, 257};
    /* the last two: K a multiple of every K tile, so the CTAs whose tile lies inside M and N
     * take the unpredicated copies (the main loop's FAST instance) beside edge CTAs that do not */
    static const int64_t nks[ODD_NKS][2] = {{16, 16}, {17, 48}, {129, 144}, {517, 1040},
                                            {200, 4112}, {517, 1024}, {256, 2048}};
    static const w8a8_dtype outs[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};
    w8a8_problem problems[2 * ODD_MS * ODD_NKS];
    int count = 0;
    for (int int8 = 0; int8 < 2; int8++)
        for (int mi = 0; mi < ODD_MS; mi++)
            for (int s = 0; s < ODD_NKS; s++) {
                if (!int8 && !fp8_capable())
                    continue;
                int v = mi + s;
                w8a8_problem *p = &problems[count++];
                w8a8_problem_init(p, ms[mi], nks[s][0], nks[s][1],
                                  int8 ? W8A8_INT8 : (v % 4 == 3 ? W8A8_E5M2 : W8A8_E4M3),
                                  outs[v % 3]);
                if (!int8 && v % 5 == 2)
                    p->b_type = W8A8_E5M2;
                p->a_scale.kind = v % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
                p->b_scale.kind = v % 3 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
                p->bias_type = v % 3 == 0 ? W8A8_DTYPE_NONE : v % 3 == 1 ? W8A8_FP32 : p->out_type;
                p->azp = int8 ? (v % 2 ? W8A8_AZP_TOKEN : W8A8_AZP_TENSOR) : W8A8_AZP_NONE;
                p->ldc = test_padded_ldc(nks[s][0]);
            }
    int runs = 0, failures = run_every_config(problems, count, SEED + 1, &runs);
    printf("sm80_gemm: %d config × shape runs, %d failed\n", runs, failures);
    ck_assert_int_gt(runs, 0);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST

#define BLOCK_SHAPES 7

/* Every block config on each of shape_count shapes (test_block_problem's problem, v = shape +
 * config), compiled ahead; adds the runs to *runs and returns the failures. */
static int run_block_shapes(const int64_t (*shapes)[3], int shape_count, uint64_t seed,
                            int *runs)
{
    ck_assert_int_le(shape_count, BLOCK_SHAPES);
    w8a8_problem problems[BLOCK_SHAPES * BLOCK_CONFIG_COUNT];
    int count = 0;
    test_prewarm *l = test_prewarm_new(ctx, &gemm_family_sm80_gemm);
    for (int s = 0; s < shape_count; s++)
        for (int ci = 0; ci < BLOCK_CONFIG_COUNT; ci++) {
            w8a8_problem *p = &problems[count++];
            test_block_problem(p, shapes[s], s + ci);
            ck_assert(gemm_family_sm80_gemm.supports(ctx, p));
            test_prewarm_add(l, p, block_configs[ci]);
        }
    test_prewarm_run(l, problems, count);
    pgen_rng rng;
    pgen_rng_seed(&rng, seed);
    int failures = 0;
    for (int i = 0; i < count; i++) {
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &problems[i], &c), W8A8_OK);
        failures += !check_case(&c, block_configs[i % BLOCK_CONFIG_COUNT]);
        (*runs)++;
        pgen_case_destroy(&c);
    }
    return failures;
}

START_TEST(block_scales_on_odd_shapes)
{
    static const int64_t shapes[BLOCK_SHAPES][3] = {
        {1, 200, 2064}, {7, 517, 400}, {17, 129, 16}, {129, 264, 1024},
        {33, 1032, 4112}, {300, 7168, 512}, {515, 384, 1536}};
    if (!fp8_capable())
        return; /* FP8 only */
    int runs = 0, failures = run_block_shapes(shapes, BLOCK_SHAPES, SEED + 2, &runs);
    printf("sm80_gemm: %d block-scaled config × shape runs, %d failed\n", runs, failures);
    ck_assert_msg(failures == 0, "%d of %d block-scaled runs differ from the reference",
                  failures, runs);
}
END_TEST

/* FP8 with the integer unpacks of sm_80/86 (gemm_force_soft_fp8: SOFT_FP8=1 in the defines,
 * the f16 mmas on every arch): every config on odd shapes, both FP8 mixes, per-tensor, per-row
 * and block scales, every out dtype. */
START_TEST(fp8_integer_unpacks_on_odd_shapes)
{
    static const int64_t ms[] = {1, 33, 257};
    static const int64_t nks[][2] = {{17, 48}, {517, 1040}, {256, 2048}};
    static const int64_t block_shapes[][3] = {{7, 517, 400}, {129, 264, 1024}, {300, 768, 512}};
    static const w8a8_dtype outs[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};
    w8a8_problem problems[3 * 3];
    int count = 0;
    gemm_force_soft_fp8(true);
    for (int mi = 0; mi < 3; mi++)
        for (int s = 0; s < 3; s++) {
            int v = mi + s;
            w8a8_problem *p = &problems[count++];
            w8a8_problem_init(p, ms[mi], nks[s][0], nks[s][1], v % 2 ? W8A8_E5M2 : W8A8_E4M3,
                              outs[v % 3]);
            p->b_type = v % 3 == 1 ? W8A8_E5M2 : W8A8_E4M3;
            p->a_scale.kind = v % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
            p->b_scale.kind = mi % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
            p->bias_type = v % 3 == 0 ? W8A8_DTYPE_NONE : W8A8_FP32;
            p->ldc = test_padded_ldc(nks[s][0]);
        }
    int runs = 0, failures = run_every_config(problems, count, SEED + 5, &runs);
    failures += run_block_shapes(block_shapes, 3, SEED + 6, &runs);
    gemm_force_soft_fp8(false);
    printf("sm80_gemm: %d FP8 config × shape runs with integer unpacks, %d failed\n", runs,
           failures);
    ck_assert_int_gt(runs, 0);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST

/* persist 1: fewer CTAs than tiles, each looping over tiles with the next tile's first K tiles
 * in flight during the epilogue: 8-warp tiles (1 CTA an SM), 4-warp ones (2 or more), both
 * epilogues, rings of 2–4 stages whose early part is 0, 1 or STAGES − 1 stages (fp32 out
 * stages over more of the ring), tiles inside M and N (the unpredicated copies, K a multiple
 * of the K tile) beside edge ones. */
static const char *const persist_configs[] = {
    "block_m=256,block_n=128,block_k=128,stages=4,warps_m=4,warps_n=2,slice_k=1,group=8,prefetch=1,"
    "epilogue=1,persist=1",
    "block_m=128,block_n=256,block_k=128,stages=3,warps_m=2,warps_n=4,slice_k=1,group=8,prefetch=1,"
    "epilogue=1,persist=1",
    "block_m=128,block_n=128,block_k=128,stages=4,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=1,"
    "epilogue=1,persist=1",
    "block_m=64,block_n=64,block_k=64,stages=3,warps_m=2,warps_n=2,slice_k=1,group=2,persist=1",
    "block_m=128,block_n=64,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=1,epilogue=1,"
    "persist=1",
    "block_m=128,block_n=256,block_k=256,stages=2,warps_m=2,warps_n=4,slice_k=1,group=8,prefetch=1,"
    "epilogue=1,persist=1",
};
#define PERSIST_CONFIG_COUNT ((int)(sizeof persist_configs / sizeof persist_configs[0]))

START_TEST(persistent_ctas_loop_over_tiles)
{
    static const int64_t shapes[][3] = {{3001, 2500, 1040}, {2600, 2100, 2048}};
    w8a8_problem problems[4];
    int count = 0;
    for (int s = 0; s < 2; s++)
        for (int int8 = 0; int8 < 2; int8++) {
            if (!int8 && !fp8_capable())
                continue;
            w8a8_problem *p = &problems[count];
            int v = 2 * s + int8;
            w8a8_problem_init(p, shapes[s][0], shapes[s][1], shapes[s][2],
                              int8 ? W8A8_INT8 : W8A8_E4M3,
                              v == 0 ? W8A8_FP16 : v == 1 ? W8A8_BF16 : W8A8_FP32);
            if (v == 2)
                p->b_type = W8A8_E5M2;
            p->a_scale.kind = v == 3 ? W8A8_SCALE_TENSOR : W8A8_SCALE_ROW;
            p->b_scale.kind = W8A8_SCALE_ROW;
            p->bias_type = v % 2 ? W8A8_FP32 : W8A8_DTYPE_NONE;
            p->azp = int8 ? (s ? W8A8_AZP_TENSOR : W8A8_AZP_TOKEN) : W8A8_AZP_NONE;
            p->ldc = test_padded_ldc(shapes[s][1]);
            count++;
        }
    /* the grids really are smaller than the tile counts */
    for (int ci = 0; ci < PERSIST_CONFIG_COUNT; ci++) {
        gemm_plan plan;
        ck_assert_msg(gemm_family_sm80_gemm.plan(ctx, &problems[0], persist_configs[ci], &plan) ==
                          W8A8_OK, "%s: %s", persist_configs[ci], w8a8_errmsg(ctx));
        int bm = 0, bn = 0;
        ck_assert_int_eq(sscanf(persist_configs[ci], "block_m=%d,block_n=%d", &bm, &bn), 2);
        int64_t tiles = (problems[0].m + bm - 1) / bm * ((problems[0].n + bn - 1) / bn);
        ck_assert_msg(plan.launch.grid[0] < tiles, "%s: a grid of %u CTAs for %lld tiles",
                      persist_configs[ci], plan.launch.grid[0], (long long)tiles);
    }
    int runs = 0, failures = run_configs(persist_configs, PERSIST_CONFIG_COUNT, problems, count,
                                         SEED + 6, &runs);
    printf("sm80_gemm: %d persistent config × shape runs, %d failed\n", runs, failures);
    ck_assert_int_gt(runs, 0);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST

/* The K slices add in slice order: the same inputs give the same bits, on every config. */
START_TEST(two_runs_are_bitwise_equal)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 3);
    w8a8_problem p;
    w8a8_problem_init(&p, 37, 1000, 8208, fp8_capable() ? W8A8_E4M3 : W8A8_INT8, W8A8_FP32);
    p.a_scale.kind = W8A8_SCALE_ROW;
    p.b_scale.kind = W8A8_SCALE_ROW;
    pgen_case c;
    ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
    test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm80_gemm, &c, configs, CONFIG_COUNT);
    pgen_case_destroy(&c);
}
END_TEST

/* The tuner times this space on the device (compiled for its own arch: plain sm_90 on
 * Hopper) into an empty database; the dispatcher then finds the winner and runs it. */
START_TEST(tuned_and_dispatched_in_a_cuda_graph)
{
    char dir[512];
    w8a8_context *fresh = test_ctx_open_empty_cache(dir, sizeof dir);
    ck_assert_ptr_nonnull(fresh);
    w8a8_context *saved = ctx;
    ctx = fresh;
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 4);
    w8a8_problem p;
    bool fp8 = fp8_capable();
    w8a8_problem_init(&p, 200, 1536, 2048, fp8 ? W8A8_E4M3 : W8A8_INT8, W8A8_BF16);
    p.a_scale.kind = W8A8_SCALE_ROW;
    p.b_scale.kind = W8A8_SCALE_ROW;
    p.bias_type = W8A8_BF16;
    w8a8_tune_options o = {.problems = &p, .problem_count = 1, .space = "sm80_gemm",
                           .budget_seconds = 240, .max_candidates = 8, .quick_samples = 3,
                           .final_samples = 5, .finalists = 2};
    w8a8_tune_report report;
    w8a8_status st = w8a8_tune(ctx, &o, NULL, NULL, &report);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_uint_eq(report.count, 1);
    const w8a8_tune_result *res = &report.results[0];
    printf("sm80_gemm tuned %s 256x1536x2048 on %s: %s %.2f us (default %.2f us); %zu "
           "candidates, %zu timed, %zu rejected, %zu failed verification\n",
           fp8 ? "e4m3" : "int8", ctx->arch, res->config, res->best_us, res->default_us,
           res->candidates, res->timed, res->rejected, res->verify_failed);
    ck_assert_int_eq(res->status, W8A8_OK);
    ck_assert_str_eq(res->family, "sm80_gemm");
    ck_assert_uint_eq(res->verify_failed, 0);
    ck_assert(res->best_us > 0);
    w8a8_tune_report_free(&report);

    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &p, &e), W8A8_OK);
    ck_assert_str_eq(e.family, "sm80_gemm");
    ck_assert_str_eq(e.match, "exact");
    pgen_case c;
    ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
    test_dispatched_in_a_graph(ctx, &c);
    pgen_case_destroy(&c);
    w8a8_context_close(fresh);
    ctx = saved;
}
END_TEST

START_TEST(invalid_configs_are_refused)
{
    static const char *const bad[] = {
        "block_m=48",
        "block_n=24",
        "block_k=32",
        "stages=7",
        "slice_k=3",
        "group=0",
        "warps_m=1,warps_n=1,slice_k=1",             /* 1 warp */
        "block_m=16,warps_m=2",                      /* an 8-row warp tile */
        "block_k=64,slice_k=4",                      /* 2 k32 steps over 4 slices */
        "block_m=256,block_n=256,warps_m=2,warps_n=2", /* 128 × 128 warp tile */
        "block_n=128,bogus=1",
        "persist=2",
        "slice_k=2,persist=1",                       /* persist needs one K slice */
        "block_m=x",
    };
    w8a8_problem p;
    w8a8_problem_init(&p, 64, 256, 512, W8A8_INT8, W8A8_BF16);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gemm_plan plan;
        uint64_t compiles = atomic_load(&ctx->nvrtc_compiles);
        w8a8_status st = gemm_family_sm80_gemm.plan(ctx, &p, bad[i], &plan);
        ck_assert_msg(st == W8A8_INVALID, "'%s' gave %s", bad[i], w8a8_status_string(st));
        ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "sm80_gemm config"));
        ck_assert_uint_eq(atomic_load(&ctx->nvrtc_compiles), compiles);
    }
    /* block scales need block_k 128 and a warp tile width dividing 128 */
    if (fp8_capable()) {
        w8a8_problem_init(&p, 64, 256, 512, W8A8_E4M3, W8A8_BF16);
        pgen_block_scales(&p, 0, 0, 0);
        gemm_plan plan;
        ck_assert_int_eq(gemm_family_sm80_gemm.plan(ctx, &p, "block_k=64", &plan), W8A8_INVALID);
        ck_assert_int_eq(gemm_family_sm80_gemm.plan(
                             ctx, &p, "block_m=32,block_n=96,warps_m=2,warps_n=2", &plan),
                         W8A8_INVALID);
    }
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("gpu_sm80_gemm");
    w8a8_context *probe = test_ctx_open();
    int cc = probe->cc_major * 10 + probe->cc_minor;
    bool unsupported = cc < 80 || cc > 90;
    if (unsupported)
        printf("gpu_sm80_gemm: skipped: compute capability %d.%d, the family runs on 8.0–9.0\n",
               probe->cc_major, probe->cc_minor);
    else
        printf("gpu_sm80_gemm: %s, kernels compiled for %s\n", probe->device_name, probe->arch);
    w8a8_context_close(probe);
    if (unsupported)
        return TEST_SKIP_CODE;
    Suite *s = suite_create("gpu_sm80_gemm");
    TCase *tc = tcase_create("sm80_gemm");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, invalid_configs_are_refused);
    tcase_add_test(tc, every_supported_trait_combination);
    tcase_add_test(tc, every_config_on_odd_shapes);
    tcase_add_test(tc, block_scales_on_odd_shapes);
    tcase_add_test(tc, fp8_integer_unpacks_on_odd_shapes);
    tcase_add_test(tc, persistent_ctas_loop_over_tiles);
    tcase_add_test(tc, two_runs_are_bitwise_equal);
    tcase_add_test(tc, tuned_and_dispatched_in_a_cuda_graph);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
