/* What every GEMM family shares: the list of families, the problem-trait defines a template
 * receives, dense-stride resolution, the kernel argument block, and the public entry points
 * that do not go through the dispatcher (w8a8_problem_validate, w8a8_scaled_mm_reference). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"

/* The prologue values are the public enums' values; gemm_args.h restates them for the
 * templates, which cannot include w8a8jit.h. Keep the two in step. */
_Static_assert(W8A8_T_E4M3 == W8A8_E4M3 && W8A8_T_E5M2 == W8A8_E5M2 &&
                   W8A8_T_INT8 == W8A8_INT8 && W8A8_T_BF16 == W8A8_BF16 &&
                   W8A8_T_FP16 == W8A8_FP16 && W8A8_T_FP32 == W8A8_FP32 &&
                   W8A8_T_NONE == W8A8_DTYPE_NONE,
               "gemm_args.h dtype values differ from w8a8_dtype");
_Static_assert(W8A8_S_TENSOR == W8A8_SCALE_TENSOR && W8A8_S_ROW == W8A8_SCALE_ROW &&
                   W8A8_S_BLOCK == W8A8_SCALE_BLOCK,
               "gemm_args.h scale values differ from w8a8_scale_kind");
_Static_assert(W8A8_Z_NONE == W8A8_AZP_NONE && W8A8_Z_TENSOR == W8A8_AZP_TENSOR &&
                   W8A8_Z_TOKEN == W8A8_AZP_TOKEN,
               "gemm_args.h zero-point values differ from w8a8_azp_kind");

/* Most specialized first: the dispatcher walks it in order (the first default that plans
 * runs on a cache miss) and the reference closes it. A new family is one line here. */
const gemm_family *const gemm_families[] = {
    &gemm_family_sm80_decode,
    &gemm_family_sm90,
    &gemm_family_sm80_gemm,
    &gemm_family_reference,
    NULL,
};

const gemm_family *gemm_family_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; gemm_families[i]; i++)
        if (strcmp(gemm_families[i]->name, name) == 0)
            return gemm_families[i];
    return NULL;
}

static bool is_fp8(w8a8_dtype t) { return t == W8A8_E4M3 || t == W8A8_E5M2; }

w8a8_status gemm_family_defines(const gemm_family *family, w8a8_context *ctx,
                                const w8a8_problem *problem, const char *config, char *out,
                                size_t size)
{
    if (family && family->defines)
        return family->defines(ctx, problem, config, out, size);
    return gemm_defines(ctx, problem, config, out, size);
}

static atomic_bool g_force_soft_fp8;

void gemm_force_soft_fp8(bool on) { atomic_store(&g_force_soft_fp8, on); }

w8a8_status gemm_defines(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                         char *out, size_t size)
{
    bool has_config = config && *config;
    bool soft = atomic_load(&g_force_soft_fp8) && is_fp8(problem->a_type);
    int used = snprintf(out, size,
                        "%s%sA_TYPE=%d,B_TYPE=%d,OUT_TYPE=%d,BIAS_TYPE=%d,A_SCALE=%d,"
                        "B_SCALE=%d,AZP=%d%s",
                        has_config ? config : "", has_config ? "," : "", (int)problem->a_type,
                        (int)problem->b_type, (int)problem->out_type, (int)problem->bias_type,
                        (int)problem->a_scale.kind, (int)problem->b_scale.kind,
                        (int)problem->azp, soft ? ",SOFT_FP8=1" : "");
    if (used < 0 || (size_t)used >= size)
        return errorf(ctx, W8A8_INTERNAL, "gemm_defines: %zu bytes are too few for '%s'", size,
                      has_config ? config : "");
    return W8A8_OK;
}

gemm_operands gemm_tensor_core_operands(const w8a8_problem *problem)
{
    bool fp8 = is_fp8(problem->a_type) && is_fp8(problem->b_type);
    bool int8 = problem->a_type == W8A8_INT8 && problem->b_type == W8A8_INT8;
    if (!fp8 && !int8)
        return GEMM_OPERANDS_UNSUPPORTED;
    if (problem->out_type != W8A8_BF16 && problem->out_type != W8A8_FP16 &&
        problem->out_type != W8A8_FP32)
        return GEMM_OPERANDS_UNSUPPORTED;
    if (problem->bias_type != W8A8_DTYPE_NONE && problem->bias_type != W8A8_FP32 &&
        problem->bias_type != problem->out_type)
        return GEMM_OPERANDS_UNSUPPORTED;
    const w8a8_scale_layout *a = &problem->a_scale, *b = &problem->b_scale;
    bool a_block = a->kind == W8A8_SCALE_BLOCK, b_block = b->kind == W8A8_SCALE_BLOCK;
    if ((a_block || b_block) &&
        (!fp8 || !a_block || !b_block || a->group_rows != 1 || a->group_k != GEMM_SCALE_GROUP ||
         b->group_rows != GEMM_SCALE_GROUP || b->group_k != GEMM_SCALE_GROUP))
        return GEMM_OPERANDS_UNSUPPORTED;
    if (problem->azp != W8A8_AZP_NONE && !int8)
        return GEMM_OPERANDS_UNSUPPORTED;
    return fp8 ? GEMM_OPERANDS_FP8 : GEMM_OPERANDS_INT8;
}

bool gemm_promotes(const w8a8_problem *problem)
{
    return problem->accum == W8A8_ACCUM_PROMOTED && is_fp8(problem->a_type) &&
           is_fp8(problem->b_type) && problem->a_scale.kind != W8A8_SCALE_BLOCK &&
           problem->b_scale.kind != W8A8_SCALE_BLOCK;
}

static const int64_t m_buckets[] = {1,    2,    4,    8,    16,   24,    32,   48,   64,
                                    96,   128,  192,  256,  384,  512,   768,  1024, 1536,
                                    2048, 3072, 4096, 6144, 8192, 12288, 16384};
#define M_BUCKET_COUNT (sizeof m_buckets / sizeof m_buckets[0])

int64_t gemm_m_bucket(int64_t m)
{
    for (size_t i = 0; i < M_BUCKET_COUNT; i++)
        if (m <= m_buckets[i])
            return m_buckets[i];
    return m_buckets[M_BUCKET_COUNT - 1];
}

/* Dense leading dimension of a block-scale matrix over a rows × k operand. */
static int64_t scale_dense_ld(const w8a8_scale_layout *layout, int64_t rows, int64_t k)
{
    if (layout->kind != W8A8_SCALE_BLOCK)
        return 0;
    if (layout->k_major)
        return (rows + layout->group_rows - 1) / layout->group_rows;
    return (k + layout->group_k - 1) / layout->group_k;
}

void gemm_problem_resolve(const w8a8_problem *in, w8a8_problem *out)
{
    *out = *in;
    if (out->lda == 0)
        out->lda = out->k;
    if (out->ldb == 0)
        out->ldb = out->k;
    if (out->ldc == 0)
        out->ldc = out->n;
    if (out->a_scale.kind == W8A8_SCALE_BLOCK && out->a_scale.ld == 0)
        out->a_scale.ld = scale_dense_ld(&out->a_scale, out->m, out->k);
    if (out->b_scale.kind == W8A8_SCALE_BLOCK && out->b_scale.ld == 0)
        out->b_scale.ld = scale_dense_ld(&out->b_scale, out->n, out->k);
}

void gemm_args_fill(w8a8_gemm_args *args, const w8a8_problem *problem, const w8a8_tensors *tensors)
{
    w8a8_problem p;
    gemm_problem_resolve(problem, &p);
    memset(args, 0, sizeof *args);
    args->a = tensors->a;
    args->b = tensors->b;
    args->out = tensors->out;
    args->a_scale = tensors->a_scale;
    args->b_scale = tensors->b_scale;
    args->bias = tensors->bias;
    args->azp = tensors->azp;
    args->b_col_sums = tensors->b_col_sums;
    args->m = p.m;
    args->n = p.n;
    args->k = p.k;
    args->lda = p.lda;
    args->ldb = p.ldb;
    args->ldc = p.ldc;
    /* Group fields only mean something for block scales; 1 keeps divisions in templates safe
     * even if one reads them for another kind. */
    bool a_block = p.a_scale.kind == W8A8_SCALE_BLOCK, b_block = p.b_scale.kind == W8A8_SCALE_BLOCK;
    args->a_scale_ld = a_block ? p.a_scale.ld : 0;
    args->b_scale_ld = b_block ? p.b_scale.ld : 0;
    args->a_group_rows = a_block ? p.a_scale.group_rows : 1;
    args->a_group_k = a_block ? p.a_scale.group_k : 1;
    args->b_group_rows = b_block ? p.b_scale.group_rows : 1;
    args->b_group_k = b_block ? p.b_scale.group_k : 1;
    args->a_scale_k_major = a_block ? p.a_scale.k_major : 0;
    args->b_scale_k_major = b_block ? p.b_scale.k_major : 0;
    args->split_k = 1;
}

w8a8_status w8a8_problem_validate(w8a8_context *ctx, const w8a8_problem *problem)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    error_clear(ctx);
    return validate_problem(ctx, problem);
}

w8a8_status w8a8_scaled_mm_reference(w8a8_context *ctx, const w8a8_problem *problem,
                                     const w8a8_tensors *tensors, void *stream)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    error_clear(ctx);
    w8a8_status st = validate_call(ctx, problem, tensors);
    if (st == W8A8_OK)
        st = context_require_device(ctx);
    if (st == W8A8_OK)
        st = context_make_current(ctx);
    if (st != W8A8_OK)
        return st;
    /* No plan table here: planning the reference is a defines string and a lookup in the
     * JIT's memoized module table, small beside the reference kernel itself. */
    const gemm_family *family = &gemm_family_reference;
    gemm_plan plan;
    st = family->plan(ctx, problem, NULL, &plan);
    if (st == W8A8_OK)
        st = family->run(ctx, &plan, problem, tensors, (CUstream)stream);
    return st;
}
