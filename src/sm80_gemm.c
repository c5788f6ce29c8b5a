/* The portable tensor-core GEMM family: host side of templates/sm80_gemm.cuh (tuning space
 * scripts/sm80_gemm.lua), a cp.async + ldmatrix + mma.sync.m16n8k32 kernel for Ampere and
 * Ada (and Hopper compiled as plain sm_90). Parses a config ("block_m=128,block_n=128,
 * block_k=128,stages=4,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=0,epilogue=0,
 * persist=0"; prefetch, epilogue and persist may be left out: 0), compiles the kernel for the
 * device's own arch (INT8 and FP8 from compute capability 8.0), and per call launches one CTA
 * per output tile (persist 1: at most as many as fit the device at once, each looping over
 * tiles). No workspace: split-K runs inside a CTA (K slices of warps, summed in a fixed order
 * in shared memory), so a launch is deterministic and safe under graph capture. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"

#define G80_TEMPLATE "sm80_gemm"
#define G80_ENTRY "w8a8_sm80_gemm"
#define G80_MIN_CC_INT8 80
#define G80_MIN_CC_FP8 80 /* FP8 below 8.9 (no FP8 mma.sync) as f16 mmas */
/* The JIT compiles for sm_80 … sm_90; newer devices get other families. */
#define G80_MAX_CC 90
/* Must match the template: the warp size, the mma tile (m16 × n8, k32 bytes), the legal
 * ranges of its config macros, and the bytes of one accumulator. */
#define G80_WARP 32
#define G80_MMA_M 16
#define G80_LDMATRIX_N 16 /* one ldmatrix.x4 of B covers two n8 tiles */
#define G80_MMA_K 32
#define G80_MAX_BLOCK 256
#define G80_MIN_STAGES 2
#define G80_MAX_STAGES 6
#define G80_MAX_GROUP 64
#define G80_ACC_BYTES 4
/* Accumulator registers per thread that leave room for the fragments and addresses under
 * the 255-register cap (block scales hold a second, temporary set). */
#define G80_MAX_ACC_REGS 128
/* gridDim.x of every CUDA device */
#define G80_GRID_X_MAX 2147483647LL

enum { G80_I_BLOCK_M, G80_I_BLOCK_N, G80_I_MAX_CTAS };

typedef struct g80_config {
    int block_m, block_n, block_k, stages, warps_m, warps_n, slice_k, group, prefetch, epilogue,
        persist;
} g80_config;

/* In the space's parameter order; the canonical config string follows it. */
static const gemm_param g80_params[] = {
    {"block_m", offsetof(g80_config, block_m), 128, false},
    {"block_n", offsetof(g80_config, block_n), 128, false},
    {"block_k", offsetof(g80_config, block_k), 128, false},
    {"stages", offsetof(g80_config, stages), 4, false},
    {"warps_m", offsetof(g80_config, warps_m), 2, false},
    {"warps_n", offsetof(g80_config, warps_n), 2, false},
    {"slice_k", offsetof(g80_config, slice_k), 1, false},
    {"group", offsetof(g80_config, group), 8, false},
    {"prefetch", offsetof(g80_config, prefetch), 0, false},
    {"epilogue", offsetof(g80_config, epilogue), 0, false},
    {"persist", offsetof(g80_config, persist), 0, false},
};
#define G80_PARAM_COUNT (sizeof g80_params / sizeof g80_params[0])

static bool g80_block_scaled(const w8a8_problem *problem)
{
    return problem->a_scale.kind == W8A8_SCALE_BLOCK || problem->b_scale.kind == W8A8_SCALE_BLOCK;
}

static int64_t g80_tiles(int64_t extent, int block) { return (extent + block - 1) / block; }

static bool g80_supports(const w8a8_context *ctx, const w8a8_problem *problem)
{
    gemm_operands operands = gemm_tensor_core_operands(problem);
    if (operands == GEMM_OPERANDS_UNSUPPORTED || gemm_promotes(problem))
        return false; /* W8A8_ACCUM_PROMOTED per-tensor / per-row: not implemented here */
    if (ctx->has_device) {
        int cc = 10 * ctx->cc_major + ctx->cc_minor;
        int min_cc = operands == GEMM_OPERANDS_FP8 ? G80_MIN_CC_FP8 : G80_MIN_CC_INT8;
        if (cc < min_cc || cc > G80_MAX_CC)
            return false;
    }
    /* one CTA per tile of the smallest shape (16 × 16) in a one-dimensional grid */
    return g80_tiles(problem->m, G80_MMA_M) * g80_tiles(problem->n, G80_LDMATRIX_N) <= G80_GRID_X_MAX;
}

/* The ring, reused for the slices' partial sums and (epilogue 1) the staged output tile, whose
 * rows are padded by G80_STAGED_PAD bytes. */
#define G80_STAGED_PAD 16
static unsigned g80_smem_bytes(const g80_config *c, const w8a8_problem *problem)
{
    unsigned ring = (unsigned)(c->stages * (c->block_m + c->block_n) * c->block_k);
    unsigned partials = (unsigned)((c->slice_k - 1) * c->block_m * c->block_n * G80_ACC_BYTES);
    int out_bytes = (int)w8a8_dtype_size(problem->out_type);
    unsigned staged =
        c->epilogue ? (unsigned)(c->block_m * (c->block_n * out_bytes + G80_STAGED_PAD)) : 0;
    unsigned bytes = ring > partials ? ring : partials;
    return bytes > staged ? bytes : staged;
}

static bool g80_power_of_two_in(int value, int low, int high)
{
    for (int v = low; v <= high; v *= 2)
        if (value == v)
            return true;
    return false;
}

/* The rules of the space's valid(), restated so a hand-written config cannot reach NVRTC
 * with values the template would reject. */
static w8a8_status g80_config_check(w8a8_context *ctx, const w8a8_problem *problem,
                                    const g80_config *c)
{
    if (!g80_power_of_two_in(c->block_m, G80_MMA_M, G80_MAX_BLOCK))
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: block_m %d (16, 32, 64, 128 or 256)",
                      c->block_m);
    if (c->block_n < G80_LDMATRIX_N || c->block_n > G80_MAX_BLOCK || c->block_n % G80_LDMATRIX_N)
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: block_n %d (16..256, step 16)",
                      c->block_n);
    if (c->block_k != 64 && c->block_k != 128 && c->block_k != 256)
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: block_k %d (64, 128 or 256)",
                      c->block_k);
    if (c->stages < G80_MIN_STAGES || c->stages > G80_MAX_STAGES)
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: stages %d (2..6)", c->stages);
    if (!g80_power_of_two_in(c->slice_k, 1, 4) || (c->block_k / G80_MMA_K) % c->slice_k)
        return errorf(ctx, W8A8_INVALID,
                      "sm80_gemm config: slice_k %d (1, 2 or 4, dividing block_k / 32)", c->slice_k);
    if (c->group < 1 || c->group > G80_MAX_GROUP)
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: group %d (1..64)", c->group);
    if (c->prefetch != 0 && c->prefetch != 1)
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: prefetch %d (0 or 1)", c->prefetch);
    if (c->epilogue != 0 && c->epilogue != 1)
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: epilogue %d (0 or 1)", c->epilogue);
    if (c->persist != 0 && c->persist != 1)
        return errorf(ctx, W8A8_INVALID, "sm80_gemm config: persist %d (0 or 1)", c->persist);
    if (c->persist && (c->slice_k != 1 || g80_block_scaled(problem)))
        return errorf(ctx, W8A8_INVALID,
                      "sm80_gemm config: persist 1 needs slice_k 1 and per-tensor or per-row "
                      "scales");
    int warps = c->warps_m * c->warps_n * c->slice_k;
    if (c->warps_m < 1 || c->warps_n < 1 || (warps != 4 && warps != 8))
        return errorf(ctx, W8A8_INVALID,
                      "sm80_gemm config: warps_m %d × warps_n %d × slice_k %d must be 4 or 8 warps",
                      c->warps_m, c->warps_n, c->slice_k);
    if (c->block_m % (c->warps_m * G80_MMA_M) || c->block_n % (c->warps_n * G80_LDMATRIX_N))
        return errorf(ctx, W8A8_INVALID,
                      "sm80_gemm config: the warp tile %d × %d is not a multiple of 16 × 16",
                      c->block_m / c->warps_m, c->block_n / c->warps_n);
    int warp_m = c->block_m / c->warps_m, warp_n = c->block_n / c->warps_n;
    int acc = warp_m * warp_n / G80_WARP;
    bool block = g80_block_scaled(problem);
    if (block && (c->block_k != GEMM_SCALE_GROUP || GEMM_SCALE_GROUP % warp_n))
        return errorf(ctx, W8A8_INVALID,
                      "sm80_gemm config: block scales need block_k 128 and a warp tile width "
                      "dividing 128 (have %d)", warp_n);
    if ((block ? 2 * acc : acc) > G80_MAX_ACC_REGS)
        return errorf(ctx, W8A8_INVALID,
                      "sm80_gemm config: the %d × %d warp tile needs %d accumulator registers "
                      "(at most %d)", warp_m, warp_n, block ? 2 * acc : acc, G80_MAX_ACC_REGS);
    unsigned smem = g80_smem_bytes(c, problem);
    if (ctx->has_device && smem > (unsigned)ctx->max_smem_optin)
        return errorf(ctx, W8A8_INVALID,
                      "sm80_gemm config: %u bytes of shared memory exceed the device's %d", smem,
                      ctx->max_smem_optin);
    return W8A8_OK;
}

/* One CTA a tile, or (persist 1) at most the CTAs that fit the device at once */
static void g80_grid(const gemm_plan *plan, const w8a8_problem *problem, jit_launch *launch)
{
    int64_t tiles = g80_tiles(problem->m, (int)plan->ints[G80_I_BLOCK_M]) *
                    g80_tiles(problem->n, (int)plan->ints[G80_I_BLOCK_N]);
    int64_t cap = plan->ints[G80_I_MAX_CTAS];
    if (cap > 0 && tiles > cap)
        tiles = cap;
    launch->grid[0] = (unsigned)tiles; /* supports() caps it */
    launch->grid[1] = launch->grid[2] = 1;
}

/* The config parsed and checked (a config g80_config_check refuses has no kernel), its
 * canonical string into canonical, and the kernel's defines from it into out. */
static w8a8_status g80_config_defines(w8a8_context *ctx, const w8a8_problem *problem,
                                      const char *config, g80_config *c, char *canonical,
                                      size_t canonical_size, char *out, size_t size)
{
    w8a8_status st = gemm_config_parse(ctx, G80_TEMPLATE, g80_params, G80_PARAM_COUNT, config, c);
    if (st == W8A8_OK)
        st = g80_config_check(ctx, problem, c);
    if (st == W8A8_OK)
        st = gemm_config_format(ctx, G80_TEMPLATE, g80_params, G80_PARAM_COUNT, c, canonical,
                                canonical_size);
    return st == W8A8_OK ? gemm_defines(ctx, problem, canonical, out, size) : st;
}

static w8a8_status g80_defines(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                               char *out, size_t size)
{
    g80_config c;
    char canonical[W8A8_CONFIG_BYTES];
    return g80_config_defines(ctx, problem, config, &c, canonical, sizeof canonical, out, size);
}

static w8a8_status g80_plan(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                            gemm_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->family = &gemm_family_sm80_gemm;
    if (!g80_supports(ctx, problem))
        return errorf(ctx, W8A8_UNSUPPORTED,
                      "sm80_gemm: this problem or device is not supported (needs INT8 or FP8 "
                      "operands on cc 8.0–9.0, per-tensor or per-row scales or 1×128 × "
                      "128×128 block scales; accum fast)");
    g80_config c;
    char defines[2 * W8A8_CONFIG_BYTES];
    w8a8_status st = g80_config_defines(ctx, problem, config, &c, plan->config,
                                        sizeof plan->config, defines, sizeof defines);
    if (st == W8A8_OK)
        st = jit_kernel_get(ctx, G80_TEMPLATE, defines, NULL, G80_ENTRY, &plan->kernels[0]);
    if (st != W8A8_OK)
        return st;
    plan->ints[G80_I_BLOCK_M] = c.block_m;
    plan->ints[G80_I_BLOCK_N] = c.block_n;
    plan->launch.block[0] = G80_WARP * (unsigned)(c.warps_m * c.warps_n * c.slice_k);
    plan->launch.block[1] = plan->launch.block[2] = 1;
    plan->launch.shared_bytes = g80_smem_bytes(&c, problem);
    plan->launch.cluster[0] = plan->launch.cluster[1] = plan->launch.cluster[2] = 1;
    plan->launch.pdl = ctx->pdl; /* the kernel waits before touching memory (common/pdl.cuh) */
    plan->ints[G80_I_MAX_CTAS] = 0; /* no cap */
    if (c.persist && ctx->has_device) {
        int per_sm = 0;
        st = jit_kernel_max_blocks_per_sm(ctx, plan->kernels[0], &plan->launch, &per_sm);
        if (st != W8A8_OK)
            return st;
        if (per_sm < 1)
            return errorf(ctx, W8A8_UNSUPPORTED,
                          "sm80_gemm: no CTA of %u threads with %u bytes of shared memory fits "
                          "an SM of this device",
                          plan->launch.block[0], plan->launch.shared_bytes);
        plan->ints[G80_I_MAX_CTAS] = (int64_t)per_sm * (ctx->sm_count > 0 ? ctx->sm_count : 1);
    }
    g80_grid(plan, problem, &plan->launch);
    return W8A8_OK;
}

static w8a8_status g80_run(w8a8_context *ctx, const gemm_plan *plan, const w8a8_problem *problem,
                           const w8a8_tensors *tensors, CUstream stream)
{
    w8a8_gemm_args args;
    gemm_args_fill(&args, problem, tensors);
    jit_launch launch = plan->launch;
    g80_grid(plan, problem, &launch);
    launch.stream = stream;
    void *params[] = {&args};
    return jit_kernel_launch(ctx, plan->kernels[0], &launch, params);
}

const gemm_family gemm_family_sm80_gemm = {
    .name = G80_TEMPLATE,
    .space = "sm80_gemm",
    .supports = g80_supports,
    .plan = g80_plan,
    .run = g80_run,
    .defines = g80_defines,
};
