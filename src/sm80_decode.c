/* The decode family: host side of templates/sm80_decode.cuh (tuning space
 * scripts/sm80_decode.lua), the memory-bound small-M GEMM on mma.sync with the weights on the
 * instruction's M side (swap-AB) and K split across the warps of a CTA. Parses a config
 * ("warps=8,row_tiles=1,token_tiles=1,unroll=2,span=1"), compiles the kernel for the device's own
 * arch (INT8 and FP8 from sm_80), and per call launches one CTA per (token tile,
 * weight-row tile). No workspace: the split-K sum stays inside a CTA, in a fixed order. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"

#define DECODE_TEMPLATE "sm80_decode"
#define DECODE_ENTRY "w8a8_sm80_decode"
#define DECODE_MIN_CC_INT8 80
#define DECODE_MIN_CC_FP8 80 /* FP8 below 8.9 (no FP8 mma.sync) as f16 mmas */
/* Must match the template: weight rows and tokens per tile, the warp size, and the bytes of
 * one accumulator in the warps' partial-sum buffer. */
#define DECODE_ROWS_PER_TILE 16
#define DECODE_TOKENS_PER_TILE 8
#define DECODE_WARP 32
#define DECODE_PARTIAL_BYTES (4 * 32 * 4) /* 4 accumulators × 32 lanes × 4 bytes per tile pair */
#define DECODE_MAX_WARPS 16
#define DECODE_MAX_TILES 4
#define DECODE_MAX_UNROLL 4
#define DECODE_MAX_SPAN 8 /* K segments of a weight row in a 16-row tile */
/* Registers the loads of one batch may take per thread (words): ROW_TILES·16 + TOKEN_TILES·8
 * per chunk, UNROLL chunks; more spills or starves occupancy. */
#define DECODE_MAX_LOAD_WORDS 128
/* gridDim.y of every CUDA device */
#define DECODE_GRID_Y_MAX 65535

typedef struct decode_config {
    int warps, row_tiles, token_tiles, unroll, span;
} decode_config;

/* In the space's parameter order; the canonical config string follows it. */
static const gemm_param decode_params[] = {
    {"warps", offsetof(decode_config, warps), 8, false},
    {"row_tiles", offsetof(decode_config, row_tiles), 1, false},
    {"token_tiles", offsetof(decode_config, token_tiles), 1, false},
    {"unroll", offsetof(decode_config, unroll), 2, false},
    {"span", offsetof(decode_config, span), 1, false},
};
#define DECODE_PARAM_COUNT (sizeof decode_params / sizeof decode_params[0])

enum { DECODE_I_ROWS, DECODE_I_TOKENS };

static bool decode_supports(const w8a8_context *ctx, const w8a8_problem *problem)
{
    gemm_operands operands = gemm_tensor_core_operands(problem);
    if (operands == GEMM_OPERANDS_UNSUPPORTED || gemm_promotes(problem))
        return false; /* W8A8_ACCUM_PROMOTED per-tensor / per-row: not implemented here */
    if (ctx->has_device && 10 * ctx->cc_major + ctx->cc_minor <
                               (operands == GEMM_OPERANDS_FP8 ? DECODE_MIN_CC_FP8 : DECODE_MIN_CC_INT8))
        return false;
    /* one grid row per 16 weight rows (the smallest tile) */
    return (problem->n + DECODE_ROWS_PER_TILE - 1) / DECODE_ROWS_PER_TILE <= DECODE_GRID_Y_MAX;
}

/* The warps' partial sums (a single warp with span 1 keeps its own in registers). */
static unsigned decode_smem_bytes(const decode_config *c)
{
    return c->warps > 1 || c->span > 1
               ? (unsigned)(c->warps * c->row_tiles * c->token_tiles) * DECODE_PARTIAL_BYTES
               : 0u;
}

/* Weight rows and tokens of a CTA. */
static int decode_rows(const decode_config *c)
{
    return DECODE_ROWS_PER_TILE * c->row_tiles / c->span;
}

static int decode_tokens(const decode_config *c)
{
    return DECODE_TOKENS_PER_TILE * c->token_tiles / c->span;
}

static bool decode_one_of(int value, int limit)
{
    for (int v = 1; v <= limit; v *= 2)
        if (value == v)
            return true;
    return false;
}

/* The rules of the space's valid(), restated so a hand-written config cannot reach NVRTC
 * with values the template would reject. */
static w8a8_status decode_config_check(w8a8_context *ctx, const w8a8_problem *problem,
                                       const decode_config *c)
{
    if (!decode_one_of(c->warps, DECODE_MAX_WARPS))
        return errorf(ctx, W8A8_INVALID, "sm80_decode config: warps %d (1, 2, 4, 8 or 16)", c->warps);
    if (!decode_one_of(c->row_tiles, DECODE_MAX_TILES))
        return errorf(ctx, W8A8_INVALID, "sm80_decode config: row_tiles %d (1, 2 or 4)", c->row_tiles);
    if (!decode_one_of(c->token_tiles, DECODE_MAX_TILES))
        return errorf(ctx, W8A8_INVALID, "sm80_decode config: token_tiles %d (1, 2 or 4)",
                      c->token_tiles);
    if (!decode_one_of(c->unroll, DECODE_MAX_UNROLL))
        return errorf(ctx, W8A8_INVALID, "sm80_decode config: unroll %d (1, 2 or 4)", c->unroll);
    if (!decode_one_of(c->span, DECODE_MAX_SPAN))
        return errorf(ctx, W8A8_INVALID, "sm80_decode config: span %d (1, 2, 4 or 8)", c->span);
    if (c->span > 1 && (problem->a_scale.kind == W8A8_SCALE_BLOCK ||
                        problem->b_scale.kind == W8A8_SCALE_BLOCK))
        return errorf(ctx, W8A8_INVALID, "sm80_decode config: span %d with block scales (span 1 "
                      "only)", c->span);
    int64_t tiles_n = (problem->n + decode_rows(c) - 1) / decode_rows(c);
    if (tiles_n > DECODE_GRID_Y_MAX)
        return errorf(ctx, W8A8_INVALID,
                      "sm80_decode config: N %lld in tiles of %d rows needs %lld grid rows (at "
                      "most %d)", (long long)problem->n, decode_rows(c), (long long)tiles_n,
                      DECODE_GRID_Y_MAX);
    int words = c->unroll * (c->row_tiles * 16 + c->token_tiles * 8);
    if (words > DECODE_MAX_LOAD_WORDS)
        return errorf(ctx, W8A8_INVALID,
                      "sm80_decode config: unroll %d × (16·row_tiles + 8·token_tiles) = %d load "
                      "registers exceed %d", c->unroll, words, DECODE_MAX_LOAD_WORDS);
    unsigned smem = decode_smem_bytes(c);
    if (ctx->has_device && smem > (unsigned)ctx->max_smem_optin)
        return errorf(ctx, W8A8_INVALID,
                      "sm80_decode config: %u bytes of shared memory exceed the device's %d", smem,
                      ctx->max_smem_optin);
    return W8A8_OK;
}

static void decode_grid(const gemm_plan *plan, const w8a8_problem *problem, jit_launch *launch)
{
    int64_t tokens = plan->ints[DECODE_I_TOKENS], rows = plan->ints[DECODE_I_ROWS];
    launch->grid[0] = (unsigned)((problem->m + tokens - 1) / tokens); /* validate caps M */
    launch->grid[1] = (unsigned)((problem->n + rows - 1) / rows); /* the config check caps N */
    launch->grid[2] = 1;
}

/* The config parsed and checked (a config decode_config_check refuses has no kernel), its
 * canonical string into canonical, and the kernel's defines from it into out. */
static w8a8_status decode_config_defines(w8a8_context *ctx, const w8a8_problem *problem,
                                         const char *config, decode_config *c, char *canonical,
                                         size_t canonical_size, char *out, size_t size)
{
    w8a8_status st = gemm_config_parse(ctx, DECODE_TEMPLATE, decode_params, DECODE_PARAM_COUNT,
                                       config, c);
    if (st == W8A8_OK)
        st = decode_config_check(ctx, problem, c);
    if (st == W8A8_OK)
        st = gemm_config_format(ctx, DECODE_TEMPLATE, decode_params, DECODE_PARAM_COUNT, c,
                                canonical, canonical_size);
    return st == W8A8_OK ? gemm_defines(ctx, problem, canonical, out, size) : st;
}

static w8a8_status decode_defines(w8a8_context *ctx, const w8a8_problem *problem,
                                  const char *config, char *out, size_t size)
{
    decode_config c;
    char canonical[W8A8_CONFIG_BYTES];
    return decode_config_defines(ctx, problem, config, &c, canonical, sizeof canonical, out, size);
}

static w8a8_status decode_plan(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                               gemm_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->family = &gemm_family_sm80_decode;
    if (!decode_supports(ctx, problem))
        return errorf(ctx, W8A8_UNSUPPORTED,
                      "sm80_decode: this problem or device is not supported (needs INT8 or FP8 "
                      "operands on cc ≥ 8.0, per-tensor or per-row scales or 1×128 × "
                      "128×128 block scales, N ≤ %d, and accum fast)",
                      DECODE_GRID_Y_MAX * DECODE_ROWS_PER_TILE);
    decode_config c;
    char defines[2 * W8A8_CONFIG_BYTES];
    w8a8_status st = decode_config_defines(ctx, problem, config, &c, plan->config,
                                           sizeof plan->config, defines, sizeof defines);
    if (st == W8A8_OK)
        st = jit_kernel_get(ctx, DECODE_TEMPLATE, defines, NULL, DECODE_ENTRY, &plan->kernels[0]);
    if (st != W8A8_OK)
        return st;
    plan->ints[DECODE_I_ROWS] = decode_rows(&c);
    plan->ints[DECODE_I_TOKENS] = decode_tokens(&c);
    plan->launch.block[0] = DECODE_WARP * (unsigned)c.warps;
    plan->launch.block[1] = plan->launch.block[2] = 1;
    plan->launch.shared_bytes = decode_smem_bytes(&c);
    plan->launch.cluster[0] = plan->launch.cluster[1] = plan->launch.cluster[2] = 1;
    plan->launch.pdl = ctx->pdl; /* the kernel waits before touching memory (common/pdl.cuh) */
    decode_grid(plan, problem, &plan->launch);
    return W8A8_OK;
}

static w8a8_status decode_run(w8a8_context *ctx, const gemm_plan *plan, const w8a8_problem *problem,
                              const w8a8_tensors *tensors, CUstream stream)
{
    w8a8_gemm_args args;
    gemm_args_fill(&args, problem, tensors);
    jit_launch launch = plan->launch;
    decode_grid(plan, problem, &launch);
    launch.stream = stream;
    void *params[] = {&args};
    return jit_kernel_launch(ctx, plan->kernels[0], &launch, params);
}

const gemm_family gemm_family_sm80_decode = {
    .name = DECODE_TEMPLATE,
    .space = "sm80_decode",
    .supports = decode_supports,
    .plan = decode_plan,
    .run = decode_run,
    .defines = decode_defines,
};
