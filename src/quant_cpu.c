/* Quantization on the CPU: validation of quantization problems (shared with the GPU path),
 * the scale arithmetic, the reference quantizer that the kernels of templates/quant.cuh equal
 * bit for bit, and the host versions of the weight utilities. */
#include <math.h>
#include <string.h>

#include "numeric.h"
#include "quant.h"

/* ---- problem ------------------------------------------------------------------------------- */

const char *w8a8_quant_mode_name(w8a8_quant_mode mode)
{
    switch (mode) {
    case W8A8_QUANT_STATIC_TENSOR: return "static";
    case W8A8_QUANT_DYNAMIC_TENSOR: return "tensor";
    case W8A8_QUANT_DYNAMIC_TOKEN: return "token";
    case W8A8_QUANT_DYNAMIC_GROUP: return "group";
    }
    return NULL;
}

static bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static w8a8_status check_types(w8a8_context *ctx, const w8a8_quant_problem *p)
{
    if (p->in_type != W8A8_BF16 && p->in_type != W8A8_FP16 && p->in_type != W8A8_FP32)
        return errorf(ctx, W8A8_INVALID, "in_type: %s is not an input type (bf16, fp16, fp32)",
                      w8a8_dtype_name(p->in_type) ? w8a8_dtype_name(p->in_type) : "unknown");
    if (p->out_type != W8A8_E4M3 && p->out_type != W8A8_INT8)
        return errorf(ctx, W8A8_INVALID, "out_type: %s is not a quantized type (e4m3, int8)",
                      w8a8_dtype_name(p->out_type) ? w8a8_dtype_name(p->out_type) : "unknown");
    if ((unsigned)p->mode > W8A8_QUANT_DYNAMIC_GROUP)
        return errorf(ctx, W8A8_INVALID, "mode: %d is not a w8a8_quant_mode", (int)p->mode);
    if (p->asymmetric && p->out_type != W8A8_INT8)
        return errorf(ctx, W8A8_INVALID, "asymmetric: needs out_type int8");
    if (p->asymmetric && p->mode == W8A8_QUANT_DYNAMIC_GROUP)
        return errorf(ctx, W8A8_INVALID,
                      "asymmetric: only per-tensor and per-token quantization have zero points");
    return W8A8_OK;
}

/* Byte extents of the input, the codes and the scales must each stay below this, so that
 * offsets into them, and w8a8_linear's workspace (the three parts plus alignment), fit int64. */
#define QUANT_MAX_EXTENT (INT64_MAX / 8)

/* rows × stride × element bytes within QUANT_MAX_EXTENT (checked without overflowing). */
static bool extent_fits(int64_t rows, int64_t stride, int64_t element_bytes)
{
    int64_t bytes;
    return !__builtin_mul_overflow(rows, stride, &bytes) &&
           !__builtin_mul_overflow(bytes, element_bytes, &bytes) && bytes <= QUANT_MAX_EXTENT;
}

static w8a8_status check_sizes(w8a8_context *ctx, const w8a8_quant_problem *p, size_t in_size)
{
    if (p->m < 1 || p->k < 1)
        return errorf(ctx, W8A8_INVALID, "m, k: %lld×%lld; both must be ≥ 1", (long long)p->m,
                      (long long)p->k);
    if (p->k % 16 != 0)
        return errorf(ctx, W8A8_INVALID, "k: %lld is not a multiple of 16", (long long)p->k);
    if (p->ld_in != 0 && p->ld_in < p->k)
        return errorf(ctx, W8A8_INVALID, "ld_in: %lld must be ≥ k (%lld)", (long long)p->ld_in,
                      (long long)p->k);
    if (p->ld_out != 0 && p->ld_out < p->k)
        return errorf(ctx, W8A8_INVALID, "ld_out: %lld must be ≥ k (%lld)",
                      (long long)p->ld_out, (long long)p->k);
    if (p->m_pad < 0)
        return errorf(ctx, W8A8_INVALID, "m_pad: %d is negative", p->m_pad);
    /* Strides are now ≥ k ≥ 16 and m ≥ 1: the extents bound m, so that m + m_pad (the rows
     * of the output are fewer) and the alignment test below cannot overflow. */
    int64_t ld_in = p->ld_in ? p->ld_in : p->k, ld_out = p->ld_out ? p->ld_out : p->k;
    if (!extent_fits(p->m, ld_in, (int64_t)in_size) || !extent_fits(p->m, ld_out, 1) ||
        !extent_fits(p->m + p->m_pad, ld_out, 1))
        return errorf(ctx, W8A8_INVALID, "m, ld_in, ld_out, m_pad: %lld (+%d) rows of %lld / "
                      "%lld elements overflow 64-bit offsets", (long long)p->m, p->m_pad,
                      (long long)ld_in, (long long)ld_out);
    if ((ld_in * (int64_t)in_size) % QUANT_ALIGN != 0)
        return errorf(ctx, W8A8_INVALID, "ld_in: %lld elements do not keep rows 16-byte aligned",
                      (long long)ld_in);
    if (ld_out % QUANT_ALIGN != 0)
        return errorf(ctx, W8A8_INVALID, "ld_out: %lld is not a multiple of 16",
                      (long long)ld_out);
    if (p->min_amax != 0.0f && !(p->min_amax > 0.0f && isfinite(p->min_amax)))
        return errorf(ctx, W8A8_INVALID, "min_amax: %g must be 0 (default) or positive and finite",
                      (double)p->min_amax);
    return W8A8_OK;
}

static w8a8_status plan_group(w8a8_context *ctx, quant_plan *plan)
{
    w8a8_quant_problem *p = &plan->p;
    if (p->group_k == 0)
        p->group_k = QUANT_DEFAULT_GROUP;
    if (!is_power_of_two(p->group_k) || p->group_k < 16 || p->group_k > 256)
        return errorf(ctx, W8A8_INVALID, "group_k: %d must be a power of two from 16 to 256",
                      p->group_k);
    plan->groups = (p->k + p->group_k - 1) / p->group_k;
    int64_t dense = p->scale_k_major ? plan->m_out : plan->groups;
    if (p->scale_ld == 0)
        p->scale_ld = dense;
    if (p->scale_ld < dense)
        return errorf(ctx, W8A8_INVALID, "scale_ld: %lld is below the dense %s extent %lld",
                      (long long)p->scale_ld, p->scale_k_major ? "K-major (M_out)" : "row-major (G)",
                      (long long)dense);
    int64_t outer = p->scale_k_major ? plan->groups : plan->m_out;
    /* scale_ld is the caller's: keep (outer − 1) · scale_ld + dense floats addressable. */
    if (!extent_fits(outer, p->scale_ld, (int64_t)sizeof(float)))
        return errorf(ctx, W8A8_INVALID, "scale_ld: %lld × %lld scale lines overflow 64-bit "
                      "offsets", (long long)p->scale_ld, (long long)outer);
    plan->scale_count = (outer - 1) * p->scale_ld + dense;
    return W8A8_OK;
}

w8a8_status quant_plan_make(w8a8_context *ctx, const w8a8_quant_problem *problem,
                            quant_plan *plan)
{
    if (!problem)
        return errorf(ctx, W8A8_INVALID, "problem is NULL");
    memset(plan, 0, sizeof *plan);
    plan->p = *problem;
    w8a8_quant_problem *p = &plan->p;
    w8a8_status st = check_types(ctx, p);
    if (st == W8A8_OK)
        st = check_sizes(ctx, p, w8a8_dtype_size(p->in_type));
    if (st != W8A8_OK)
        return st;
    int64_t pad = p->m_pad > 1 ? p->m_pad : 1;
    plan->m_out = (p->m + pad - 1) / pad * pad;
    plan->groups = 1;
    plan->qmax = p->out_type == W8A8_E4M3 ? QUANT_E4M3_MAX : QUANT_INT8_MAX;
    if (p->ld_in == 0)
        p->ld_in = p->k;
    if (p->ld_out == 0)
        p->ld_out = p->k;
    if (p->min_amax == 0.0f)
        p->min_amax = p->mode == W8A8_QUANT_DYNAMIC_GROUP ? W8A8_QUANT_GROUP_MIN_AMAX
                                                          : W8A8_QUANT_MIN_AMAX;
    switch (p->mode) {
    case W8A8_QUANT_STATIC_TENSOR: plan->scale_count = 0; break;
    case W8A8_QUANT_DYNAMIC_TENSOR: plan->scale_count = 1; break;
    case W8A8_QUANT_DYNAMIC_TOKEN: plan->scale_count = plan->m_out; break;
    case W8A8_QUANT_DYNAMIC_GROUP:
        if ((st = plan_group(ctx, plan)) != W8A8_OK)
            return st;
        break;
    }
    if (p->mode != W8A8_QUANT_DYNAMIC_GROUP) {
        p->group_k = 0;
        p->scale_k_major = 0;
        p->scale_ld = 0;
    }
    plan->azp_count = p->asymmetric ? plan->scale_count : 0;
    return W8A8_OK;
}

w8a8_status w8a8_quant_problem_validate(w8a8_context *ctx, const w8a8_quant_problem *problem)
{
    quant_plan plan;
    w8a8_status st = quant_plan_make(ctx, problem, &plan);
    if (st == W8A8_OK)
        error_clear(ctx); /* "" after success, as every call promises */
    return st;
}

int64_t w8a8_quant_rows_out(const w8a8_quant_problem *problem)
{
    quant_plan plan;
    if (!problem || quant_plan_make(NULL, problem, &plan) != W8A8_OK)
        return -1;
    return plan.m_out;
}

static bool misaligned(const void *ptr) { return ((uintptr_t)ptr % QUANT_ALIGN) != 0; }

w8a8_status quant_check_tensors(w8a8_context *ctx, const quant_plan *plan,
                                const w8a8_quant_tensors *t)
{
    const w8a8_quant_problem *p = &plan->p;
    if (!t)
        return errorf(ctx, W8A8_INVALID, "tensors is NULL");
    if (!t->in || !t->out || !t->scale)
        return errorf(ctx, W8A8_INVALID, "tensors->%s is NULL",
                      !t->in ? "in" : !t->out ? "out" : "scale");
    if (misaligned(t->in) || misaligned(t->out))
        return errorf(ctx, W8A8_INVALID, "tensors->%s is not 16-byte aligned",
                      misaligned(t->in) ? "in" : "out");
    if (p->asymmetric && !t->azp)
        return errorf(ctx, W8A8_INVALID, "tensors->azp is NULL but the problem is asymmetric");
    if (!p->asymmetric && t->azp)
        return errorf(ctx, W8A8_INVALID,
                      "tensors->azp is set but the problem is symmetric (it would be ignored)");
    if (t->scale_ub && (p->mode == W8A8_QUANT_STATIC_TENSOR || p->asymmetric))
        return errorf(ctx, W8A8_INVALID,
                      "tensors->scale_ub: an upper bound needs a dynamic symmetric mode");
    return W8A8_OK;
}

/* ---- scale arithmetic (templates/quant.cuh: q_params_from_stats) ---------------------------- */

int32_t quant_rne_s32(float v)
{
    if (isnan(v))
        return 0;
    if (v >= 2147483648.0f)
        return INT32_MAX;
    if (v <= -2147483648.0f)
        return INT32_MIN;
    double d = v, f = floor(d), frac = d - f; /* exact in double */
    if (frac > 0.5 || (frac == 0.5 && fmod(f, 2.0) != 0.0))
        f += 1.0;
    return (int32_t)f;
}

quant_params quant_params_symmetric(float amax, const float *ub, float min_amax, float qmax)
{
    quant_params q;
    float a = amax;
    if (ub)
        a = fminf(a, *ub);
    a = fmaxf(a, min_amax);
    q.scale = a / qmax;
    q.inv = 1.0f / q.scale;
    q.azp = 0;
    return q;
}

quant_params quant_params_asymmetric(float max, float min, float min_amax)
{
    quant_params q;
    if (!(max >= min)) {
        max = 0.0f;
        min = 0.0f;
    }
    float range = max - min;
    range = fmaxf(range, min_amax);
    q.scale = range / QUANT_INT8_RANGE;
    q.inv = 1.0f / q.scale;
    float shifted = min / q.scale;
    q.azp = quant_rne_s32(-128.0f - shifted);
    return q;
}

quant_params quant_params_static(float scale, int32_t azp)
{
    quant_params q = {.scale = scale, .inv = 1.0f / scale, .azp = azp};
    return q;
}

uint8_t quant_encode(float x, const quant_params *params, w8a8_dtype out_type, bool asymmetric)
{
    float v = x * params->inv;
    if (out_type == W8A8_E4M3)
        return isnan(v) ? QUANT_E4M3_NAN : num_f32_to_e4m3(v);
    if (!asymmetric)
        return (uint8_t)num_f32_to_int8(v);
    int64_t s = (int64_t)quant_rne_s32(v) + params->azp;
    s = s < NUM_INT8_MIN ? NUM_INT8_MIN : (s > NUM_INT8_MAX ? NUM_INT8_MAX : s);
    return (uint8_t)(int8_t)s;
}

/* ---- reference quantizer -------------------------------------------------------------------- */

/* Statistics of row elements [begin, end) over finite values; rows ≥ m are zeros. */
typedef struct row_stats {
    float amax, max, min; /* max < min: no finite value */
} row_stats;

static void stats_init(row_stats *s)
{
    s->amax = 0.0f;
    s->max = -INFINITY;
    s->min = INFINITY;
}

static void stats_add_row(row_stats *s, const quant_plan *plan, const void *in, int64_t row,
                          int64_t begin, int64_t end)
{
    const w8a8_quant_problem *p = &plan->p;
    if (row >= p->m)
        return; /* padding: zeros, which leave the statistics of a zero row */
    for (int64_t i = begin; i < end; i++) {
        float x;
        num_load_f32(p->in_type, in, row * p->ld_in + i, &x);
        if (!isfinite(x))
            continue;
        s->amax = fmaxf(s->amax, fabsf(x));
        s->max = fmaxf(s->max, x);
        s->min = fminf(s->min, x);
    }
}

static quant_params params_of(const quant_plan *plan, const row_stats *s, const float *ub)
{
    const w8a8_quant_problem *p = &plan->p;
    if (p->asymmetric)
        return quant_params_asymmetric(s->max, s->min, p->min_amax);
    return quant_params_symmetric(s->amax, ub, p->min_amax, plan->qmax);
}

static void quantize_span(const quant_plan *plan, const w8a8_quant_tensors *t, int64_t row,
                          int64_t begin, int64_t end, const quant_params *q)
{
    const w8a8_quant_problem *p = &plan->p;
    uint8_t *out = (uint8_t *)t->out + row * p->ld_out;
    for (int64_t i = begin; i < end; i++) {
        float x = 0.0f;
        if (row < p->m)
            num_load_f32(p->in_type, t->in, row * p->ld_in + i, &x);
        out[i] = quant_encode(x, q, p->out_type, p->asymmetric != 0);
    }
}

static void quantize_groups(const quant_plan *plan, const w8a8_quant_tensors *t)
{
    const w8a8_quant_problem *p = &plan->p;
    for (int64_t row = 0; row < plan->m_out; row++) {
        for (int64_t g = 0; g < plan->groups; g++) {
            int64_t begin = g * p->group_k;
            int64_t end = begin + p->group_k < p->k ? begin + p->group_k : p->k;
            row_stats s;
            stats_init(&s);
            stats_add_row(&s, plan, t->in, row, begin, end);
            quant_params q = params_of(plan, &s, t->scale_ub);
            int64_t at = p->scale_k_major ? g * p->scale_ld + row : row * p->scale_ld + g;
            t->scale[at] = q.scale;
            quantize_span(plan, t, row, begin, end, &q);
        }
    }
}

w8a8_status w8a8_quantize_cpu(w8a8_context *ctx, const w8a8_quant_problem *problem,
                              const w8a8_quant_tensors *tensors)
{
    quant_plan plan;
    w8a8_status st = quant_plan_make(ctx, problem, &plan);
    if (st == W8A8_OK)
        st = quant_check_tensors(ctx, &plan, tensors);
    if (st != W8A8_OK)
        return st;
    const w8a8_quant_problem *p = &plan.p;
    const w8a8_quant_tensors *t = tensors;
    quant_params q;
    row_stats s;
    switch (p->mode) {
    case W8A8_QUANT_STATIC_TENSOR:
    case W8A8_QUANT_DYNAMIC_TENSOR:
        if (p->mode == W8A8_QUANT_STATIC_TENSOR) {
            q = quant_params_static(t->scale[0], p->asymmetric ? t->azp[0] : 0);
        } else {
            stats_init(&s);
            for (int64_t row = 0; row < p->m; row++)
                stats_add_row(&s, &plan, t->in, row, 0, p->k);
            q = params_of(&plan, &s, t->scale_ub);
        }
        for (int64_t row = 0; row < plan.m_out; row++)
            quantize_span(&plan, t, row, 0, p->k, &q);
        if (p->mode == W8A8_QUANT_DYNAMIC_TENSOR) {
            t->scale[0] = q.scale;
            if (p->asymmetric)
                t->azp[0] = q.azp;
        }
        break;
    case W8A8_QUANT_DYNAMIC_TOKEN:
        for (int64_t row = 0; row < plan.m_out; row++) {
            stats_init(&s);
            stats_add_row(&s, &plan, t->in, row, 0, p->k);
            q = params_of(&plan, &s, t->scale_ub);
            t->scale[row] = q.scale;
            if (p->asymmetric)
                t->azp[row] = q.azp;
            quantize_span(&plan, t, row, 0, p->k, &q);
        }
        break;
    case W8A8_QUANT_DYNAMIC_GROUP:
        quantize_groups(&plan, t);
        break;
    }
    error_clear(ctx);
    return W8A8_OK;
}

/* ---- weight utilities ----------------------------------------------------------------------- */

w8a8_status quant_check_shards(w8a8_context *ctx, const int64_t *shard_rows, int32_t n_shards,
                                int64_t *total_rows)
{
    if (!shard_rows)
        return errorf(ctx, W8A8_INVALID, "shard_rows is NULL");
    if (n_shards < 1 || n_shards > QUANT_MAX_SHARDS)
        return errorf(ctx, W8A8_INVALID, "n_shards: %d must be from 1 to %d", n_shards,
                      QUANT_MAX_SHARDS);
    *total_rows = 0;
    for (int32_t i = 0; i < n_shards; i++) {
        if (shard_rows[i] < 1)
            return errorf(ctx, W8A8_INVALID, "shard_rows[%d]: %lld must be ≥ 1", i,
                          (long long)shard_rows[i]);
        if (__builtin_add_overflow(*total_rows, shard_rows[i], total_rows))
            return errorf(ctx, W8A8_INVALID, "shard_rows[%d]: %lld overflows the total row "
                          "count", i, (long long)shard_rows[i]);
    }
    return W8A8_OK;
}

w8a8_status quant_check_requant(w8a8_context *ctx, w8a8_dtype type, int64_t k,
                                const int64_t *shard_rows, int32_t n_shards, const void *w_in,
                                const void *w_out, const float *shard_scales,
                                const float *out_scale, int64_t *total_rows)
{
    if (type != W8A8_E4M3 && type != W8A8_INT8)
        return errorf(ctx, W8A8_INVALID, "type: must be e4m3 or int8");
    if (k < 16 || k % 16 != 0)
        return errorf(ctx, W8A8_INVALID, "k: %lld must be a positive multiple of 16", (long long)k);
    w8a8_status st = quant_check_shards(ctx, shard_rows, n_shards, total_rows);
    if (st != W8A8_OK)
        return st;
    if (!w_in || !w_out || !shard_scales || !out_scale)
        return errorf(ctx, W8A8_INVALID, "%s is NULL",
                      !w_in ? "w_in" : !w_out ? "w_out" : !shard_scales ? "shard_scales" : "out_scale");
    if (misaligned(w_in) || misaligned(w_out))
        return errorf(ctx, W8A8_INVALID, "%s is not 16-byte aligned", misaligned(w_in) ? "w_in" : "w_out");
    int64_t total_bytes;
    if (__builtin_mul_overflow(*total_rows, k, &total_bytes) || total_bytes > QUANT_MAX_EXTENT)
        return errorf(ctx, W8A8_INVALID, "shard_rows, k: %lld rows of %lld bytes overflow 64-bit "
                      "offsets", (long long)*total_rows, (long long)k);
    uintptr_t a = (uintptr_t)w_in, b = (uintptr_t)w_out, bytes = (uintptr_t)total_bytes;
    if (a != b && a < b + bytes && b < a + bytes)
        return errorf(ctx, W8A8_INVALID, "w_in and w_out overlap without being the same pointer");
    return W8A8_OK;
}

static uint8_t requant_code(w8a8_dtype type, uint8_t code, float s, float inv)
{
    quant_params q = {.scale = 0.0f, .inv = inv, .azp = 0};
    float x;
    num_load_f32(type, &code, 0, &x);
    return quant_encode(x * s, &q, type, false);
}

w8a8_status w8a8_weight_requantize_fused_cpu(w8a8_context *ctx, w8a8_dtype type, int64_t k,
                                             const int64_t *shard_rows, int32_t n_shards,
                                             const void *w_in, void *w_out,
                                             const float *shard_scales, float *out_scale)
{
    int64_t total = 0;
    w8a8_status st = quant_check_requant(ctx, type, k, shard_rows, n_shards, w_in, w_out,
                                         shard_scales, out_scale, &total);
    if (st != W8A8_OK)
        return st;
    float s_max = shard_scales[0];
    for (int32_t i = 1; i < n_shards; i++)
        s_max = fmaxf(s_max, shard_scales[i]);
    float inv = 1.0f / s_max;
    const uint8_t *in = w_in;
    uint8_t *out = w_out;
    int64_t offset = 0;
    for (int32_t i = 0; i < n_shards; i++) {
        int64_t bytes = shard_rows[i] * k;
        float s = shard_scales[i];
        for (int64_t j = 0; j < bytes; j++)
            out[offset + j] = s == s_max ? in[offset + j] : requant_code(type, in[offset + j], s, inv);
        offset += bytes;
    }
    *out_scale = s_max;
    error_clear(ctx);
    return W8A8_OK;
}

w8a8_status w8a8_weight_expand_scales_cpu(w8a8_context *ctx, const int64_t *shard_rows,
                                          int32_t n_shards, const float *shard_scales,
                                          float *channel_scales)
{
    int64_t total = 0;
    w8a8_status st = quant_check_shards(ctx, shard_rows, n_shards, &total);
    if (st != W8A8_OK)
        return st;
    if (!shard_scales || !channel_scales)
        return errorf(ctx, W8A8_INVALID, "%s is NULL", !shard_scales ? "shard_scales" : "channel_scales");
    int64_t at = 0;
    for (int32_t i = 0; i < n_shards; i++)
        for (int64_t r = 0; r < shard_rows[i]; r++)
            channel_scales[at++] = shard_scales[i];
    error_clear(ctx);
    return W8A8_OK;
}

w8a8_status w8a8_weight_e4m3fn_to_fnuz_cpu(w8a8_context *ctx, void *weight, int64_t bytes,
                                           float *scales, int64_t n_scales)
{
    if (bytes < 0 || n_scales < 0)
        return errorf(ctx, W8A8_INVALID, "%s is negative", bytes < 0 ? "bytes" : "n_scales");
    if ((bytes > 0 && !weight) || (n_scales > 0 && !scales))
        return errorf(ctx, W8A8_INVALID, "%s is NULL", bytes > 0 && !weight ? "weight" : "scales");
    uint8_t *w = weight;
    for (int64_t i = 0; i < bytes; i++)
        if (w[i] == 0x80u)
            w[i] = 0;
    for (int64_t i = 0; i < n_scales; i++)
        scales[i] = scales[i] * 2.0f;
    error_clear(ctx);
    return W8A8_OK;
}
