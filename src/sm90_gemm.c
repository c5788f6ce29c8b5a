/* The Hopper GEMM family: host side of templates/sm90_gemm.cuh (tuning spaces
 * scripts/sm90_gemm.lua and, for swap=1, scripts/sm90_swap.lua). Parses a config
 * ("block_m=128,block_n=256,stages=4,…"), compiles the sm_90a kernel for the problem's traits,
 * and per call gets the TMA tensor maps of A, B (exchanged with swap=1: the weights become the
 * kernel's tile rows) and (epilogue 1 or 2, when the output allows it) the output from jit_tensor_map_encode (the
 * driver encodes a map once per thread and arguments; later calls copy it), fills the
 * argument block and launches a persistent grid: min(tiles, SM count) CTAs, or with cluster=2
 * two CTAs per cluster (split=S: S CTAs per cluster, one K slice each; tail=T: T CTAs per
 * cluster, splitting only the last partial wave's tiles), as many clusters as the device runs
 * at once. Runs on compute capability 9.0 only. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

#define SM90_TEMPLATE "sm90_gemm"
#define SM90_ENTRY "w8a8_sm90_gemm"
#define SM90_ARCH "sm_90a"
#define SM90_CC_MAJOR 9
#define SM90_CC_MINOR 0

/* Must match the template: K bytes of a TMA box (a stage holds block_k / 128 of them side by
 * side), the per-stage and turn barriers, its alignment slack, the warpgroup size, and the
 * setmaxnreg budget of its consumers. */
#define SM90_BLOCK_K_BYTES 128u
#define SM90_BARRIER_BYTES 16u
#define SM90_TURN_BARRIER_BYTES 16u
#define SM90_SPLIT_BARRIER_BYTES 32u /* split > 1: a ready and a free barrier per consumer */
#define SM90_B_SCALE_AREA_BYTES 16u  /* block scales: a stage's B scales, after its A scales */
#define SM90_ALIGN_SLACK 1024u
#define SM90_WARPGROUP 128u
#define SM90_REG_OVERHEAD 40
/* Block scales: the consumers hold a second accumulator set (promoted accumulation; overlap
 * 1..5: a third) and the scales of the K block they promote. */
#define SM90_BLOCK_SCALE_REGS 16
/* overlap 1..5: what a consumer needs beside its three sets, plus 8 per 64 rows. Measured with
 * NVRTC (CUDA 13): 128x128 tiles of two 64-row consumers (3 x 64 accumulators) compile clean
 * at every overlap (with overlap 3, stagger 1 and 4 stages some spill: the compile rejects
 * those); 128x144 (3 x 72), one-consumer 64x144 and ping-pong 128x64 (3 x 64, 128 rows)
 * spill. */
#define SM90_OVERLAP_OVERHEAD 32
/* wave=1: what a consumer needs beside its main set and one 64-row sub-tile's temporary set.
 * Measured with NVRTC (CUDA 13.0), block scales, two 128-row consumers: 256x128 compiles clean
 * with epilogue 1 or 2 (epilogue 0 spills 20 bytes), 256x144 clean with N and K at run time
 * and 16 bytes of spills with them compiled in (the tuner's compile rejects a config that
 * spills); one-consumer 128x160 (past this budget) spilled. */
#define SM90_WAVE_OVERHEAD 16
#define SM90_REGS_ONE_CONSUMER 255
#define SM90_REGS_TWO_CONSUMERS 232
#define SM90_TMA_BOX_MAX 256
#define SM90_MAX_STAGES 16
#define SM90_MAX_GROUP 64
/* The kernel counts tiles and TMA coordinates in int32. */
#define SM90_DIM_MAX ((int64_t)1 << 31)

/* TMA stores need the output address, row pitch and row length in multiples of 16 bytes. */
#define SM90_TMA_ALIGN 16

/* plan->ints slots */
enum {
    SM90_I_BLOCK_M, SM90_I_BLOCK_N, SM90_I_CLUSTER, SM90_I_MAX_CLUSTERS, SM90_I_EPILOGUE,
    SM90_I_WG_M, SM90_I_SPLIT, SM90_I_RASTER, SM90_I_GROUP, SM90_I_SWAP, SM90_I_A_ROWS,
    SM90_I_TAIL, SM90_I_GROUP_K, SM90_I_TRIGGER
};

typedef struct sm90_config {
    int block_m, block_n, block_k, stages, consumers, pingpong, raster, group, cluster, epilogue;
    int split, specialize, overlap, stagger, wave, swap, evict, tail, trigger;
} sm90_config;

/* In the space's parameter order; the canonical config string follows it. raster and group
 * only order the tiles, trigger only when the next kernel may launch (the template's launch
 * arguments): the configs that differ only there share one cubin (a tuning run compiles it
 * once and times all eight, and the finalists again with trigger=1, the space's variant). */
static const gemm_param sm90_params[] = {
    {"block_m", offsetof(sm90_config, block_m), 128, false},
    {"block_n", offsetof(sm90_config, block_n), 128, false},
    {"block_k", offsetof(sm90_config, block_k), SM90_BLOCK_K_BYTES, false},
    {"stages", offsetof(sm90_config, stages), 6, false},
    {"consumers", offsetof(sm90_config, consumers), 2, false},
    {"pingpong", offsetof(sm90_config, pingpong), 0, false},
    {"raster", offsetof(sm90_config, raster), 0, true},
    {"group", offsetof(sm90_config, group), 8, true},
    {"cluster", offsetof(sm90_config, cluster), 1, false},
    {"epilogue", offsetof(sm90_config, epilogue), 0, false},
    {"split", offsetof(sm90_config, split), 1, false},
    {"specialize", offsetof(sm90_config, specialize), 0, false},
    {"overlap", offsetof(sm90_config, overlap), 0, false},
    {"stagger", offsetof(sm90_config, stagger), 0, false},
    {"wave", offsetof(sm90_config, wave), 0, false},
    {"swap", offsetof(sm90_config, swap), 0, false},
    {"evict", offsetof(sm90_config, evict), 0, false},
    {"tail", offsetof(sm90_config, tail), 1, false},
    {"trigger", offsetof(sm90_config, trigger), 0, true},
};
#define SM90_PARAM_COUNT (sizeof sm90_params / sizeof sm90_params[0])

/* Promoted accumulation (a temporary accumulator set per K block): block scales, and FP8
 * per-tensor / per-row with W8A8_ACCUM_PROMOTED. */
static bool sm90_promoted(const w8a8_problem *problem)
{
    return problem->a_scale.kind == W8A8_SCALE_BLOCK ||
           problem->b_scale.kind == W8A8_SCALE_BLOCK || gemm_promotes(problem);
}

static bool sm90_supports(const w8a8_context *ctx, const w8a8_problem *problem)
{
    if (ctx->has_device && (ctx->cc_major != SM90_CC_MAJOR || ctx->cc_minor != SM90_CC_MINOR))
        return false;
    if (gemm_tensor_core_operands(problem) == GEMM_OPERANDS_UNSUPPORTED)
        return false;
    return problem->m < SM90_DIM_MAX && problem->n < SM90_DIM_MAX && problem->k < SM90_DIM_MAX;
}

static unsigned sm90_out_bytes(const w8a8_problem *problem)
{
    return problem->out_type == W8A8_FP32 ? 4u : 2u;
}

/* Rows of a tile per consumer warpgroup: the whole tile in ping-pong, a share otherwise. */
static int sm90_wg_m(const sm90_config *c)
{
    return c->pingpong ? c->block_m : c->block_m / (c->consumers ? c->consumers : 1);
}

/* The output box of epilogue 1 and 2: the widest of 128/64/32/16 bytes dividing a tile row,
 * and the swizzle that matches it (the template's SM90_C_BOX_BYTES, SM90_C_SWIZZLE_BITS). */
static unsigned sm90_c_box_bytes(int block_n, const w8a8_problem *problem)
{
    unsigned row = (unsigned)block_n * sm90_out_bytes(problem);
    return row % 128 == 0 ? 128u : row % 64 == 0 ? 64u : row % 32 == 0 ? 32u : 16u;
}

/* The staging of epilogue 1 (each consumer's rows of the tile in the out dtype) or 2 (two
 * output boxes of them per consumer, one when a tile row is two boxes: the template's
 * SM90_C_SLOTS); 0 without. */
static unsigned sm90_staging_bytes(const sm90_config *c, const w8a8_problem *problem)
{
    unsigned rows = (unsigned)c->consumers * (unsigned)sm90_wg_m(c);
    unsigned row_bytes = (unsigned)c->block_n * sm90_out_bytes(problem);
    unsigned box = sm90_c_box_bytes(c->block_n, problem);
    unsigned slots = row_bytes / box > 2 ? 2u : 1u;
    return c->epilogue == 1   ? rows * row_bytes
           : c->epilogue == 2 ? rows * slots * box
                              : 0u;
}

/* The rows of A a stage loads when fewer than the tile's (the template's A_ROWS): for M <= 96,
 * M's bucket (gemm_m_bucket: 8, 16, 24, 32, 48, 64 or 96; at least 8, whole 1024-byte swizzle
 * atoms), which holds every M of the bucket, so a plan made for one M of a key serves the key;
 * 0 (the whole tile) when that is not below block_m, at larger M, with swap and with tail > 1
 * (whose partial sums need the whole ring: sm90_config_check). TMA then skips
 * the rows past M that it would zero-fill: on an H200 the 64x80 config of 16x10240x8192 ran
 * 24.5 -> 22.5 us (bench/results-2026-11-27-s27, D7, D8). */
static int sm90_a_rows(const sm90_config *c, const w8a8_problem *problem)
{
    if (c->swap || c->tail > 1 || problem->m > 96)
        return 0;
    int64_t rows = gemm_m_bucket(problem->m);
    if (rows < 8)
        rows = 8;
    return rows < c->block_m ? (int)rows : 0;
}

/* The ring, the epilogue staging (sm90_staging_bytes), split > 1's partial sums (each
 * consumer's rows × block_n × 4 bytes), the barriers, block scales' per-stage scale areas
 * (block_m A scales and 16 bytes of B scales; swap: block_n token scales and 16 bytes of weight
 * scales) and the alignment slack; as SM90_SMEM_BYTES in the template (with sm90_a_rows, a
 * stage holds that many rows of A, and the ring ends with the rest of one tile's). */
static unsigned sm90_smem_bytes(const sm90_config *c, const w8a8_problem *problem)
{
    unsigned rows = (unsigned)c->consumers * (unsigned)sm90_wg_m(c);
    unsigned staging = sm90_staging_bytes(c, problem);
    /* tail > 1 hands its partial sums over in the ring (sm90_config_check): its barriers */
    unsigned partials = c->split > 1   ? rows * (unsigned)c->block_n * 4u + SM90_SPLIT_BARRIER_BYTES
                        : c->tail > 1 ? SM90_SPLIT_BARRIER_BYTES
                                      : 0u;
    /* swap: the tile's token scales (its columns), then the weight blocks' (the 16 bytes) */
    unsigned scaled = (unsigned)(c->swap ? c->block_n : c->block_m);
    unsigned scales = problem->a_scale.kind == W8A8_SCALE_BLOCK
                          ? scaled * 4u + SM90_B_SCALE_AREA_BYTES
                          : 0u;
    int a_rows = sm90_a_rows(c, problem);
    unsigned stage_a = (unsigned)(a_rows ? a_rows : c->block_m);
    return (unsigned)c->stages * (stage_a + (unsigned)c->block_n) * (unsigned)c->block_k +
           ((unsigned)c->block_m - stage_a) * SM90_BLOCK_K_BYTES +
           staging + partials + (SM90_BARRIER_BYTES + scales) * (unsigned)c->stages +
           SM90_TURN_BARRIER_BYTES + SM90_ALIGN_SLACK;
}

static bool sm90_int8_n_ok(int n)
{
    return n == 8 || n == 16 || n == 24 || n == 32 || (n >= 48 && n % 16 == 0);
}

/* The rules of the space's valid(), restated so a hand-written config cannot reach NVRTC
 * with values the template would reject. */
static w8a8_status sm90_config_check(w8a8_context *ctx, const w8a8_problem *problem,
                                     const sm90_config *c)
{
    if (c->consumers != 1 && c->consumers != 2)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: consumers must be 1 or 2");
    if (c->pingpong != 0 && c->pingpong != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: pingpong must be 0 or 1");
    if (c->pingpong && c->consumers != 2)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: pingpong needs 2 consumers");
    /* rows per consumer warpgroup: the whole tile in ping-pong, a share otherwise */
    int wg_m = sm90_wg_m(c);
    if ((c->block_m != 64 && c->block_m != 128 && c->block_m != 256) ||
        (wg_m != 64 && wg_m != 128))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: block_m %d with %d consumers, pingpong %d (rows per "
                      "consumer must be 64 or 128)", c->block_m, c->consumers, c->pingpong);
    if (c->block_n < 8 || c->block_n > SM90_TMA_BOX_MAX || c->block_n % 8 != 0)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: block_n %d (8..256 step 8)", c->block_n);
    if (problem->a_type == W8A8_INT8 && !sm90_int8_n_ok(c->block_n))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: block_n %d is no INT8 wgmma N (8, 16, 24, 32, 48..256 "
                      "step 16)", c->block_n);
    if (c->stages < 2 || c->stages > SM90_MAX_STAGES)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: stages %d (2..16)", c->stages);
    /* a stage: 1, 2 or 4 boxes of 128 K bytes */
    int boxes = c->block_k / (int)SM90_BLOCK_K_BYTES;
    if (c->block_k % (int)SM90_BLOCK_K_BYTES != 0 || (boxes != 1 && boxes != 2 && boxes != 4))
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: block_k %d (128, 256 or 512)",
                      c->block_k);
    if (boxes != 1 && sm90_promoted(problem))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: block_k=%d needs fast accumulation (promoted sums and "
                      "block scales go by 128 K bytes: block_k 128)", c->block_k);
    if (c->raster != 0 && c->raster != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: raster must be 0 or 1");
    if (c->group < 1 || c->group > SM90_MAX_GROUP)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: group %d (1..64)", c->group);
    if (c->cluster != 1 && c->cluster != 2)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: cluster %d (1 or 2)", c->cluster);
    if (c->cluster == 2 && c->block_n % 16 != 0)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: cluster 2 needs block_n a multiple of 16 (each CTA "
                      "multicasts half the B tile), not %d", c->block_n);
    if (c->epilogue < 0 || c->epilogue > 2)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: epilogue must be 0, 1 or 2");
    if (c->epilogue == 2) {
        unsigned box = sm90_c_box_bytes(c->block_n, problem);
        if (box < 32 || (unsigned)c->block_n * sm90_out_bytes(problem) < 2 * box)
            return errorf(ctx, W8A8_INVALID,
                          "sm90_gemm config: epilogue 2 stores a tile row box by box: it needs "
                          "two boxes or more, of at least 32 bytes (block_n %d, %u-byte boxes)",
                          c->block_n, box);
    }
    if (c->split != 1 && c->split != 2 && c->split != 4)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: split %d (1, 2 or 4)", c->split);
    if (c->specialize != 0 && c->specialize != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: specialize must be 0 or 1");
    if (c->overlap < 0 || c->overlap > 5)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: overlap must be 0, or 1..5 (K blocks in groups of 2, 4, "
                      "8, 16 or 32), not %d", c->overlap);
    if (c->overlap && !sm90_promoted(problem))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: overlap=%d needs promoted accumulation (block scales or "
                      "accum promoted): it overlaps the promotion with the next K block's wgmmas",
                      c->overlap);
    /* a block-scaled tile that straddles 128-column scale blocks compiles its K loop once per
     * column offset (SM90_OFF_CONST in the template): with groups of 16 or 32 K blocks unrolled
     * that took NVRTC 104 s a kernel (128x112, overlap 5) */
    if (c->overlap > 3 && problem->a_scale.kind == W8A8_SCALE_BLOCK && 128 % c->block_n != 0 &&
        !c->pingpong)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: overlap=%d with block scales needs block_n dividing 128 "
                      "or pingpong 1 (a tile that straddles scale blocks compiles its K loop once "
                      "per column offset)", c->overlap);
    if (c->stagger != 0 && c->stagger != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: stagger must be 0 or 1");
    if (c->stagger && (!sm90_promoted(problem) || c->consumers != 2 || c->pingpong))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: stagger=1 needs promoted accumulation (block scales or "
                      "accum promoted) and two cooperative consumers (pingpong 0): they take "
                      "turns issuing each K block's wgmmas");
    if (c->wave != 0 && c->wave != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: wave must be 0 or 1");
    if (c->wave && (!sm90_promoted(problem) || c->overlap || c->swap || wg_m != 128))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: wave=1 (one temporary set, a consumer's two 64-row "
                      "sub-tiles in turn) needs promoted accumulation, overlap 0, swap 0 and 128 "
                      "rows a consumer (%d)", wg_m);
    if (c->evict != 0 && c->evict != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: evict must be 0 or 1");
    if (c->trigger != 0 && c->trigger != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: trigger must be 0 or 1");
    if (c->evict && c->cluster != 1 && !c->swap)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: evict=1 (the weights' loads evict-first in L2) needs "
                      "cluster 1 or swap=1 (whose weights are never multicast)");
    if (c->swap != 0 && c->swap != 1)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: swap must be 0 or 1");
    if (c->swap && (c->epilogue != 0 || c->stagger))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: swap=1 (weights on wgmma's M side) needs epilogue 0 "
                      "(it stores the transposed tile directly) and stagger 0");
    if (c->swap && problem->a_scale.kind == W8A8_SCALE_BLOCK && c->block_n > 64)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: swap=1 with block scales needs block_n <= 64 (a stage "
                      "takes one token scale per loader lane), not %d", c->block_n);
    if (c->split > 1 && (c->cluster != 1 || c->pingpong))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: split %d needs cluster 1 and pingpong 0 (the cluster "
                      "holds the K slices of one tile)", c->split);
    if (c->tail != 1 && c->tail != 2 && c->tail != 4)
        return errorf(ctx, W8A8_INVALID, "sm90_gemm config: tail %d (1, 2 or 4)", c->tail);
    if (c->tail > 1 && (c->cluster != 1 || c->split != 1 || c->pingpong || c->swap || c->stagger))
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: tail %d (the last wave's tiles split along K in "
                      "clusters of %d CTAs) needs cluster 1, split 1, pingpong 0, swap 0 and "
                      "stagger 0", c->tail, c->tail);
    if (c->tail > 1) {
        /* the partial sums of a split tile go into the ring (a CTA's last tile; whole tiles
         * of A: sm90_a_rows) */
        unsigned ring = (unsigned)c->stages * (unsigned)(c->block_m + c->block_n) *
                        (unsigned)c->block_k;
        unsigned sums = (unsigned)(c->consumers * sm90_wg_m(c) * c->block_n) * 4u;
        if (sums > ring)
            return errorf(ctx, W8A8_INVALID,
                          "sm90_gemm config: tail %d hands %u bytes of partial sums over in the "
                          "%u-byte ring: more stages", c->tail, sums, ring);
    }
    int accumulators = (wg_m / 64) * c->block_n / 2;
    int overhead = SM90_REG_OVERHEAD;
    if (sm90_promoted(problem) && c->overlap) {
        accumulators *= 3; /* the main set and two temporary ones */
        overhead = SM90_OVERLAP_OVERHEAD + 8 * (wg_m / 64); /* + the scales of its two K blocks */
    } else if (sm90_promoted(problem) && c->wave) {
        accumulators += c->block_n / 2; /* the main set and one 64-row sub-tile's temporary */
        overhead = SM90_WAVE_OVERHEAD;
    } else if (sm90_promoted(problem)) {
        accumulators *= 2; /* the main set and a temporary one */
        overhead += SM90_BLOCK_SCALE_REGS;
    }
    int cap = c->consumers == 2 ? SM90_REGS_TWO_CONSUMERS : SM90_REGS_ONE_CONSUMER;
    if (accumulators + overhead > cap)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: %d accumulator registers per thread exceed the cap %d",
                      accumulators, cap - overhead);
    /* Without a device, the opt-in limit every sm_90 part has: a config that could launch on
     * none is refused when compiled or planned anywhere (a shipped cache row included). */
    unsigned smem = sm90_smem_bytes(c, problem);
    unsigned limit = (unsigned)(ctx->has_device ? ctx->max_smem_optin : GEMM_SM90_SMEM_OPTIN);
    if (smem > limit)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm config: %u bytes of shared memory exceed %s (%u)", smem,
                      ctx->has_device ? "the device's limit" : "the sm_90 opt-in limit", limit);
    return W8A8_OK;
}

/* tail > 1: how many of `units` tiles go whole on `ctas` CTAs (clusters of `tail`); the rest,
 * the last partial wave, is split into `tail` K slices of `groups` K groups each (the
 * template's TAIL). Split only when that takes one turn of 1/tail of a tile instead of a whole
 * tile's (at most one tile a cluster: the kernel hands the partial sums over in the ring,
 * which a CTA's last tile leaves idle) and every slice gets a group; else every unit goes
 * whole. The result is a multiple of ctas, or units. */
int64_t sm90_tail_whole(int64_t units, int64_t ctas, int64_t tail, int64_t groups)
{
    if (tail < 2 || ctas < tail || groups < tail)
        return units;
    int64_t rest = units % ctas;
    if (rest == 0 || rest * tail > ctas)
        return units;
    return units - rest;
}

/* The persistent grid for the problem's actual M and N: one CTA per SM, or with cluster=2
 * as many CTA pairs as run at once, never more than there are units of work (a unit is
 * `cluster` tiles stacked along M, taken by `cluster` CTAs; with split=S one tile, taken by
 * S CTAs; with tail=T a cluster of T CTAs takes T whole tiles or one split one). Returns the
 * units. */
static int64_t sm90_grid(const gemm_plan *plan, const w8a8_problem *problem, jit_launch *launch)
{
    int64_t cluster = plan->ints[SM90_I_CLUSTER];
    /* CTAs per cluster */
    int64_t ctas = cluster * plan->ints[SM90_I_SPLIT] * plan->ints[SM90_I_TAIL];
    /* swap: tile rows run over N (the weights), tile columns over M */
    int64_t rows = plan->ints[SM90_I_SWAP] ? problem->n : problem->m;
    int64_t cols = plan->ints[SM90_I_SWAP] ? problem->m : problem->n;
    int64_t tiles_m = (rows + plan->ints[SM90_I_BLOCK_M] - 1) / plan->ints[SM90_I_BLOCK_M];
    int64_t tiles_n = (cols + plan->ints[SM90_I_BLOCK_N] - 1) / plan->ints[SM90_I_BLOCK_N];
    int64_t units = (tiles_m + cluster - 1) / cluster * tiles_n;
    int64_t clusters = plan->ints[SM90_I_MAX_CLUSTERS];
    launch->grid[0] = (unsigned)((units < clusters ? units : clusters) * ctas);
    launch->grid[1] = 1;
    launch->grid[2] = 1;
    return units;
}

/* The kernel's defines: the config without its launch-time items, N and K when the config
 * specializes the kernel to the problem's shape, PROMOTE=1 for promoted per-tensor / per-row
 * FP8 (only then: the other kernels keep their defines and cubins), and the problem's
 * traits. */
static w8a8_status sm90_compiled_defines(w8a8_context *ctx, const w8a8_problem *problem,
                                         const sm90_config *c, char *out, size_t size)
{
    char compiled[W8A8_CONFIG_BYTES + 64];
    w8a8_status st = gemm_config_format_compiled(ctx, SM90_TEMPLATE, sm90_params,
                                                 SM90_PARAM_COUNT, c, compiled, W8A8_CONFIG_BYTES);
    if (st == W8A8_OK && c->specialize) {
        size_t used = strlen(compiled);
        snprintf(compiled + used, sizeof compiled - used, ",N=%lld,K=%lld", (long long)problem->n,
                 (long long)problem->k);
    }
    if (st == W8A8_OK && gemm_promotes(problem)) {
        size_t used = strlen(compiled);
        snprintf(compiled + used, sizeof compiled - used, ",PROMOTE=1");
    }
    int a_rows = sm90_a_rows(c, problem);
    if (st == W8A8_OK && a_rows) {
        size_t used = strlen(compiled);
        snprintf(compiled + used, sizeof compiled - used, ",A_ROWS=%d", a_rows);
    }
    return st == W8A8_OK ? gemm_defines(ctx, problem, compiled, out, size) : st;
}

/* A config that sm90_config_check refuses has no kernel, so it has no defines either. */
static w8a8_status sm90_defines(w8a8_context *ctx, const w8a8_problem *problem,
                                const char *config, char *out, size_t size)
{
    sm90_config c;
    w8a8_status st =
        gemm_config_parse(ctx, SM90_TEMPLATE, sm90_params, SM90_PARAM_COUNT, config, &c);
    if (st == W8A8_OK)
        st = sm90_config_check(ctx, problem, &c);
    return st == W8A8_OK ? sm90_compiled_defines(ctx, problem, &c, out, size) : st;
}

static w8a8_status sm90_plan(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                             gemm_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->family = &gemm_family_sm90;
    if (!sm90_supports(ctx, problem))
        return errorf(ctx, W8A8_UNSUPPORTED,
                      "sm90_gemm: this problem or device is not supported (needs cc 9.0, FP8 or "
                      "INT8 operands, per-tensor or per-row scales, or FP8 with 1×128 × 128×128 "
                      "block scales)");
    sm90_config c;
    w8a8_status st = gemm_config_parse(ctx, SM90_TEMPLATE, sm90_params, SM90_PARAM_COUNT, config, &c);
    if (st == W8A8_OK)
        st = sm90_config_check(ctx, problem, &c);
    if (st == W8A8_OK)
        st = gemm_config_format(ctx, SM90_TEMPLATE, sm90_params, SM90_PARAM_COUNT, &c,
                                plan->config, sizeof plan->config);
    if (st != W8A8_OK)
        return st;
    char defines[2 * W8A8_CONFIG_BYTES];
    st = sm90_compiled_defines(ctx, problem, &c, defines, sizeof defines);
    if (st != W8A8_OK)
        return st;
    st = jit_kernel_get(ctx, SM90_TEMPLATE, defines, gemm_family_sm90.arch, SM90_ENTRY,
                        &plan->kernels[0]);
    if (st != W8A8_OK)
        return st;
    plan->ints[SM90_I_BLOCK_M] = c.block_m;
    plan->ints[SM90_I_BLOCK_N] = c.block_n;
    plan->ints[SM90_I_CLUSTER] = c.cluster;
    plan->ints[SM90_I_EPILOGUE] = c.epilogue;
    plan->ints[SM90_I_WG_M] = sm90_wg_m(&c);
    plan->ints[SM90_I_SPLIT] = c.split;
    plan->ints[SM90_I_RASTER] = c.raster;
    plan->ints[SM90_I_GROUP] = c.group;
    plan->ints[SM90_I_SWAP] = c.swap;
    plan->ints[SM90_I_A_ROWS] = sm90_a_rows(&c, problem);
    plan->ints[SM90_I_TAIL] = c.tail;
    plan->ints[SM90_I_TRIGGER] = c.trigger;
    /* K bytes of a K group (the template's: 2^overlap stages), for tail's split */
    plan->ints[SM90_I_GROUP_K] = (int64_t)c.block_k << c.overlap;
    plan->launch.block[0] = SM90_WARPGROUP * (unsigned)(c.consumers + 1);
    plan->launch.block[1] = 1;
    plan->launch.block[2] = 1;
    plan->launch.shared_bytes = sm90_smem_bytes(&c, problem);
    int ctas = c.cluster * c.split * c.tail; /* per cluster */
    plan->launch.cluster[0] = (unsigned)ctas;
    plan->launch.cluster[1] = plan->launch.cluster[2] = 1;
    plan->launch.pdl = ctx->pdl; /* the kernel waits before touching memory (common/pdl.cuh) */
    int64_t clusters = ctx->sm_count > 0 ? ctx->sm_count / ctas : 1;
    if (ctas > 1 && ctx->has_device) {
        /* Not every SM joins a cluster (GPC sizes): ask the driver how many fit at once. */
        int fit = 0;
        st = jit_kernel_max_clusters(ctx, plan->kernels[0], &plan->launch, &fit);
        if (st != W8A8_OK)
            return st;
        if (fit < 1)
            return errorf(ctx, W8A8_UNSUPPORTED,
                          "sm90_gemm: no cluster of %d CTAs with %u bytes of shared memory fits "
                          "this device", ctas, plan->launch.shared_bytes);
        clusters = fit < clusters ? fit : clusters;
    }
    plan->ints[SM90_I_MAX_CLUSTERS] = clusters > 0 ? clusters : 1;
    sm90_grid(plan, problem, &plan->launch);
    return W8A8_OK;
}

/* A 2-D UINT8 map over a rows × k operand with row stride ld bytes: boxes of 128 bytes of K
 * by box_rows rows, 128-byte swizzle, zero fill out of bounds. */
static w8a8_status sm90_tensor_map(w8a8_context *ctx, CUtensorMap *map, const void *base,
                                   int64_t k, int64_t rows, int64_t ld, int64_t box_rows,
                                   const char *what)
{
    cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)ld};
    cuuint32_t box[2] = {SM90_BLOCK_K_BYTES, (cuuint32_t)box_rows};
    cuuint32_t element_strides[2] = {1, 1};
    CUresult rc = jit_tensor_map_encode(ctx,
        map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, (void *)base, dims, strides, box, element_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS)
        return error_cuda(ctx, rc, "sm90_gemm: cuTensorMapEncodeTiled(%s: %lld×%lld, ld %lld)",
                          what, (long long)rows, (long long)k, (long long)ld);
    return W8A8_OK;
}

/* The output map of epilogue 1 and 2: dims {N, M} in the out dtype, row pitch ldc, boxes of one
 * consumer's rows by the staging box width, the matching swizzle. Returns false (and the
 * kernel stores directly) when the address, the pitch or the row length N is not a multiple
 * of 16 bytes: measured on an H200, a TMA store clips the inner dimension only to whole 16-byte
 * chunks, so a row ending inside one wrote up to 14 bytes of the padding between N and ldc. */
static bool sm90_out_map(w8a8_context *ctx, CUtensorMap *map, const gemm_plan *plan,
                         const w8a8_problem *problem, const w8a8_gemm_args *args)
{
    unsigned ob = sm90_out_bytes(problem);
    if ((uintptr_t)args->out % SM90_TMA_ALIGN != 0 ||
        ((uint64_t)args->ldc * ob) % SM90_TMA_ALIGN != 0 ||
        ((uint64_t)args->n * ob) % SM90_TMA_ALIGN != 0)
        return false;
    unsigned box_bytes = sm90_c_box_bytes((int)plan->ints[SM90_I_BLOCK_N], problem);
    cuuint64_t dims[2] = {(cuuint64_t)args->n, (cuuint64_t)args->m};
    cuuint64_t strides[1] = {(cuuint64_t)args->ldc * ob};
    cuuint32_t box[2] = {box_bytes / ob, (cuuint32_t)plan->ints[SM90_I_WG_M]};
    cuuint32_t element_strides[2] = {1, 1};
    CUtensorMapDataType type = problem->out_type == W8A8_FP32   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                               : problem->out_type == W8A8_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    CUtensorMapSwizzle swizzle = box_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                 : box_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                 : box_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                   : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult rc = jit_tensor_map_encode(ctx,
        map, type, 2, args->out, dims, strides, box, element_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return rc == CUDA_SUCCESS; /* anything the map refuses goes the direct way */
}

static w8a8_status sm90_run(w8a8_context *ctx, const gemm_plan *plan, const w8a8_problem *problem,
                            const w8a8_tensors *tensors, CUstream stream)
{
    w8a8_gemm_args args;
    gemm_args_fill(&args, problem, tensors);
    CUtensorMap map_a, map_b, map_c; /* 64-byte aligned by its type */
    /* the kernel's A operand (tile rows) and B operand (tile columns): swap exchanges them */
    bool swap = plan->ints[SM90_I_SWAP] != 0;
    int64_t a_rows = plan->ints[SM90_I_A_ROWS];
    if (a_rows && problem->m > a_rows)
        return errorf(ctx, W8A8_INVALID,
                      "sm90_gemm: this plan loads %lld rows of A a stage, M is %lld (plan again "
                      "for this M)", (long long)a_rows, (long long)problem->m);
    w8a8_status st = sm90_tensor_map(ctx, &map_a, swap ? args.b : args.a, args.k,
                                     swap ? args.n : args.m, swap ? args.ldb : args.lda,
                                     a_rows ? a_rows : plan->ints[SM90_I_BLOCK_M],
                                     swap ? "B" : "A");
    if (st == W8A8_OK)
        st = sm90_tensor_map(ctx, &map_b, swap ? args.a : args.b, args.k,
                             swap ? args.m : args.n, swap ? args.lda : args.ldb,
                             plan->ints[SM90_I_BLOCK_N] / plan->ints[SM90_I_CLUSTER],
                             swap ? "A" : "B");
    if (st != W8A8_OK)
        return st;
    static const CUtensorMap no_map; /* what the kernel gets (and ignores) without TMA stores */
    int tma_store = 0;
    if (plan->ints[SM90_I_EPILOGUE])
        tma_store = sm90_out_map(ctx, &map_c, plan, problem, &args);
    jit_launch launch = plan->launch;
    int64_t units = sm90_grid(plan, problem, &launch);
    launch.stream = stream;
    int raster = (int)plan->ints[SM90_I_RASTER], group = (int)plan->ints[SM90_I_GROUP];
    /* tail > 1: the units that go whole (every unit otherwise; the kernel then ignores it) */
    int64_t group_k = plan->ints[SM90_I_GROUP_K];
    int whole = (int)(plan->ints[SM90_I_TAIL] > 1
                          ? sm90_tail_whole(units, launch.grid[0], plan->ints[SM90_I_TAIL],
                                            (args.k + group_k - 1) / group_k)
                          : units);
    int trigger = (int)plan->ints[SM90_I_TRIGGER];
    void *params[] = {&map_a, &map_b, tma_store ? &map_c : (void *)&no_map, &args, &tma_store,
                      &raster, &group, &whole, &trigger};
    return jit_kernel_launch(ctx, plan->kernels[0], &launch, params);
}

const gemm_family gemm_family_sm90 = {
    .name = SM90_TEMPLATE,
    .space = "sm90_gemm",
    .arch = SM90_ARCH,
    .supports = sm90_supports,
    .plan = sm90_plan,
    .run = sm90_run,
    .defines = sm90_defines,
};
