/* The reference GEMM family: host side of templates/reference_gemm.cuh. It supports every
 * valid problem on every arch the library targets (≥ sm_80), has no tunables (config is
 * ignored) and no workspace. The dispatcher ends every chain with it and the tuner verifies
 * candidates against it. */
#include <stdio.h>
#include <string.h>

#include "gemm.h"

#define REFERENCE_TEMPLATE "reference_gemm"
#define REFERENCE_ENTRY "w8a8_reference_gemm"

/* Must equal W8A8_REF_BLOCK_X / W8A8_REF_BLOCK_Y in the template (its __launch_bounds__). */
#define REFERENCE_BLOCK_X 32u
#define REFERENCE_BLOCK_Y 8u
/* gridDim.y limit of every CUDA device; the kernel loops over rows beyond it. */
#define REFERENCE_GRID_Y_MAX 65535u
/* The oldest compute capability the template's PTX (cvt.rn.bf16.f32) runs on. */
#define REFERENCE_MIN_CC_MAJOR 8

static bool reference_supports(const w8a8_context *ctx, const w8a8_problem *problem)
{
    (void)problem; /* every valid problem */
    return !ctx->has_device || ctx->cc_major >= REFERENCE_MIN_CC_MAJOR;
}

/* Grid for the problem's actual M and N (a plan is shared by every M of its bucket). */
static void reference_grid(const w8a8_problem *problem, jit_launch *launch)
{
    int64_t blocks_x = (problem->n + REFERENCE_BLOCK_X - 1) / REFERENCE_BLOCK_X;
    int64_t blocks_y = (problem->m + REFERENCE_BLOCK_Y - 1) / REFERENCE_BLOCK_Y;
    launch->grid[0] = (unsigned)blocks_x; /* validate.c caps N so this fits */
    launch->grid[1] = blocks_y > REFERENCE_GRID_Y_MAX ? REFERENCE_GRID_Y_MAX : (unsigned)blocks_y;
    launch->grid[2] = 1;
}

static w8a8_status reference_plan(w8a8_context *ctx, const w8a8_problem *problem,
                                  const char *config, gemm_plan *plan)
{
    /* No tunables; a config, when given, only passes extra defines through (tests use
     * FP8_DECODE_BITS=1 to run the sm_80 decode path on newer GPUs). */
    memset(plan, 0, sizeof *plan);
    plan->family = &gemm_family_reference;
    if (config && strlen(config) >= sizeof plan->config)
        return errorf(ctx, W8A8_INVALID, "config: '%.40s…' is too long", config);
    snprintf(plan->config, sizeof plan->config, "%s", config ? config : "");
    char defines[2 * W8A8_CONFIG_BYTES];
    w8a8_status st = gemm_defines(ctx, problem, config, defines, sizeof defines);
    if (st != W8A8_OK)
        return st;
    st = jit_kernel_get(ctx, REFERENCE_TEMPLATE, defines, NULL, REFERENCE_ENTRY,
                        &plan->kernels[0]);
    if (st != W8A8_OK)
        return st;
    plan->launch.block[0] = REFERENCE_BLOCK_X;
    plan->launch.block[1] = REFERENCE_BLOCK_Y;
    plan->launch.block[2] = 1;
    reference_grid(problem, &plan->launch);
    return W8A8_OK;
}

static w8a8_status reference_run(w8a8_context *ctx, const gemm_plan *plan,
                                 const w8a8_problem *problem, const w8a8_tensors *tensors,
                                 CUstream stream)
{
    w8a8_gemm_args args;
    gemm_args_fill(&args, problem, tensors);
    jit_launch launch = plan->launch;
    reference_grid(problem, &launch);
    launch.stream = stream;
    void *params[] = {&args};
    return jit_kernel_launch(ctx, plan->kernels[0], &launch, params);
}

const gemm_family gemm_family_reference = {
    .name = REFERENCE_TEMPLATE,
    .space = NULL,
    .supports = reference_supports,
    .plan = reference_plan,
    .run = reference_run,
};
