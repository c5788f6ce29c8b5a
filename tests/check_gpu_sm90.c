/* The Hopper GEMM family (src/sm90_gemm.c, templates/sm90_gemm.cuh) against the reference
 * kernel, on random data (never zero), outputs poisoned with 0xFF before every run and the
 * padding between n and ldc checked untouched afterwards:
 *  - every trait combination the family supports (FP8 mixes and INT8 × A scale × B scale ×
 *    out dtype × bias × zero point), random odd shapes and padded strides, cycling through
 *    configs with non-power-of-two block_n, 1 and 2 consumers, cooperative and ping-pong
 *    schedules, both rasters;
 *  - every config on fixed odd shapes (M = 1, 7, 40, 90, 129, 333; N not a multiple of the
 *    tile; the smallest K; at M <= 96 the stages hold only 8, 48 or 96 rows of A where the
 *    tile is taller) and shapes with more tiles than SMs (several tiles per CTA), with the
 *    TMA-store epilogue (N = 8, 200, 1000, 2000 store through TMA; N = 129, 517 and the
 *    random problems' odd ldc take the direct fallback) and 2-CTA clusters with multicast B
 *    (odd tile-row counts included);
 *  - block scales (A 1×128, B 128×128, promoted accumulation) on odd shapes (M = 1, 7, 129,
 *    1000; N not a multiple of the tile nor of 128; K tails of 16·odd), row-major and
 *    K-major scale matrices with padded ld, every out dtype, with and without bias, on
 *    configs whose tiles do and do not straddle 128-column scale blocks, with overlap=1..3
 *    (groups of 2, 4, 8 K blocks, short counts padded), stagger=1 (the consumers take turns; a
 *    3999×2056 shape gives each CTA several tiles) and wave=1 (128-row consumers promote their
 *    two 64-row sub-tiles in turn through one temporary set);
 *  - split-K in a cluster (split=2, 4; alone and with overlap) and N, K compiled in
 *    (specialize=1) among those configs, split-K's two runs bitwise equal;
 *  - the last partial wave split in clusters (tail=2, 4) among those configs, and on shapes of
 *    two full waves plus a rest sized from the device's SMs (split or not, as the host's
 *    sm90_tail_whole says), per-row, INT8 with zero points and block-scaled with overlap,
 *    against the reference and two runs bitwise equal;
 *  - every config (and every block config) on a problem and its leading corner, whose last
 *    tiles move back inside M and N: the corner's outputs bitwise the whole problem's;
 *  - stages of 256 and 512 K bytes (block_k) on odd shapes with every schedule, epilogue,
 *    split-K (two runs bitwise equal), tail and specialization;
 *  - promoted accumulation of per-tensor / per-row FP8 (accum promoted) on the block configs
 *    and odd shapes, and on K = 16384 at least 4× more accurate than fast accumulation;
 *  - configs that the template cannot build are refused with W8A8_INVALID before NVRTC.
 * FP8 wgmma accumulates with a reduced-precision adder (about 1e-3 relative for K in the
 * thousands), so FP8 problems get that much on top of the out dtype's bound; promoted
 * accumulation (block scales, accum promoted) gets a tighter 1e-3; INT8 accumulation is exact. Needs compute capability 9.0: skipped (77) otherwise. CK_FORK=no. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "problem_gen.h"
#include "testutil.h"

#define SEED 20250917u
#define MAX_FAILURES_SHOWN 10

static w8a8_context *ctx;

/* Configs every test cycles through (INT8 problems move block_n to a legal INT8 N). Each
 * fits every out dtype; the TMA-store epilogue (epilogue=1) stages rows of 16 (no swizzle),
 * 32, 64 and 128 bytes, and cluster=2 runs with odd tile-row counts (a unit half past M). */
static const char *const configs[] = {
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1",
    "block_m=128,block_n=144,stages=4,consumers=1,raster=1,group=3,cluster=2,epilogue=1",
    "block_m=64,block_n=112,stages=6,consumers=1,raster=0,group=8,cluster=1,epilogue=1",
    "block_m=256,block_n=176,stages=3,consumers=2,raster=0,group=4,cluster=2",
    "block_m=128,block_n=240,stages=3,consumers=2,raster=1,group=8,cluster=1",
    "block_m=64,block_n=8,stages=4,consumers=1,raster=0,group=8,cluster=1,epilogue=1",
    "block_m=128,block_n=48,stages=5,consumers=2,raster=0,group=16,cluster=2,epilogue=1",
    "block_m=256,block_n=128,stages=2,consumers=2,raster=1,group=2,cluster=1,epilogue=1",
    "block_m=128,block_n=200,stages=4,consumers=2,raster=0,group=8,cluster=1",
    /* trigger=1: the next kernel launches as the CTAs exit (no early trigger) */
    "block_m=128,block_n=160,stages=5,consumers=2,pingpong=1,raster=0,group=8,cluster=1,trigger=1",
    "block_m=64,block_n=256,stages=5,consumers=2,pingpong=1,raster=1,group=4,cluster=2",
    "block_m=128,block_n=96,stages=4,consumers=2,pingpong=1,raster=0,group=8,cluster=2,epilogue=1",
    "block_m=64,block_n=64,stages=4,consumers=2,pingpong=1,raster=1,group=4,cluster=1,epilogue=1",
    /* the weights (B) loaded evict-first */
    "block_m=128,block_n=96,stages=6,consumers=2,raster=0,group=8,cluster=1,evict=1,trigger=1",
    /* two output boxes staged at a time (epilogue 2): 4 boxes (16-bit out) or 8 (fp32) of 128
     * bytes beside a 4-stage ring; 11 boxes of 32 (16-bit) or 64 bytes (fp32) with ping-pong */
    "block_m=128,block_n=256,stages=4,consumers=2,raster=0,group=8,cluster=1,epilogue=2",
    "block_m=128,block_n=176,stages=4,consumers=2,pingpong=1,raster=1,group=4,cluster=2,epilogue=2",
    /* epilogue 2 with rows of two boxes (16-bit out): one staged box at a time (fp32 rows
     * are four boxes: two), beside a 6-stage ring */
    "block_m=128,block_n=128,stages=6,consumers=2,raster=0,group=8,cluster=2,epilogue=2",
    /* split-K in a cluster: K slices that the split does not divide evenly, and (K = 16,
     * one K block) ranks with empty slices */
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1,split=2",
    "block_m=64,block_n=96,stages=6,consumers=1,raster=1,group=4,cluster=1,epilogue=1,split=4",
    "block_m=128,block_n=64,stages=5,consumers=2,raster=0,group=8,cluster=1,epilogue=1,split=4",
    /* the last partial wave split in clusters (small problems: every tile split; a K block
     * short of two a slice: whole) */
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1,epilogue=2,tail=2",
    "block_m=64,block_n=96,stages=6,consumers=1,raster=1,group=4,cluster=1,tail=4",
    /* N and K compiled in: with block_n 8 and 200 several shapes have whole tiles along N
     * (no column predicate), the others not */
    "block_m=64,block_n=8,stages=4,consumers=1,raster=0,group=8,cluster=1,epilogue=1,specialize=1",
    "block_m=128,block_n=200,stages=4,consumers=2,raster=0,group=8,cluster=1,specialize=1",
};
#define CONFIG_COUNT ((int)(sizeof configs / sizeof configs[0]))

/* Configs legal with block scales (doubled accumulators): one B scale per tile (128 % block_n
 * == 0) and tiles straddling two or three 128-column scale blocks; cooperative, one consumer
 * with 64 and 128 rows, and ping-pong. */
static const char *const block_configs[] = {
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1",
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=2,epilogue=1",
    "block_m=64,block_n=112,stages=6,consumers=1,raster=1,group=3,cluster=1",
    "block_m=64,block_n=112,stages=6,consumers=1,raster=1,group=3,cluster=2,epilogue=1",
    "block_m=128,block_n=176,stages=3,consumers=2,raster=1,group=8,cluster=1",
    "block_m=64,block_n=192,stages=4,consumers=1,raster=0,group=8,cluster=1",
    "block_m=128,block_n=64,stages=5,consumers=2,pingpong=1,raster=0,group=8,cluster=1",
    "block_m=64,block_n=32,stages=4,consumers=2,pingpong=1,raster=1,group=4,cluster=1",
    "block_m=128,block_n=48,stages=5,consumers=1,raster=0,group=8,cluster=1",
    "block_m=256,block_n=80,stages=3,consumers=2,raster=0,group=2,cluster=1",
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1,split=2",
    "block_m=64,block_n=112,stages=5,consumers=1,raster=1,group=3,cluster=1,split=4",
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1,split=2,specialize=1",
    /* overlap: K blocks in groups of 2 … 32 (short counts padded with zero blocks: 4112 is
     * 33 K blocks, 64 with overlap 5), one B scale per tile or straddling ones, cooperative,
     * one consumer, ping-pong, a cluster, 2-stage rings that a group runs through, shapes
     * compiled in */
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1,overlap=1",
    "block_m=128,block_n=128,stages=5,consumers=2,raster=0,group=4,cluster=1,epilogue=2,overlap=4",
    "block_m=128,block_n=64,stages=5,consumers=2,raster=1,group=8,cluster=1,overlap=5",
    "block_m=64,block_n=112,stages=5,consumers=2,pingpong=1,raster=0,group=8,cluster=1,overlap=4",
    "block_m=64,block_n=112,stages=6,consumers=1,raster=1,group=3,cluster=2,epilogue=1,overlap=3",
    "block_m=64,block_n=96,stages=5,consumers=2,pingpong=1,raster=0,group=8,cluster=1,overlap=2",
    "block_m=128,block_n=64,stages=2,consumers=2,raster=0,group=8,cluster=1,epilogue=1,overlap=1",
    "block_m=128,block_n=64,stages=2,consumers=2,raster=1,group=8,cluster=1,overlap=3",
    "block_m=128,block_n=80,stages=3,consumers=2,raster=1,group=4,cluster=1,specialize=1,overlap=2",
    /* overlap with split-K: each rank's slice whole groups (K tails, slices of unequal length
     * or empty), with stagger */
    "block_m=128,block_n=128,stages=3,consumers=2,raster=0,group=8,cluster=1,split=2,overlap=2",
    "block_m=64,block_n=112,stages=4,consumers=1,raster=1,group=3,cluster=1,split=4,overlap=1",
    "block_m=128,block_n=96,stages=5,consumers=2,raster=0,group=8,cluster=1,split=2,overlap=1,stagger=1",
    /* the last partial wave split in clusters: with overlap (slices of whole groups), wave,
     * shapes compiled in */
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1,overlap=2,tail=2",
    "block_m=256,block_n=112,stages=3,consumers=2,raster=0,group=8,cluster=1,wave=1,tail=2",
    "block_m=128,block_n=80,stages=4,consumers=2,raster=1,group=4,cluster=1,specialize=1,tail=4",
    /* stagger: the two consumers take turns issuing (alone, with overlap, straddling tiles,
     * 128-row consumers, a cluster) */
    "block_m=128,block_n=128,stages=4,consumers=2,raster=0,group=8,cluster=1,stagger=1",
    "block_m=128,block_n=128,stages=5,consumers=2,raster=1,group=8,cluster=1,overlap=2,stagger=1",
    "block_m=128,block_n=160,stages=3,consumers=2,raster=0,group=8,cluster=1,epilogue=1,stagger=1",
    "block_m=256,block_n=80,stages=3,consumers=2,raster=0,group=2,cluster=1,stagger=1",
    "block_m=128,block_n=96,stages=6,consumers=2,raster=0,group=8,cluster=2,overlap=3,stagger=1",
    /* wave: 128-row consumers with one temporary set, sub-tile by sub-tile (straddling tiles,
     * one consumer, ping-pong, a cluster, split-K, stagger, shapes compiled in) */
    "block_m=256,block_n=112,stages=4,consumers=2,raster=0,group=8,cluster=1,wave=1",
    "block_m=128,block_n=128,stages=5,consumers=1,raster=1,group=8,cluster=1,wave=1",
    "block_m=128,block_n=96,stages=4,consumers=2,pingpong=1,raster=0,group=8,cluster=1,wave=1",
    "block_m=256,block_n=64,stages=4,consumers=2,raster=0,group=4,cluster=2,wave=1",
    "block_m=256,block_n=64,stages=3,consumers=2,raster=0,group=8,cluster=1,split=2,wave=1",
    "block_m=256,block_n=96,stages=4,consumers=2,raster=1,group=8,cluster=1,stagger=1,wave=1",
    "block_m=128,block_n=80,stages=6,consumers=1,raster=0,group=8,cluster=1,specialize=1,wave=1",
    /* epilogue 2 with rows of two boxes (16-bit out; fp32 rows are four): one staged box a
     * consumer, alone and with a cluster and overlap */
    "block_m=128,block_n=128,stages=5,consumers=2,raster=0,group=8,cluster=1,epilogue=2",
    "block_m=128,block_n=128,stages=5,consumers=2,raster=1,group=4,cluster=2,epilogue=2,overlap=1",
};
#define BLOCK_CONFIG_COUNT ((int)(sizeof block_configs / sizeof block_configs[0]))

/* The config with block_n rounded up to an INT8 wgmma N when the problem is INT8; block-scaled
 * problems take the block configs. */
static void config_for(int index, const w8a8_problem *p, char *out, size_t size)
{
    if (p->a_scale.kind == W8A8_SCALE_BLOCK) {
        snprintf(out, size, "%s", block_configs[index % BLOCK_CONFIG_COUNT]);
        return;
    }
    snprintf(out, size, "%s", configs[index % CONFIG_COUNT]);
    if (p->a_type != W8A8_INT8)
        return;
    char *bn = strstr(out, "block_n=");
    int n = atoi(bn + 8);
    if (n > 32 && n % 16) {
        char rest[W8A8_CONFIG_BYTES];
        snprintf(rest, sizeof rest, "%s", strchr(bn, ','));
        snprintf(bn, size - (size_t)(bn - out), "block_n=%d%s", n + 8, rest);
    }
}

/* Runs one case against the reference kernel; returns whether it passed (prints if not). */
static bool check_case(const pgen_case *c, const char *config)
{
    return test_family_matches_reference(ctx, &gemm_family_sm90, c, config);
}

START_TEST(every_supported_trait_combination)
{
    test_family_each_trait(ctx, &gemm_family_sm90, SEED, config_for, "sm90", 100);
}
END_TEST

/* Fixed odd shapes, on every config, for an FP8 and an INT8 trait set. */
START_TEST(every_config_on_odd_shapes)
{
    static const int64_t shapes[][3] = {{1, 8, 16},        {7, 129, 48},      {40, 200, 1040},
                                        {90, 517, 272},   {129, 200, 1040}, {333, 517, 2064},
                                        {2000, 1000, 256}, {3000, 2000, 512}};
    enum { SHAPES = sizeof shapes / sizeof shapes[0], RUNS = 2 * SHAPES * CONFIG_COUNT };
    static w8a8_problem problems[RUNS];
    static char chosen[RUNS][W8A8_CONFIG_BYTES];
    test_prewarm *l = test_prewarm_new(ctx, &gemm_family_sm90);
    int runs = 0, failures = 0;
    for (int family = 0; family < 2; family++)
        for (int s = 0; s < SHAPES; s++)
            for (int ci = 0; ci < CONFIG_COUNT; ci++, runs++) {
                w8a8_problem *p = &problems[runs];
                bool int8 = family == 1;
                w8a8_problem_init(p, shapes[s][0], shapes[s][1], shapes[s][2],
                                  int8 ? W8A8_INT8 : W8A8_E4M3, int8 ? W8A8_FP16 : W8A8_BF16);
                p->a_scale.kind = W8A8_SCALE_ROW;
                p->b_scale.kind = W8A8_SCALE_ROW;
                p->bias_type = W8A8_FP32;
                p->azp = int8 ? W8A8_AZP_TOKEN : W8A8_AZP_NONE;
                p->ldc = test_padded_ldc(shapes[s][1]);
                config_for(ci, p, chosen[runs], sizeof chosen[runs]);
                test_prewarm_add(l, p, chosen[runs]);
            }
    test_prewarm_run(l, problems, runs);
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 1);
    for (int i = 0; i < runs; i++) {
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &problems[i], &c), W8A8_OK);
        failures += !check_case(&c, chosen[i]);
        pgen_case_destroy(&c);
    }
    printf("sm90: %d config × shape runs, %d failed\n", runs, failures);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST

/* Stages of 256 and 512 K bytes (block_k: 2 or 4 boxes of 128 K bytes side by side, fast
 * accumulation only) on odd shapes, FP8 and INT8 with zero points, bias, every out dtype:
 * K tails inside a box and boxes wholly past K (K = 16, 48, 272, 1040, 2064); cooperative,
 * one consumer, ping-pong, a 2-CTA cluster (each box's half of B multicast), staged
 * epilogues, split-K (slices of whole stages), the last wave split (tail), N and K compiled
 * in; at M <= 96 a stage's boxes of A hold only M's bucket of rows (A_ROWS). */
START_TEST(wide_k_stages_on_odd_shapes)
{
    static const char *const wide[] = {
        "block_m=128,block_n=128,block_k=256,stages=3,consumers=2,cluster=1",
        "block_m=64,block_n=96,block_k=512,stages=2,consumers=1,raster=1,group=4,epilogue=1",
        "block_m=128,block_n=64,block_k=256,stages=3,consumers=2,pingpong=1,cluster=2,epilogue=1",
        "block_m=128,block_n=48,block_k=512,stages=2,consumers=2,split=2",
        "block_m=128,block_n=128,block_k=256,stages=3,consumers=2,epilogue=2,tail=2",
        "block_m=64,block_n=112,block_k=256,stages=4,consumers=1,specialize=1",
    };
    enum { WIDE = sizeof wide / sizeof wide[0] };
    static const int64_t shapes[][3] = {{1, 8, 16},      {7, 129, 48},     {40, 200, 1040},
                                        {90, 517, 272},  {129, 200, 1040}, {333, 517, 2064},
                                        {2000, 1000, 272}};
    static const w8a8_dtype outs[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 7);
    int runs = 0, failures = 0;
    for (int int8 = 0; int8 < 2; int8++)
        for (int si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++) {
            w8a8_problem p;
            w8a8_problem_init(&p, shapes[si][0], shapes[si][1], shapes[si][2],
                              int8 ? W8A8_INT8 : (si % 3 == 2 ? W8A8_E5M2 : W8A8_E4M3),
                              outs[(si + int8) % 3]);
            p.a_scale.kind = si % 2 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
            p.b_scale.kind = si % 3 ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
            p.bias_type = si % 2 ? W8A8_FP32 : W8A8_DTYPE_NONE;
            p.azp = int8 ? (si % 2 ? W8A8_AZP_TOKEN : W8A8_AZP_TENSOR) : W8A8_AZP_NONE;
            p.ldc = test_padded_ldc(shapes[si][1]);
            failures += test_family_case_configs(ctx, &gemm_family_sm90, &rng, &p, wide, WIDE,
                                                 &runs);
        }
    printf("sm90: %d block_k config × shape runs, %d failed\n", runs, failures);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
    /* split-K's slices of whole stages sum in a fixed order */
    w8a8_problem p;
    w8a8_problem_init(&p, 29, 1000, 8208, W8A8_E4M3, W8A8_FP32);
    p.a_scale.kind = W8A8_SCALE_ROW;
    pgen_case c;
    ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
    test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm90, &c, wide + 3, 1);
    pgen_case_destroy(&c);
}
END_TEST

/* Block scales on every block config × odd shapes, cycling layouts, out dtypes and bias. */
START_TEST(block_scales_on_odd_shapes)
{
    /* the last: ~500 tiles of 128×128, several per CTA (stagger's turns carry over tiles) */
    static const int64_t shapes[][3] = {{1, 200, 2064}, {7, 517, 400},  {129, 200, 2064},
                                        {1000, 517, 400}, {129, 1032, 16}, {1000, 264, 1024},
                                        {333, 136, 4112}, {3999, 2056, 640}};
    test_family_block_shapes(ctx, &gemm_family_sm90, SEED + 2, shapes,
                             (int)(sizeof shapes / sizeof shapes[0]), block_configs,
                             BLOCK_CONFIG_COUNT, "sm90");
}
END_TEST

/* NaN in a rows × k_blocks scale matrix's padding: the entries between its inner extent and
 * its leading dimension, in every outer line. */
static void poison_padding(float *scale, const w8a8_scale_layout *l, int64_t rows,
                           int64_t k_blocks)
{
    int64_t outer = l->k_major ? k_blocks : rows, inner = l->k_major ? rows : k_blocks;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = inner; i < l->ld; i++)
            scale[o * l->ld + i] = NAN;
}

/* Block scales in each layout with NaN in the scale matrices' padding, which no kernel may
 * read: M = 1001 with A's ld padded (A rows 1001.. of every K block when K-major), K = 1296 (11
 * K blocks: a K tail; overlap 3 pads them to 16) with B's ld padded (K blocks 11.. of every
 * row when row-major). Layouts: K-major A with ld 1004 and row-major B with ld 12 (the layout
 * DeepGEMM and vLLM use; A's scales then travel as one bulk copy a stage in tiles of up to
 * 128 rows), row-major A, K-major B, A's ld 1003 (K-major, not 16-byte rows: the loaders).
 * Configs: straddling tiles (80, 112, 160 columns), a cluster, ping-pong, wave, split-K,
 * stagger, overlap. (Session 22 ran it against scales fetched by bulk copies from the
 * producer as well; bench/results-2026-11-26-s22.) */
START_TEST(block_scale_padding_is_never_read)
{
    static const char *const padding_configs[] = {
        "block_m=128,block_n=128,stages=4,consumers=2,cluster=1,overlap=3",
        "block_m=128,block_n=80,stages=3,consumers=2,cluster=2,epilogue=1",
        "block_m=256,block_n=112,stages=4,consumers=2,cluster=1,epilogue=2,wave=1",
        "block_m=64,block_n=160,stages=5,consumers=2,pingpong=1,cluster=1,epilogue=1",
        "block_m=128,block_n=64,stages=6,consumers=2,cluster=1,split=2,specialize=1",
        "block_m=128,block_n=96,stages=5,consumers=2,cluster=1,overlap=1,stagger=1",
        "block_m=128,block_n=80,stages=3,consumers=2,cluster=1,split=2,overlap=3",
    };
    static const struct {
        int a_k_major, b_k_major, a_pad, b_pad;
        const char *what;
    } layouts[] = {
        {1, 0, 3, 1, "K-major A (ld 1004), row-major B (ld 12)"},
        {0, 0, 1, 1, "row-major A"},
        {1, 1, 3, 1, "K-major B"},
        {1, 0, 2, 1, "A's ld 1003"},
    };
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 6);
    int runs = 0, failures = 0;
    for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++)
        for (size_t ci = 0; ci < sizeof padding_configs / sizeof padding_configs[0]; ci++) {
            w8a8_problem p;
            w8a8_problem_init(&p, 1001, 520, 1296, W8A8_E4M3, ci % 2 ? W8A8_FP32 : W8A8_BF16);
            pgen_block_scales(&p, layouts[li].a_k_major, layouts[li].b_k_major, 0);
            p.a_scale.ld += layouts[li].a_pad;
            p.b_scale.ld += layouts[li].b_pad;
            p.bias_type = ci % 3 == 0 ? W8A8_FP32 : W8A8_DTYPE_NONE;
            pgen_case c;
            ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
            int64_t k_blocks = (p.k + 127) / 128, n_blocks = (p.n + 127) / 128;
            poison_padding(c.a_scale, &p.a_scale, p.m, k_blocks);
            poison_padding(c.b_scale, &p.b_scale, n_blocks, k_blocks);
            bool ok = check_case(&c, padding_configs[ci]);
            if (!ok)
                printf("sm90: %s, %s differs\n", layouts[li].what, padding_configs[ci]);
            failures += !ok;
            runs++;
            pgen_case_destroy(&c);
        }
    printf("sm90: %d block-scale layout × config runs (NaN padding), %d failed\n", runs, failures);
    ck_assert_msg(failures == 0, "%d of %d runs differ from the reference", failures, runs);
}
END_TEST

/* Promoted accumulation of per-tensor / per-row FP8 (accum promoted) on the block configs
 * (the same main loop without scales) × odd shapes, cycling scale kinds, FP8 mixes, out
 * dtypes and bias; the promoted bound applies (test_accumulation_bound). */
START_TEST(promoted_accumulation_on_odd_shapes)
{
    static const int64_t shapes[][3] = {{1, 200, 2064}, {7, 517, 400}, {129, 1032, 16},
                                        {333, 136, 4112}, {3999, 2056, 640}};
    static const w8a8_dtype outs[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};
    static const w8a8_scale_kind kinds[] = {W8A8_SCALE_TENSOR, W8A8_SCALE_ROW};
    enum { SHAPES = sizeof shapes / sizeof shapes[0], RUNS = SHAPES * BLOCK_CONFIG_COUNT };
    static w8a8_problem problems[RUNS];
    test_prewarm *l = test_prewarm_new(ctx, &gemm_family_sm90);
    for (int s = 0; s < SHAPES; s++)
        for (int ci = 0; ci < BLOCK_CONFIG_COUNT; ci++) {
            int v = s + ci;
            w8a8_problem *p = &problems[s * BLOCK_CONFIG_COUNT + ci];
            w8a8_problem_init(p, shapes[s][0], shapes[s][1], shapes[s][2], W8A8_E4M3,
                              outs[v % 3]);
            p->b_type = v % 5 == 4 ? W8A8_E5M2 : W8A8_E4M3;
            p->a_scale.kind = kinds[v % 2];
            p->b_scale.kind = kinds[(v / 2) % 2];
            p->bias_type = v % 4 == 0 ? W8A8_DTYPE_NONE : v % 4 == 1 ? W8A8_FP32 : p->out_type;
            p->accum = W8A8_ACCUM_PROMOTED;
            p->ldc = test_padded_ldc(shapes[s][1]);
            ck_assert(gemm_promotes(p) && gemm_family_sm90.supports(ctx, p));
            test_prewarm_add(l, p, block_configs[ci]);
        }
    test_prewarm_run(l, problems, RUNS);
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 4);
    int runs = 0, failures = 0;
    for (int i = 0; i < RUNS; i++, runs++) {
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &problems[i], &c), W8A8_OK);
        failures += !check_case(&c, block_configs[i % BLOCK_CONFIG_COUNT]);
        pgen_case_destroy(&c);
    }
    printf("sm90: %d promoted config × shape runs, %d failed\n", runs, failures);
    ck_assert_msg(failures == 0, "%d of %d promoted runs differ from the reference", failures,
                  runs);
}
END_TEST

/* What promotion is for: on a long K the promoted kernel's max error (relative to max |ref|,
 * fp32 out) is within the promoted bound and at least 4× smaller than the same config's with
 * fast accumulation, on the same data. Both are printed. */
START_TEST(promoted_accumulation_is_more_accurate)
{
    static const char *const config = "block_m=128,block_n=128,stages=4,consumers=2,cluster=1";
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 5);
    for (int row = 0; row < 2; row++) {
        w8a8_problem p;
        w8a8_problem_init(&p, 384, 1024, 16384, W8A8_E4M3, W8A8_FP32);
        p.a_scale.kind = p.b_scale.kind = row ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
        unsigned char *want = malloc(c.out_bytes), *got = malloc(c.out_bytes);
        ck_assert(want && got);
        ck_assert_int_eq(pgen_run_reference_gpu(ctx, &c, want), W8A8_OK);
        pgen_result r[2];
        for (int promoted = 0; promoted < 2; promoted++) {
            pgen_case run = c; /* the same buffers and data; only the problem's accum differs */
            run.problem.accum = promoted ? W8A8_ACCUM_PROMOTED : W8A8_ACCUM_FAST;
            w8a8_status st = pgen_run_family_gpu(ctx, &gemm_family_sm90, &run, config, got);
            ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
            pgen_compare(&run.problem, got, want, &r[promoted]);
            ck_assert_int_eq(r[promoted].bad_values, 0);
        }
        printf("sm90: 384x1024x16384 %s scales: max error / max |ref| fast %.3e, promoted "
               "%.3e\n", row ? "per-row" : "per-tensor", r[0].rel_error, r[1].rel_error);
        p.accum = W8A8_ACCUM_PROMOTED;
        ck_assert_double_le(r[1].rel_error, test_accumulation_bound(&p, r[1].tolerance));
        ck_assert_msg(4.0 * r[1].rel_error < r[0].rel_error,
                      "promoted %.3e is not 4x below fast %.3e", r[1].rel_error, r[0].rel_error);
        free(want);
        free(got);
        pgen_case_destroy(&c);
    }
}
END_TEST

START_TEST(invalid_configs_are_refused)
{
    static const struct {
        const char *config;
        w8a8_dtype type;
    } bad[] = {
        {"block_m=128,block_n=40,stages=4,consumers=2", W8A8_INT8},     /* no INT8 wgmma N */
        {"block_m=96,block_n=128,stages=4,consumers=1", W8A8_E4M3},     /* block_m */
        {"block_m=256,block_n=128,stages=4,consumers=1", W8A8_E4M3},    /* 256 rows / 1 wg */
        {"block_m=128,block_n=264,stages=4,consumers=2", W8A8_E4M3},    /* > 256 */
        {"block_m=256,block_n=256,stages=4,consumers=2", W8A8_E4M3},    /* registers */
        {"block_m=128,block_n=256,stages=12,consumers=2", W8A8_E4M3},   /* shared memory */
        {"block_m=128,block_n=128,stages=1,consumers=2", W8A8_E4M3},    /* stages */
        {"block_m=128,block_n=128,wrong=1", W8A8_E4M3},                 /* unknown item */
        {"block_m=128,block_n=128,consumers=1,pingpong=1", W8A8_E4M3},  /* pingpong: 2 wgs */
        {"block_m=256,block_n=128,consumers=2,pingpong=1", W8A8_E4M3},  /* 256 rows / wg */
        {"block_m=128,block_n=24,cluster=2", W8A8_E4M3},                /* half of B: 12 rows */
        {"block_m=128,block_n=128,cluster=3", W8A8_E4M3},               /* cluster */
        {"block_m=128,block_n=128,epilogue=3", W8A8_E4M3},              /* epilogue */
        {"block_m=128,block_n=64,consumers=2,epilogue=2", W8A8_E4M3},   /* one box a row */
        {"block_m=128,block_n=24,consumers=2,epilogue=2", W8A8_E4M3},   /* 16-byte boxes */
        {"block_m=128,block_n=256,stages=4,consumers=2,epilogue=1", W8A8_E4M3}, /* staging */
        {"block_m=128,block_n=128,stages=4,consumers=2,split=3", W8A8_E4M3},    /* split */
        {"block_m=128,block_n=128,stages=4,consumers=2,cluster=2,split=2", W8A8_E4M3},
        {"block_m=128,block_n=128,stages=4,consumers=2,pingpong=1,split=2", W8A8_E4M3},
        {"block_m=128,block_n=256,stages=4,consumers=2,split=2", W8A8_E4M3}, /* partials */
        {"block_m=128,block_n=128,stages=4,consumers=2,specialize=2", W8A8_E4M3},
        {"block_m=128,block_n=128,stages=4,consumers=2,evict=2", W8A8_E4M3},  /* evict */
        {"block_m=128,block_n=128,stages=4,consumers=2,trigger=2", W8A8_E4M3}, /* trigger */
        {"block_m=128,block_n=128,stages=4,consumers=2,cluster=2,evict=1", W8A8_E4M3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        w8a8_problem p;
        w8a8_problem_init(&p, 256, 256, 256, bad[i].type, W8A8_BF16);
        gemm_plan plan;
        w8a8_status st = gemm_family_sm90.plan(ctx, &p, bad[i].config, &plan);
        ck_assert_msg(st == W8A8_INVALID, "%s: %s", bad[i].config, w8a8_status_string(st));
    }
    /* block scales: only A 1×128 with B 128×128, FP8 */
    w8a8_problem p;
    w8a8_problem_init(&p, 256, 256, 256, W8A8_E4M3, W8A8_BF16);
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 128, 0, 0};
    ck_assert(!gemm_family_sm90.supports(ctx, &p)); /* B per-tensor */
    pgen_block_scales(&p, 1, 0, 0);
    ck_assert(gemm_family_sm90.supports(ctx, &p));
    p.b_scale.group_rows = 64;
    ck_assert(!gemm_family_sm90.supports(ctx, &p));
    pgen_block_scales(&p, 0, 0, 0);
    p.a_scale.group_k = p.b_scale.group_k = 64;
    ck_assert(!gemm_family_sm90.supports(ctx, &p));
    /* doubled accumulators: legal without block scales, too many registers with them; overlap:
     * a third set fits 128×128 of two 64-row consumers, not 128×144, with a split too;
     * stagger: two cooperative consumers; wave: one temporary 64-row set beside 128 rows of
     * accumulators, not with overlap nor 64-row consumers (256×128 of two consumers does not
     * fit, one-consumer 128×128 and 256×112 do) */
    static const struct {
        const char *config;
        w8a8_status want;
    } block_plans[] = {
        {"block_m=128,block_n=128,consumers=2,pingpong=1", W8A8_INVALID},
        {"block_m=128,block_n=256,consumers=2", W8A8_INVALID},
        {"block_m=128,block_n=144,consumers=2,overlap=1", W8A8_INVALID},
        {"block_m=128,block_n=128,stages=3,consumers=2,overlap=1,split=2", W8A8_OK},
        {"block_m=128,block_n=128,consumers=2,overlap=6", W8A8_INVALID},
        {"block_m=128,block_n=112,consumers=2,overlap=4", W8A8_INVALID}, /* straddles */
        {"block_m=128,block_n=128,consumers=2,overlap=5", W8A8_OK},
        {"block_m=128,block_n=128,consumers=2,overlap=3", W8A8_OK},
        {"block_m=64,block_n=128,consumers=2,pingpong=1,stagger=1", W8A8_INVALID},
        {"block_m=64,block_n=128,consumers=1,stagger=1", W8A8_INVALID},
        {"block_m=256,block_n=128,consumers=2,wave=1", W8A8_INVALID},
        {"block_m=128,block_n=128,consumers=2,wave=1", W8A8_INVALID},
        {"block_m=128,block_n=128,consumers=1,overlap=1,wave=1", W8A8_INVALID},
        {"block_m=128,block_n=128,consumers=1,wave=2", W8A8_INVALID},
        {"block_m=128,block_n=128,consumers=1,wave=1", W8A8_OK},
        {"block_m=256,block_n=112,stages=3,consumers=2,wave=1", W8A8_OK},
    };
    pgen_block_scales(&p, 0, 0, 0);
    gemm_plan plan;
    w8a8_status st;
    for (size_t i = 0; i < sizeof block_plans / sizeof block_plans[0]; i++) {
        st = gemm_family_sm90.plan(ctx, &p, block_plans[i].config, &plan);
        ck_assert_msg(st == block_plans[i].want, "%s with block scales: %s (%s)",
                      block_plans[i].config, w8a8_status_string(st), w8a8_errmsg(ctx));
    }
    /* and nothing to overlap without promotion: per-tensor FP8 with fast accumulation, and
     * INT8 (exact sums: accum promoted changes nothing there) */
    w8a8_problem_init(&p, 256, 256, 256, W8A8_E4M3, W8A8_BF16);
    st = gemm_family_sm90.plan(ctx, &p, "block_m=128,block_n=128,consumers=2,overlap=1", &plan);
    ck_assert_msg(st == W8A8_INVALID, "overlap per-tensor: %s", w8a8_status_string(st));
    st = gemm_family_sm90.plan(ctx, &p, "block_m=128,block_n=128,consumers=2,stagger=1", &plan);
    ck_assert_msg(st == W8A8_INVALID, "stagger per-tensor: %s", w8a8_status_string(st));
    st = gemm_family_sm90.plan(ctx, &p, "block_m=128,block_n=128,consumers=1,wave=1", &plan);
    ck_assert_msg(st == W8A8_INVALID, "wave per-tensor: %s", w8a8_status_string(st));
    w8a8_problem_init(&p, 256, 256, 256, W8A8_INT8, W8A8_BF16);
    p.accum = W8A8_ACCUM_PROMOTED;
    st = gemm_family_sm90.plan(ctx, &p, "block_m=128,block_n=128,consumers=2,overlap=1", &plan);
    ck_assert_msg(st == W8A8_INVALID, "overlap INT8 promoted: %s", w8a8_status_string(st));
    /* promoted per-tensor FP8: a temporary set like block scales (128×256 does not fit) */
    w8a8_problem_init(&p, 256, 256, 256, W8A8_E4M3, W8A8_BF16);
    p.accum = W8A8_ACCUM_PROMOTED;
    st = gemm_family_sm90.plan(ctx, &p, "block_m=128,block_n=256,consumers=2", &plan);
    ck_assert_msg(st == W8A8_INVALID, "128×256 promoted: %s", w8a8_status_string(st));
    st = gemm_family_sm90.plan(ctx, &p, "block_m=128,block_n=128,consumers=2,overlap=1", &plan);
    ck_assert_msg(st == W8A8_OK, "overlap per-tensor promoted: %s", w8a8_errmsg(ctx));
    /* a plan made at M = 16 loads 16 rows of A a stage: running it at M = 20 is refused before
     * anything is launched or read */
    w8a8_problem_init(&p, 16, 256, 256, W8A8_E4M3, W8A8_BF16);
    st = gemm_family_sm90.plan(ctx, &p, "block_m=64,block_n=64,stages=4,consumers=1", &plan);
    ck_assert_msg(st == W8A8_OK, "64x64 at M = 16: %s", w8a8_errmsg(ctx));
    p.m = 20;
    w8a8_tensors none;
    memset(&none, 0, sizeof none);
    st = gemm_family_sm90.run(ctx, &plan, &p, &none, NULL);
    ck_assert_msg(st == W8A8_INVALID && strstr(w8a8_errmsg(ctx), "16 rows of A"),
                  "M = 20 on an M = 16 plan: %s (%s)", w8a8_status_string(st), w8a8_errmsg(ctx));
}
END_TEST

/* Split-K sums the K slices in a fixed order: two runs of a split config (per-row, and
 * block-scaled alone and with overlap; K not a multiple of 4 K blocks) give the same bytes. */
START_TEST(split_k_is_bitwise_deterministic)
{
    static const char *const split_configs[] = {
        "block_m=64,block_n=96,stages=6,consumers=1,cluster=1,epilogue=1,split=4",
        "block_m=128,block_n=128,stages=4,consumers=2,cluster=1,split=4",
        "block_m=128,block_n=128,stages=3,consumers=2,cluster=1,split=2,overlap=2",
    };
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 3);
    for (size_t i = 0; i < sizeof split_configs / sizeof split_configs[0]; i++) {
        const int block = i > 0; /* the first is per-row */
        w8a8_problem p;
        w8a8_problem_init(&p, 200, 1000, 4112, W8A8_E4M3, W8A8_FP32);
        if (block)
            pgen_block_scales(&p, 1, 0, 0);
        else
            p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_ROW;
        const char *config = split_configs[i];
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
        ck_assert(check_case(&c, config));
        test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm90, &c, &config, 1);
        pgen_case_destroy(&c);
    }
}
END_TEST

/* The last partial wave split in clusters (tail=2, 4): shapes of tiles = 2 · C + rest on the
 * grid's C CTAs (from the plan: the device's SMs), with rests the host splits (1, 5, C / tail:
 * a tile a cluster) and one it does not (C / tail + 1), one tile-row of 128 (M = 100) and
 * three (M = 333), K with a partial last block and slices of unequal length; per-row FP8, INT8 with per-token
 * zero points and block scales with overlap 1 (slices of whole groups of two K blocks). Each
 * against the reference, and two runs bitwise equal. */
START_TEST(tail_splits_the_last_wave)
{
    static const char *const tail_configs[] = {
        "block_m=128,block_n=128,stages=4,consumers=2,cluster=1,epilogue=1,tail=2",
        "block_m=128,block_n=128,stages=4,consumers=2,cluster=1,overlap=1,tail=2",
        "block_m=128,block_n=64,stages=4,consumers=2,cluster=1,tail=4",
    };
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 6);
    int runs = 0, failures = 0, split = 0, whole = 0;
    for (int kind = 0; kind < 3; kind++) {
        const char *config = tail_configs[kind];
        for (int r = 0; r < 4; r++) {
            const int64_t m = r % 2 ? 333 : 100, k = kind == 1 ? 1040 : 656;
            const int64_t block_n = kind == 2 ? 64 : 128, tiles_m = (m + 127) / 128;
            w8a8_problem p;
            /* first as many tiles as fill the grid, for its CTA count */
            w8a8_problem_init(&p, m, 65536, k, kind == 2 ? W8A8_INT8 : W8A8_E4M3,
                              kind == 2 ? W8A8_FP16 : W8A8_BF16);
            if (kind == 1) {
                pgen_block_scales(&p, 1, 0, 0);
            } else {
                p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_ROW;
                p.bias_type = W8A8_FP32;
                p.azp = kind == 2 ? W8A8_AZP_TOKEN : W8A8_AZP_NONE;
            }
            gemm_plan plan;
            ck_assert_msg(gemm_family_sm90.plan(ctx, &p, config, &plan) == W8A8_OK, "%s: %s",
                          config, w8a8_errmsg(ctx));
            const int64_t tail = plan.launch.cluster[0], ctas = plan.launch.grid[0];
            /* rests the host splits, and one it does not (more than a tile a cluster) */
            const int64_t rests[4] = {1, 5, ctas / tail, ctas / tail + 1};
            const int64_t tiles = 2 * ctas + rests[r];
            const int64_t tiles_n = (tiles + tiles_m - 1) / tiles_m;
            p.n = tiles_n * block_n - 24; /* the last tile column ragged */
            const int64_t units = tiles_m * tiles_n;
            p.ldc = test_padded_ldc(p.n);
            if (kind == 1)
                pgen_block_scales(&p, 1, 0, 0); /* B's scale matrix for this N */
            ck_assert_msg(gemm_family_sm90.plan(ctx, &p, config, &plan) == W8A8_OK, "%s: %s",
                          config, w8a8_errmsg(ctx));
            ck_assert_uint_eq(plan.launch.grid[0], (unsigned)ctas);
            const int64_t group_k = kind == 1 ? 256 : 128; /* overlap 1: groups of 2 blocks */
            const int64_t groups = (k + group_k - 1) / group_k;
            const int64_t first = sm90_tail_whole(units, ctas, tail, groups);
            const bool splits = first < units;
            ck_assert_msg(splits == (units % ctas * tail <= ctas),
                          "%s: %lld tiles on %lld CTAs: %lld whole", config, (long long)units,
                          (long long)ctas, (long long)first);
            split += splits;
            whole += !splits;
            pgen_case c;
            ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
            failures += !check_case(&c, config);
            test_family_runs_are_bitwise_equal(ctx, &gemm_family_sm90, &c, &config, 1);
            runs++;
            pgen_case_destroy(&c);
        }
    }
    printf("sm90: %d tail runs (%d with the last wave split, %d whole), %d failed\n", runs,
           split, whole, failures);
    ck_assert_int_gt(split, 0);
    ck_assert_int_gt(whole, 0);
    ck_assert_msg(failures == 0, "%d of %d tail runs differ from the reference", failures, runs);
}
END_TEST

/* A row's (column's) values do not depend on M (N). A last tile that would run past M or N
 * moves back inside (sm90_tile_start) and computes and stores again rows the tile before it
 * has stored: both stores must be bitwise the values those rows get where no tile moves. Each
 * config runs a 256×1024 problem, then its leading 201×1000 corner (the same inputs and
 * strides; its last tiles moved back, by 4-row steps with block scales, 8-column steps along
 * N), and the corner's outputs must equal the whole problem's byte for byte: per-row FP8,
 * INT8 with per-token zero points, and block scales with K-major A scales at a 16-byte
 * aligned pitch (the bulk copy) and a padded one (cp.async). */
START_TEST(moved_tiles_store_the_same_bits)
{
    static const int64_t whole[3] = {256, 1024, 1040}, corner_m = 201, corner_n = 1000;
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 5);
    int runs = 0, failures = 0;
    for (int kind = 0; kind < 4; kind++) {
        w8a8_problem p;
        if (kind >= 2) {
            test_block_problem(&p, whole, kind == 2 ? 3 : 1); /* A scales' ld 256, or 258 */
        } else {
            w8a8_problem_init(&p, whole[0], whole[1], whole[2], kind ? W8A8_INT8 : W8A8_E4M3,
                              kind ? W8A8_FP16 : W8A8_BF16);
            p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_ROW;
            p.bias_type = W8A8_FP32;
            p.azp = kind ? W8A8_AZP_TOKEN : W8A8_AZP_NONE;
            p.ldc = test_padded_ldc(whole[1]);
        }
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
        pgen_case part = c; /* the same host buffers: rows and columns from the first */
        part.problem.m = corner_m;
        part.problem.n = corner_n;
        const size_t elem = w8a8_dtype_size(p.out_type), row_bytes = (size_t)p.ldc * elem;
        part.out_bytes = (size_t)corner_m * row_bytes;
        unsigned char *all = malloc(c.out_bytes), *sub = malloc(part.out_bytes);
        ck_assert(all && sub);
        const int count = kind >= 2 ? BLOCK_CONFIG_COUNT : CONFIG_COUNT;
        for (int ci = 0; ci < count; ci++) {
            char config[W8A8_CONFIG_BYTES];
            config_for(ci, &p, config, sizeof config);
            w8a8_status st = pgen_run_family_gpu(ctx, &gemm_family_sm90, &c, config, all);
            ck_assert_msg(st == W8A8_OK, "%s: %s", config, w8a8_errmsg(ctx));
            st = pgen_run_family_gpu(ctx, &gemm_family_sm90, &part, config, sub);
            ck_assert_msg(st == W8A8_OK, "%s (corner): %s", config, w8a8_errmsg(ctx));
            int64_t bad_rows = 0;
            for (int64_t r = 0; r < corner_m; r++)
                bad_rows += memcmp(sub + r * row_bytes, all + r * row_bytes,
                                   (size_t)corner_n * elem) != 0;
            if (bad_rows) {
                printf("FAIL kind %d [%s]: %lld of %lld corner rows differ from the whole "
                       "problem's\n", kind, config, (long long)bad_rows, (long long)corner_m);
                failures++;
            }
            runs++;
        }
        free(all);
        free(sub);
        pgen_case_destroy(&c);
    }
    printf("sm90: %d config × problem runs of a corner against its whole, %d failed\n", runs,
           failures);
    ck_assert_msg(failures == 0, "%d of %d corners differ from their whole problem", failures,
                  runs);
}
END_TEST

/* Persistent grids: one CTA per SM without clusters; with cluster=2 an even count of CTAs,
 * as many pairs as the driver says run at once (printed), never more than the SMs; small
 * problems get one CTA (pair) per tile (unit) and no more. */
START_TEST(persistent_grids)
{
    w8a8_device_info info;
    ck_assert_int_eq(w8a8_context_device_info(ctx, &info), W8A8_OK);
    static const char *const cases[] = {
        "block_m=128,block_n=128,stages=4,consumers=2,pingpong=1,cluster=1",
        "block_m=128,block_n=128,stages=4,consumers=2,pingpong=1,cluster=2",
        "block_m=128,block_n=176,stages=4,consumers=2,cluster=2,epilogue=1",
        "block_m=128,block_n=128,stages=4,consumers=2,cluster=1,split=2", /* 2 CTAs a tile */
        /* 4 CTAs a tile: a cluster stays in one GPC, so fewer than SMs / 4 may run at once
         * (the grid printed here is what scripts/sm90_gemm.lua's cost model assumes) */
        "block_m=128,block_n=128,stages=4,consumers=2,cluster=1,split=4",
        /* the last wave split in clusters of 2 (tail) */
        "block_m=128,block_n=128,stages=4,consumers=2,cluster=1,tail=2",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const unsigned per = strstr(cases[i], "split=4") ? 4u : 2u; /* CTAs a cluster */
        bool cluster = strstr(cases[i], "cluster=2") != NULL || strstr(cases[i], "split=") ||
                       strstr(cases[i], "tail=");
        w8a8_problem p;
        w8a8_problem_init(&p, 8192, 8192, 8192, W8A8_E4M3, W8A8_BF16);
        gemm_plan plan;
        ck_assert_msg(gemm_family_sm90.plan(ctx, &p, cases[i], &plan) == W8A8_OK, "%s: %s",
                      cases[i], w8a8_errmsg(ctx));
        unsigned grid = plan.launch.grid[0];
        printf("sm90: %s on %d SMs: grid %u, cluster %u\n", cases[i], info.sm_count, grid,
               plan.launch.cluster[0]);
        ck_assert_uint_le(grid, (unsigned)info.sm_count);
        ck_assert_uint_eq(plan.launch.cluster[0], cluster ? per : 1u);
        if (cluster)
            ck_assert_msg(grid % per == 0 && grid >= per, "grid %u", grid);
        else
            ck_assert_uint_eq(grid, (unsigned)info.sm_count);
        /* 3 tile-rows × 2 tile-columns: 6 tiles, or 2 × 2 units of two */
        w8a8_problem_init(&p, 300, 200, 256, W8A8_E4M3, W8A8_BF16);
        ck_assert(gemm_family_sm90.plan(ctx, &p, cases[i], &plan) == W8A8_OK);
        ck_assert_uint_eq(plan.launch.grid[0],
                          cluster ? (strstr(cases[i], "split=") || strstr(cases[i], "tail=")
                                         ? 3u * 2u * per
                                         : 2u * 2u * 2u)
                                  : 3u * 2u);
    }
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("gpu_sm90");
    /* No ck_assert outside a test: Check cannot report it there. */
    w8a8_status st = w8a8_context_open(&ctx, NULL);
    w8a8_device_info info;
    if (st == W8A8_OK)
        st = w8a8_context_device_info(ctx, &info);
    if (st != W8A8_OK) {
        printf("gpu_sm90: context: %s: %s\n", w8a8_status_string(st), w8a8_errmsg(ctx));
        w8a8_context_close(ctx);
        return 1;
    }
    if (info.cc_major != 9 || info.cc_minor != 0) {
        printf("gpu_sm90: skipped: %s is compute capability %d.%d, sm_90a needs 9.0\n", info.name,
               info.cc_major, info.cc_minor);
        w8a8_context_close(ctx);
        return TEST_SKIP_CODE;
    }
    Suite *s = suite_create("gpu_sm90");
    /* scripts/gpu-session.sh runs each tcase in its own process (SM90_TCASES there: keep it
     * in step with the tcases below). CK_RUN_CASE=block runs the config checks and the
     * block-scaled configs alone, CK_RUN_CASE=promoted the promoted per-tensor / per-row
     * configs (one tcase, the two together, ran past 420 s on an H200 in session 36). */
    TCase *block = tcase_create("block");
    tcase_set_timeout(block, 1200);
    tcase_add_test(block, invalid_configs_are_refused);
    tcase_add_test(block, block_scales_on_odd_shapes);
    tcase_add_test(block, block_scale_padding_is_never_read);
    suite_add_tcase(s, block);
    TCase *promoted = tcase_create("promoted");
    tcase_set_timeout(promoted, 1200);
    tcase_add_test(promoted, promoted_accumulation_on_odd_shapes);
    tcase_add_test(promoted, promoted_accumulation_is_more_accurate);
    suite_add_tcase(s, promoted);
    TCase *tc = tcase_create("gpu_sm90");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, every_supported_trait_combination);
    tcase_add_test(tc, every_config_on_odd_shapes);
    tcase_add_test(tc, split_k_is_bitwise_deterministic);
    suite_add_tcase(s, tc);
    TCase *wide = tcase_create("wide"); /* CK_RUN_CASE=wide: 256- and 512-byte stages */
    tcase_set_timeout(wide, 600);
    tcase_add_test(wide, wide_k_stages_on_odd_shapes);
    suite_add_tcase(s, wide);
    TCase *tail = tcase_create("tail"); /* CK_RUN_CASE=tail: the last wave split */
    tcase_set_timeout(tail, 600);
    tcase_add_test(tail, tail_splits_the_last_wave);
    suite_add_tcase(s, tail);
    TCase *shift = tcase_create("shift"); /* CK_RUN_CASE=shift: moved last tiles */
    tcase_set_timeout(shift, 1200);
    tcase_add_test(shift, moved_tiles_store_the_same_bits);
    suite_add_tcase(s, shift);
    TCase *plans = tcase_create("plan"); /* CK_RUN_CASE=plan runs it alone, in a second */
    tcase_add_test(plans, persistent_grids);
    suite_add_tcase(s, plans);
    int status = test_run_suite(s);
    w8a8_context_close(ctx);
    return status;
}
