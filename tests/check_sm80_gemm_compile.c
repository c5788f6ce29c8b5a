/* The sm80_gemm template and the mma_peak microbenchmark compile with NVRTC (no GPU needed)
 * for every arch the family targets (sm_80, sm_86, sm_89, and sm_90, how Hopper runs it):
 *  - the register-heaviest corners of the space (the largest warp tiles valid() allows, with
 *    and without K slices, block scales with both accumulator sets, persistent CTAs) for the
 *    heaviest trait
 *    combinations, without spills (FP8 on sm_80/86/90 too, where its k32 steps run as f16
 *    mmas and block scales keep warp tiles at most 32 rows tall, and with SOFT_FP8=1);
 *  - the space's default() for every compile problem on each nominal device, without spills;
 *  - mma_peak for INT8 and FP16 everywhere and FP8 from sm_89;
 *  - a bad config fails with a compile error that says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "space.h"
#include "testutil.h"

static const char *const archs[] = {"sm_80", "sm_86", "sm_89", "sm_90"};
#define ARCH_COUNT (sizeof archs / sizeof archs[0])

static bool fp8_arch(const char *arch) { return strcmp(arch, "sm_89") >= 0; }

static void expect_clean_compile(w8a8_context *ctx, const char *template_name,
                                 const char *defines, const char *arch)
{
    w8a8_kernel_info info;
    char *log = NULL;
    w8a8_status st = w8a8_kernel_compile(ctx, template_name, defines, arch, &info, &log);
    ck_assert_msg(st == W8A8_OK, "%s %s %s: %s: %s\n%s", template_name, arch, defines,
                  w8a8_status_string(st), w8a8_errmsg(ctx), log ? log : "");
    ck_assert_msg(!info.rejected && info.spill_stores == 0 && info.spill_loads == 0,
                  "%s %s %s: rejected (%s), spills %d/%d", template_name, arch, defines,
                  info.reject_reason, info.spill_stores, info.spill_loads);
    ck_assert_int_gt(info.registers, 0);
    w8a8_free(log);
}

/* Warp tiles of 128 accumulators (64×64, 32×128, 128×32), as 4 and 8 warps and with slices;
 * 64×64 in 8 warps with the prefetching main loop, which keeps the most registers live. */
static const char *const heavy_configs[] = {
    "block_m=128,block_n=128,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8",
    "block_m=128,block_n=256,block_k=128,stages=2,warps_m=2,warps_n=4,slice_k=1,group=8",
    "block_m=256,block_n=128,block_k=64,stages=2,warps_m=4,warps_n=2,slice_k=1,group=8",
    "block_m=32,block_n=256,block_k=128,stages=2,warps_m=1,warps_n=2,slice_k=4,group=8",
    "block_m=128,block_n=64,block_k=128,stages=2,warps_m=1,warps_n=2,slice_k=2,group=8",
    "block_m=128,block_n=256,block_k=128,stages=2,warps_m=2,warps_n=4,slice_k=1,group=8,prefetch=1",
    "block_m=256,block_n=128,block_k=64,stages=2,warps_m=4,warps_n=2,slice_k=1,group=8,prefetch=1",
    /* prefetch 1 on 4-warp CTAs (two an SM): 64×64 warp tiles in each warp grid */
    "block_m=128,block_n=128,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=1",
    "block_m=64,block_n=256,block_k=64,stages=2,warps_m=1,warps_n=4,slice_k=1,group=8,prefetch=1",
    "block_m=256,block_n=64,block_k=128,stages=2,warps_m=4,warps_n=1,slice_k=1,group=8,prefetch=1,"
    "epilogue=1",
    "block_m=128,block_n=128,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8,epilogue=1",
    "block_m=32,block_n=256,block_k=128,stages=2,warps_m=1,warps_n=2,slice_k=4,group=8,epilogue=1",
};
/* Persistent CTAs (the next tile's place and copiers live beside the accumulators): INT8
 * everywhere, FP8 where it is native (sm_89; as f16 mmas on sm_90 they spilled, and the space
 * does not offer them there). */
static const char *const heavy_persist_configs[] = {
    "block_m=128,block_n=256,block_k=128,stages=3,warps_m=2,warps_n=4,slice_k=1,group=8,prefetch=1,"
    "epilogue=1,persist=1",
    "block_m=256,block_n=128,block_k=128,stages=4,warps_m=4,warps_n=2,slice_k=1,group=8,prefetch=1,"
    "epilogue=1,persist=1",
    "block_m=128,block_n=128,block_k=128,stages=4,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=1,"
    "epilogue=1,persist=1",
    "block_m=128,block_n=128,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=1,group=8,persist=1",
};
/* Block scales: 64 accumulators twice (64×32, 32×64, 128×16, 16×128 warp tiles). */
static const char *const heavy_block_configs[] = {
    "block_m=128,block_n=64,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8",
    "block_m=64,block_n=128,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8",
    "block_m=256,block_n=32,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8",
    "block_m=16,block_n=128,block_k=128,stages=2,warps_m=1,warps_n=1,slice_k=4,group=8",
};
/* Block scales where FP8 runs as f16 mmas (sm_80, sm_86, sm_90) and the space keeps warp tiles
 * at most 32 rows tall: 32 × 64 as 8 and 4 warps, 16 × 128 with slices. */
static const char *const heavy_block_f16_configs[] = {
    "block_m=128,block_n=128,block_k=128,stages=2,warps_m=4,warps_n=2,slice_k=1,group=8",
    "block_m=64,block_n=128,block_k=128,stages=2,warps_m=2,warps_n=2,slice_k=1,group=8",
    "block_m=16,block_n=128,block_k=128,stages=2,warps_m=1,warps_n=1,slice_k=4,group=8",
};
/* INT8 with a per-token zero point, row scales, fp32 bias and out; FP8 row scales with a
 * bias; FP8 block scales with a bias. */
#define INT8_TRAITS "A_TYPE=3,B_TYPE=3,OUT_TYPE=6,BIAS_TYPE=6,A_SCALE=1,B_SCALE=1,AZP=2"
#define FP8_TRAITS "A_TYPE=2,B_TYPE=1,OUT_TYPE=5,BIAS_TYPE=5,A_SCALE=1,B_SCALE=1,AZP=0"
#define BLOCK_TRAITS "A_TYPE=1,B_TYPE=2,OUT_TYPE=4,BIAS_TYPE=6,A_SCALE=2,B_SCALE=2,AZP=0"

#define COUNT(list) (sizeof(list) / sizeof(list)[0])

/* Each config of a list, with the traits appended, compiles for arch without spills. */
static void expect_clean_list(w8a8_context *ctx, const char *const *configs, size_t count,
                              const char *traits, const char *arch)
{
    char defines[512];
    for (size_t i = 0; i < count; i++) {
        snprintf(defines, sizeof defines, "%s,%s", configs[i], traits);
        expect_clean_compile(ctx, "sm80_gemm", defines, arch);
    }
}

START_TEST(heaviest_configs_compile_without_spills)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    for (size_t a = 0; a < ARCH_COUNT; a++) {
        expect_clean_list(ctx, heavy_configs, COUNT(heavy_configs), INT8_TRAITS, archs[a]);
        expect_clean_list(ctx, heavy_configs, COUNT(heavy_configs), FP8_TRAITS, archs[a]);
        expect_clean_list(ctx, heavy_persist_configs, COUNT(heavy_persist_configs), INT8_TRAITS,
                          archs[a]);
        if (strcmp(archs[a], "sm_89") == 0)
            expect_clean_list(ctx, heavy_persist_configs, COUNT(heavy_persist_configs),
                              FP8_TRAITS, archs[a]);
        if (strcmp(archs[a], "sm_89") != 0)
            expect_clean_list(ctx, heavy_block_f16_configs, COUNT(heavy_block_f16_configs),
                              BLOCK_TRAITS, archs[a]);
        else
            expect_clean_list(ctx, heavy_block_configs, COUNT(heavy_block_configs), BLOCK_TRAITS,
                              archs[a]);
        /* the test hook that takes sm_80/86's integer unpacks on newer GPUs */
        expect_clean_list(ctx, heavy_configs, 1, FP8_TRAITS ",SOFT_FP8=1", archs[a]);
        expect_clean_list(ctx, heavy_block_f16_configs, 1, BLOCK_TRAITS ",SOFT_FP8=1",
                          archs[a]);
    }
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(defaults_compile_on_every_nominal_device)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    space *s = NULL;
    ck_assert_int_eq(space_load(ctx, "sm80_gemm", &s), W8A8_OK);
    int compiled = 0;
    for (size_t a = 0; a < ARCH_COUNT; a++) {
        space_device dev;
        ck_assert_int_eq(space_device_nominal(ctx, archs[a], &dev), W8A8_OK);
        w8a8_problem *problems = NULL;
        size_t count = 0;
        ck_assert_int_eq(space_compile_problems(ctx, s, &dev, &problems, &count), W8A8_OK);
        ck_assert_uint_gt(count, 0);
        for (size_t i = 0; i < count; i++) {
            bool applies = false;
            /* on sm_90 the family competes only when the caller names its space (Hopper's
             * own families take the part in a plain tune) */
            dev.named = false;
            ck_assert_int_eq(space_applies(ctx, s, &problems[i], &dev, &applies), W8A8_OK);
            ck_assert_msg(applies == (strcmp(archs[a], "sm_90") != 0),
                          "%s: compile problem %zu: applies %d unnamed", archs[a], i, applies);
            dev.named = true;
            ck_assert_int_eq(space_applies(ctx, s, &problems[i], &dev, &applies), W8A8_OK);
            ck_assert_msg(applies, "%s: compile problem %zu does not apply", archs[a], i);
            /* small and large M of the same class */
            static const int64_t ms[] = {1, 48, 4096};
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                w8a8_problem p = problems[i];
                p.m = ms[mi];
                char config[256], defines[512];
                w8a8_status st = space_default(ctx, s, &p, &dev, config, sizeof config);
                ck_assert_msg(st == W8A8_OK, "%s: default: %s", archs[a], w8a8_errmsg(ctx));
                ck_assert_int_eq(gemm_defines(ctx, &p, config, defines, sizeof defines), W8A8_OK);
                expect_clean_compile(ctx, "sm80_gemm", defines, archs[a]);
                compiled++;
            }
        }
        free(problems);
    }
    printf("sm80_gemm: %d default configs compiled\n", compiled);
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

/* rank() orders the tuner's candidates: large M gets tiles of at least 64 × 128 (small tiles
 * re-read the operands from L2 too often), decode-sized M gets 16-row tiles. Prints the top
 * three of each problem. */
static int top_block(const char *config, const char *name)
{
    const char *p = strstr(config, name);
    ck_assert_ptr_nonnull(p);
    return atoi(p + strlen(name) + 1);
}

START_TEST(rank_prefers_big_tiles_for_big_m)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    space *s = NULL;
    ck_assert_int_eq(space_load(ctx, "sm80_gemm", &s), W8A8_OK);
    static const struct {
        const char *arch;
        int64_t m, n, k;
        w8a8_dtype type;
    } cases[] = {
        {"sm_80", 8192, 28672, 4096, W8A8_INT8}, {"sm_80", 4096, 4096, 4096, W8A8_INT8},
        {"sm_89", 8192, 8192, 8192, W8A8_E4M3},  {"sm_90", 4096, 6144, 4096, W8A8_E4M3},
        {"sm_90", 2048, 4096, 14336, W8A8_INT8}, {"sm_90", 8, 4096, 14336, W8A8_E4M3},
        {"sm_80", 1, 6144, 4096, W8A8_INT8},     {"sm_80", 8192, 8192, 8192, W8A8_E4M3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        space_device dev;
        ck_assert_int_eq(space_device_nominal(ctx, cases[i].arch, &dev), W8A8_OK);
        w8a8_problem p;
        w8a8_problem_init(&p, cases[i].m, cases[i].n, cases[i].k, cases[i].type, W8A8_BF16);
        space_enumeration e;
        ck_assert_int_eq(space_enumerate(ctx, s, &p, &dev, &e), W8A8_OK);
        ck_assert_uint_gt(e.count, 3);
        printf("%s %lldx%lldx%lld %s: %zu valid of %zu\n", cases[i].arch, (long long)p.m,
               (long long)p.n, (long long)p.k, w8a8_dtype_name(p.a_type), e.count, e.total);
        for (size_t c = 0; c < 3; c++)
            printf("  %s  %.0f\n", e.candidates[c].config, e.candidates[c].rank);
        int block_m = top_block(e.candidates[0].config, "block_m");
        int block_n = top_block(e.candidates[0].config, "block_n");
        if (p.m >= 2048)
            ck_assert_msg(block_m * block_n >= 64 * 128, "%s: top config %s", cases[i].arch,
                          e.candidates[0].config);
        else
            ck_assert_msg(block_m == 16, "%s: top config %s", cases[i].arch,
                          e.candidates[0].config);
        space_enumeration_free(&e);
    }
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(mma_peak_compiles)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    for (size_t a = 0; a < ARCH_COUNT; a++) {
        expect_clean_compile(ctx, "mma_peak", "A_TYPE=3,B_TYPE=3,CHAINS=8", archs[a]);
        expect_clean_compile(ctx, "mma_peak", "A_TYPE=5,B_TYPE=5,CHAINS=16", archs[a]);
        if (fp8_arch(archs[a])) {
            expect_clean_compile(ctx, "mma_peak", "A_TYPE=1,B_TYPE=1,CHAINS=8", archs[a]);
            expect_clean_compile(ctx, "mma_peak", "A_TYPE=2,B_TYPE=2,CHAINS=4", archs[a]);
        }
    }
    w8a8_context_close(ctx);
}
END_TEST

static void expect_compile_error(w8a8_context *ctx, const char *defines, const char *arch,
                                 const char *needle)
{
    char *log = NULL;
    w8a8_status st = w8a8_kernel_compile(ctx, "sm80_gemm", defines, arch, NULL, &log);
    ck_assert_msg(st == W8A8_COMPILE_ERROR, "%s: %s", defines, w8a8_status_string(st));
    const char *text = log ? log : w8a8_errmsg(ctx);
    ck_assert_msg(strstr(text, needle) || strstr(w8a8_errmsg(ctx), needle),
                  "%s: the log does not say '%s':\n%s", defines, needle, text);
    w8a8_free(log);
}

START_TEST(bad_combinations_fail_with_reasons)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    char defines[512];
    snprintf(defines, sizeof defines, "%s,%s",
             "block_m=64,block_n=64,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=3,group=8",
             INT8_TRAITS);
    expect_compile_error(ctx, defines, "sm_80", "SLICE_K");
    snprintf(defines, sizeof defines, "%s,%s",
             "block_m=64,block_n=96,block_k=128,stages=3,warps_m=2,warps_n=2,slice_k=1,group=8",
             BLOCK_TRAITS);
    expect_compile_error(ctx, defines, "sm_89", "block scales");
    w8a8_context_close(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sm80_gemm_compile");
    TCase *tc = tcase_create("compile");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, heaviest_configs_compile_without_spills);
    tcase_add_test(tc, defaults_compile_on_every_nominal_device);
    tcase_add_test(tc, rank_prefers_big_tiles_for_big_m);
    tcase_add_test(tc, mma_peak_compiles);
    tcase_add_test(tc, bad_combinations_fail_with_reasons);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
