/* Quantization on the GPU (w8a8_quantize) and the fused linear call (w8a8_linear): picks the
 * variant of templates/quant.cuh for a problem (team shape, registers kept between passes),
 * gets it from the JIT and launches it on the caller's stream, never synchronizing. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "jit.h"
#include "quant.h"

#define QUANT_TEMPLATE "quant"
#define QUANT_BLOCK 256        /* threads per block when a segment needs fewer */
#define QUANT_MAX_TEAM 512     /* threads per row in per-token mode */
#define QUANT_TARGET_VECS 4    /* chunks per thread a per-token row aims for */
#define QUANT_MAX_VECS 8       /* chunks per thread kept in registers at most */
#define QUANT_STATS_BLOCKS_PER_SM 8
#define QUANT_WORKSPACE_ALIGN 256
#define QUANT_ASYM_MIN_INIT 0xFFFFFFFFu /* ordered key above every float: the min slot's start */

static atomic_bool g_force_soft_fp8;

void quant_force_soft_fp8(bool on) { atomic_store(&g_force_soft_fp8, on); }
bool quant_soft_fp8_forced(void) { return atomic_load(&g_force_soft_fp8); }

/* ---- variant choice ------------------------------------------------------------------------ */

typedef struct quant_shape {
    int team, vecs, threads;
    int64_t segments; /* rows, or rows × groups */
} quant_shape;

static int pow2_at_least(int64_t v)
{
    int p = 1;
    while (p < v && p < (1 << 30))
        p <<= 1;
    return p;
}

/* Per-token (and per-tensor) rows: a team of threads per row, sized so each thread keeps
 * about QUANT_TARGET_VECS 16-byte chunks in registers across the two passes; short rows pack
 * several per block. Group mode: QUANT_TARGET_VECS chunks of a group per thread (fewer for
 * groups below 32 elements), several groups per block. */
static quant_shape choose_shape(const quant_plan *plan)
{
    quant_shape s;
    int64_t chunks = plan->p.k / QUANT_CHUNK;
    if (plan->p.mode == W8A8_QUANT_DYNAMIC_GROUP) {
        int group_chunks = plan->p.group_k / QUANT_CHUNK;
        s.vecs = group_chunks < QUANT_TARGET_VECS ? group_chunks : QUANT_TARGET_VECS;
        s.team = group_chunks / s.vecs;
        s.segments = plan->m_out * plan->groups;
    } else {
        if (chunks <= 32) {
            s.team = pow2_at_least(chunks);
        } else {
            s.team = pow2_at_least((chunks + QUANT_TARGET_VECS - 1) / QUANT_TARGET_VECS);
            s.team = s.team < 32 ? 32 : (s.team > QUANT_MAX_TEAM ? QUANT_MAX_TEAM : s.team);
        }
        int64_t vecs = (chunks + s.team - 1) / s.team;
        s.vecs = (int)(vecs > QUANT_MAX_VECS ? QUANT_MAX_VECS : vecs);
        s.segments = plan->m_out;
    }
    s.threads = s.team > QUANT_BLOCK ? s.team : QUANT_BLOCK;
    return s;
}

static w8a8_status variant_defines(w8a8_context *ctx, const quant_plan *plan,
                                   const quant_shape *s, bool has_ub, char *out, size_t size)
{
    const w8a8_quant_problem *p = &plan->p;
    bool ok = util_format(out, size,
                          "quant_kernel=0,quant_mode=%d,in_type=%d,out_type=%d,asym=%d,ub=%d,"
                          "team=%d,vecs=%d,threads=%d,group=%d,scale_k_major=%d%s",
                          (int)p->mode, (int)p->in_type, (int)p->out_type, p->asymmetric ? 1 : 0,
                          has_ub ? 1 : 0, s->team, s->vecs, s->threads,
                          p->mode == W8A8_QUANT_DYNAMIC_GROUP ? p->group_k : QUANT_DEFAULT_GROUP,
                          p->scale_k_major ? 1 : 0, quant_soft_fp8_forced() ? ",soft_fp8=1" : "");
    return ok ? W8A8_OK : errorf(ctx, W8A8_INTERNAL, "quantization defines do not fit");
}

/* ---- launches ------------------------------------------------------------------------------ */

static w8a8_status launch(w8a8_context *ctx, const jit_kernel *kernel, int64_t blocks,
                          int threads, CUstream stream, void **params)
{
    if (blocks < 1 || blocks > INT32_MAX)
        return errorf(ctx, W8A8_INVALID, "the problem needs %lld thread blocks (at most %d)",
                      (long long)blocks, INT32_MAX);
    jit_launch l;
    memset(&l, 0, sizeof l);
    l.grid[0] = (unsigned)blocks;
    l.block[0] = (unsigned)threads;
    l.stream = stream;
    return jit_kernel_launch(ctx, kernel, &l, params);
}

/* Dynamic per-tensor: the statistics go through the caller's scale (and azp) slots, which the
 * memsets initialize on the stream: sym. amax bits from 0, asym. max key from 0 and min key
 * from all ones (see templates/quant.cuh, q_stats_from_slots). */
static w8a8_status run_tensor(w8a8_context *ctx, const quant_plan *plan, const quant_shape *s,
                              const jit_kernel *const kernels[3], const w8a8_quant_tensors *t,
                              CUstream stream, void **rows_params)
{
    const w8a8_quant_problem *p = &plan->p;
    const cu_api *cu = ctx->cu;
    CUresult rc = cu->cuMemsetD32Async((CUdeviceptr)(uintptr_t)t->scale, 0, 1, stream);
    if (rc == CUDA_SUCCESS && p->asymmetric)
        rc = cu->cuMemsetD32Async((CUdeviceptr)(uintptr_t)t->azp, QUANT_ASYM_MIN_INIT, 1, stream);
    if (rc != CUDA_SUCCESS)
        return error_cuda(ctx, rc, "cuMemsetD32Async (per-tensor statistics)");
    long long m = p->m, k = p->k, ld_in = p->ld_in;
    float min_amax = p->min_amax;
    void *stats_params[] = {(void *)&t->in, (void *)&t->scale, (void *)&t->azp, &m, &k, &ld_in};
    int64_t cap = (int64_t)(ctx->sm_count > 0 ? ctx->sm_count : 1) * QUANT_STATS_BLOCKS_PER_SM;
    w8a8_status st = launch(ctx, kernels[1], p->m < cap ? p->m : cap, s->threads, stream,
                            stats_params);
    int64_t blocks = (s->segments + s->threads / s->team - 1) / (s->threads / s->team);
    if (st == W8A8_OK)
        st = launch(ctx, kernels[0], blocks, s->threads, stream, rows_params);
    void *final_params[] = {(void *)&t->scale, (void *)&t->azp, (void *)&t->scale_ub, &min_amax};
    if (st == W8A8_OK)
        st = launch(ctx, kernels[2], 1, 1, stream, final_params);
    return st;
}

w8a8_status w8a8_quantize(w8a8_context *ctx, const w8a8_quant_problem *problem,
                          const w8a8_quant_tensors *tensors, void *stream)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    quant_plan plan;
    w8a8_status st = quant_plan_make(ctx, problem, &plan);
    if (st == W8A8_OK)
        st = quant_check_tensors(ctx, &plan, tensors);
    if (st == W8A8_OK)
        st = context_require_device(ctx);
    if (st != W8A8_OK)
        return st;
    const w8a8_quant_problem *p = &plan.p;
    quant_shape s = choose_shape(&plan);
    char defines[256];
    if ((st = variant_defines(ctx, &plan, &s, tensors->scale_ub != NULL, defines, sizeof defines)))
        return st;
    static const char *const entries[3] = {"w8a8_quant_rows", "w8a8_quant_stats",
                                           "w8a8_quant_finalize"};
    const jit_kernel *kernels[3] = {NULL, NULL, NULL};
    int nkernels = p->mode == W8A8_QUANT_DYNAMIC_TENSOR ? 3 : 1;
    for (int i = 0; i < nkernels && st == W8A8_OK; i++)
        st = jit_kernel_get(ctx, QUANT_TEMPLATE, defines, NULL, entries[i], &kernels[i]);
    if (st != W8A8_OK)
        return st;
    const w8a8_quant_tensors *t = tensors;
    long long m = p->m, m_out = plan.m_out, k = p->k, ld_in = p->ld_in, ld_out = p->ld_out,
              scale_ld = p->scale_ld;
    float min_amax = p->min_amax;
    void *params[] = {(void *)&t->in, (void *)&t->out, (void *)&t->scale, (void *)&t->azp,
                      (void *)&t->scale_ub, &m, &m_out, &k, &ld_in, &ld_out, &scale_ld, &min_amax};
    CUstream cs = (CUstream)stream;
    if (p->mode == W8A8_QUANT_DYNAMIC_TENSOR) {
        st = run_tensor(ctx, &plan, &s, kernels, t, cs, params);
    } else {
        int64_t per_block = s.threads / s.team;
        st = launch(ctx, kernels[0], (s.segments + per_block - 1) / per_block, s.threads, cs,
                    params);
    }
    if (st == W8A8_OK)
        error_clear(ctx); /* "" after success, as every call promises */
    return st;
}

/* ---- compile sets -------------------------------------------------------------------------- */

/* Every mode × input type × output type once, plus the variants with their own code paths:
 * asymmetric, ub, team sizes (< 32, = 32, > 32 with a barrier), registers kept, every group
 * size and both group scale layouts, the integer e4m3 encoder, and the weight utilities. */
static const char *const compile_sets[] = {
    "quant_mode=0,in_type=4,out_type=1",
    "quant_mode=0,in_type=5,out_type=3",
    "quant_mode=0,in_type=6,out_type=3,asym=1",
    "quant_mode=1,in_type=4,out_type=1,ub=1",
    "quant_mode=1,in_type=5,out_type=3,asym=1",
    "quant_mode=1,in_type=6,out_type=1,team=32,vecs=2,threads=256",
    "quant_mode=2,in_type=4,out_type=1,team=256,vecs=4,threads=256",
    "quant_mode=2,in_type=4,out_type=1,team=256,vecs=4,threads=256,soft_fp8=1",
    "quant_mode=2,in_type=5,out_type=1,team=512,vecs=8,threads=512,ub=1",
    "quant_mode=2,in_type=6,out_type=3,team=2,vecs=1,threads=256",
    "quant_mode=2,in_type=4,out_type=3,team=64,vecs=3,threads=256,asym=1",
    "quant_mode=2,in_type=6,out_type=1,team=512,vecs=8,threads=512",
    "quant_mode=3,in_type=4,out_type=1,group=128,team=4,vecs=4,threads=256",
    "quant_mode=3,in_type=4,out_type=1,group=128,team=4,vecs=4,threads=256,scale_k_major=1",
    "quant_mode=3,in_type=5,out_type=3,group=16,team=1,vecs=2,threads=256,ub=1",
    "quant_mode=3,in_type=6,out_type=1,group=256,team=8,vecs=4,threads=256,scale_k_major=1",
    "quant_mode=3,in_type=4,out_type=3,group=64,team=2,vecs=4,threads=256",
    "quant_mode=3,in_type=5,out_type=1,group=32,team=1,vecs=4,threads=256,soft_fp8=1",
    "quant_mode=3,in_type=4,out_type=1,group=128,team=16,vecs=1,threads=256",
    "quant_kernel=1,weight_type=1",
    "quant_kernel=1,weight_type=3",
    "",
};

const char *quant_compile_defines(size_t index)
{
    return index < sizeof compile_sets / sizeof compile_sets[0] ? compile_sets[index] : NULL;
}

/* ---- linear -------------------------------------------------------------------------------- */

static int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/* Byte offsets of the workspace parts: codes, scales, zero points; and the total. */
typedef struct linear_layout {
    int64_t scales, azp, total;
} linear_layout;

static linear_layout layout_of(const quant_plan *plan)
{
    linear_layout l;
    l.scales = align_up(plan->m_out * plan->p.ld_out, QUANT_WORKSPACE_ALIGN);
    l.azp = align_up(l.scales + plan->scale_count * (int64_t)sizeof(float), QUANT_WORKSPACE_ALIGN);
    l.total = align_up(l.azp + plan->azp_count * (int64_t)sizeof(int32_t), QUANT_WORKSPACE_ALIGN);
    return l;
}

static w8a8_status linear_check(w8a8_context *ctx, const w8a8_linear_problem *lp)
{
    if (!lp)
        return errorf(ctx, W8A8_INVALID, "problem is NULL");
    /* Before quant_problem_of, which rounds m up (and would overflow near INT64_MAX); the
     * bound is the matmul's (w8a8_problem: 1 … 2^31 − 1). */
    if (lp->m < 1 || lp->m > INT32_MAX)
        return errorf(ctx, W8A8_INVALID, "m: %lld must be from 1 to %d", (long long)lp->m,
                      INT32_MAX);
    if (lp->n < 1)
        return errorf(ctx, W8A8_INVALID, "n: %lld must be ≥ 1", (long long)lp->n);
    if (lp->w_type != W8A8_E4M3 && lp->w_type != W8A8_E5M2 && lp->w_type != W8A8_INT8)
        return errorf(ctx, W8A8_INVALID, "w_type: must be e4m3, e5m2 or int8");
    if (lp->x_asymmetric && lp->x_quant != W8A8_QUANT_STATIC_TENSOR &&
        lp->x_quant != W8A8_QUANT_DYNAMIC_TENSOR && lp->x_quant != W8A8_QUANT_DYNAMIC_TOKEN)
        return errorf(ctx, W8A8_INVALID, "x_asymmetric: needs per-tensor or per-token x_quant");
    return W8A8_OK;
}

static void quant_problem_of(const w8a8_linear_problem *lp, w8a8_quant_problem *q)
{
    memset(q, 0, sizeof *q);
    q->m = lp->m;
    q->k = lp->k;
    q->in_type = lp->x_type;
    q->out_type = lp->w_type == W8A8_INT8 ? W8A8_INT8 : W8A8_E4M3;
    q->mode = lp->x_quant;
    q->group_k = lp->x_group_k;
    q->scale_k_major = lp->x_quant == W8A8_QUANT_DYNAMIC_GROUP && lp->x_scale_k_major;
    q->scale_ld = q->scale_k_major ? align_up(lp->m, 4) : 0; /* 16-byte columns for TMA */
    q->asymmetric = lp->x_asymmetric;
    q->min_amax = lp->x_min_amax;
    q->ld_in = lp->ld_x;
    q->ld_out = 0;
}

static void mm_problem_of(const w8a8_linear_problem *lp, const quant_plan *plan, w8a8_problem *mm)
{
    const w8a8_quant_problem *q = &plan->p;
    w8a8_problem_init(mm, lp->m, lp->n, lp->k, q->out_type, lp->out_type);
    mm->b_type = lp->w_type;
    mm->bias_type = lp->bias_type;
    mm->b_scale = lp->w_scale;
    memset(&mm->a_scale, 0, sizeof mm->a_scale);
    switch (q->mode) {
    case W8A8_QUANT_STATIC_TENSOR:
    case W8A8_QUANT_DYNAMIC_TENSOR: mm->a_scale.kind = W8A8_SCALE_TENSOR; break;
    case W8A8_QUANT_DYNAMIC_TOKEN: mm->a_scale.kind = W8A8_SCALE_ROW; break;
    case W8A8_QUANT_DYNAMIC_GROUP:
        mm->a_scale.kind = W8A8_SCALE_BLOCK;
        mm->a_scale.group_rows = 1;
        mm->a_scale.group_k = q->group_k;
        mm->a_scale.k_major = q->scale_k_major;
        mm->a_scale.ld = q->scale_ld;
        break;
    }
    mm->azp = !q->asymmetric ? W8A8_AZP_NONE
              : q->mode == W8A8_QUANT_DYNAMIC_TOKEN ? W8A8_AZP_TOKEN : W8A8_AZP_TENSOR;
    mm->lda = q->ld_out;
    mm->ldb = lp->ld_w;
    mm->ldc = lp->ld_out;
    mm->accum = lp->accum;
}

static w8a8_status linear_plan(w8a8_context *ctx, const w8a8_linear_problem *lp,
                               quant_plan *plan, w8a8_problem *mm)
{
    w8a8_status st = linear_check(ctx, lp);
    w8a8_quant_problem q;
    if (st == W8A8_OK) {
        quant_problem_of(lp, &q);
        st = quant_plan_make(ctx, &q, plan);
    }
    if (st == W8A8_OK && mm)
        mm_problem_of(lp, plan, mm);
    return st;
}

w8a8_status w8a8_linear_problems(w8a8_context *ctx, const w8a8_linear_problem *problem,
                                 w8a8_quant_problem *quant, w8a8_problem *mm)
{
    quant_plan plan;
    w8a8_problem local;
    w8a8_status st = linear_plan(ctx, problem, &plan, &local);
    if (st != W8A8_OK)
        return st;
    if (quant) {
        quant_problem_of(problem, quant); /* as given, defaults left for the callee */
        quant->scale_ld = plan.p.scale_ld;
    }
    if (mm)
        *mm = local;
    error_clear(ctx); /* "" after success, as every call promises */
    return W8A8_OK;
}

w8a8_status w8a8_linear_workspace_size(w8a8_context *ctx, const w8a8_linear_problem *problem,
                                       size_t *bytes)
{
    quant_plan plan;
    w8a8_status st = linear_plan(ctx, problem, &plan, NULL);
    if (st != W8A8_OK)
        return st;
    if (!bytes)
        return errorf(ctx, W8A8_INVALID, "bytes is NULL");
    *bytes = (size_t)layout_of(&plan).total;
    error_clear(ctx);
    return W8A8_OK;
}

w8a8_status quant_linear_offsets(w8a8_context *ctx, const w8a8_linear_problem *problem,
                                 size_t *scale_offset, size_t *azp_offset)
{
    quant_plan plan;
    w8a8_status st = linear_plan(ctx, problem, &plan, NULL);
    if (st != W8A8_OK)
        return st;
    linear_layout l = layout_of(&plan);
    *scale_offset = (size_t)l.scales;
    *azp_offset = (size_t)l.azp;
    return W8A8_OK;
}

static w8a8_status linear_check_tensors(w8a8_context *ctx, const quant_plan *plan,
                                        const w8a8_linear_tensors *t, void *workspace,
                                        size_t workspace_bytes)
{
    const w8a8_quant_problem *q = &plan->p;
    bool is_static = q->mode == W8A8_QUANT_STATIC_TENSOR;
    if (!t)
        return errorf(ctx, W8A8_INVALID, "tensors is NULL");
    if (!workspace || (uintptr_t)workspace % QUANT_WORKSPACE_ALIGN != 0)
        return errorf(ctx, W8A8_INVALID, "workspace is %s", workspace ? "not 256-byte aligned" : "NULL");
    if (workspace_bytes < (size_t)layout_of(plan).total)
        return errorf(ctx, W8A8_INVALID, "workspace_bytes: %zu is below the %lld needed",
                      workspace_bytes, (long long)layout_of(plan).total);
    if (is_static && !t->x_scale)
        return errorf(ctx, W8A8_INVALID, "tensors->x_scale is NULL but x_quant is static");
    if (is_static && q->asymmetric && !t->x_azp)
        return errorf(ctx, W8A8_INVALID, "tensors->x_azp is NULL but x is static asymmetric");
    if (q->asymmetric && !t->w_col_sums)
        return errorf(ctx, W8A8_INVALID, "tensors->w_col_sums is NULL but x is asymmetric");
    if (!t->w || !t->out || !t->w_scale)
        return errorf(ctx, W8A8_INVALID, "tensors->%s is NULL",
                      !t->w ? "w" : !t->out ? "out" : "w_scale");
    return W8A8_OK;
}

w8a8_status w8a8_linear(w8a8_context *ctx, const w8a8_linear_problem *problem,
                        const w8a8_linear_tensors *tensors, void *workspace,
                        size_t workspace_bytes, void *stream)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    quant_plan plan;
    w8a8_problem mm;
    w8a8_status st = linear_plan(ctx, problem, &plan, &mm);
    if (st == W8A8_OK)
        st = linear_check_tensors(ctx, &plan, tensors, workspace, workspace_bytes);
    if (st == W8A8_OK)
        st = w8a8_problem_validate(ctx, &mm);
    if (st != W8A8_OK)
        return st;
    const w8a8_linear_tensors *t = tensors;
    linear_layout l = layout_of(&plan);
    char *ws = workspace;
    bool is_static = plan.p.mode == W8A8_QUANT_STATIC_TENSOR;
    w8a8_quant_tensors qt = {
        .in = t->x,
        .out = ws,
        .scale = is_static ? (float *)t->x_scale : (float *)(ws + l.scales),
        .azp = !plan.p.asymmetric ? NULL : is_static ? (int32_t *)t->x_azp : (int32_t *)(ws + l.azp),
        .scale_ub = plan.p.asymmetric || is_static ? NULL : t->x_scale_ub,
    };
    w8a8_tensors mt = {.a = ws, .b = t->w, .out = t->out, .a_scale = qt.scale,
                       .b_scale = t->w_scale, .bias = t->bias, .azp = qt.azp,
                       .b_col_sums = t->w_col_sums};
    w8a8_quant_problem q;
    quant_problem_of(problem, &q);
    /* Everything the matmul will check, checked before the quantization launches. */
    if ((st = validate_tensors(ctx, &mm, &mt)) != W8A8_OK)
        return st;
    if ((st = w8a8_quantize(ctx, &q, &qt, stream)) != W8A8_OK)
        return st;
    return w8a8_scaled_mm(ctx, &mm, &mt, stream);
}
