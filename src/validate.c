/* Argument validation for every matmul entry point: the problem (sizes, dtypes, strides,
 * scale layouts, zero point) and the tensors of one call (pointers and their alignment).
 * The rules are documented at w8a8_problem in w8a8jit.h; each failure names the argument.
 * Malformed values are W8A8_INVALID; well-defined requests no kernel implements (block
 * groups along K that are not a multiple of 16, unequal A/B group_k) are W8A8_UNSUPPORTED. */
#include <inttypes.h>
#include <stdio.h>

#include "gemm.h"

/* K and every row stride must keep this alignment (cp.async / TMA move 16 bytes). */
#define VALIDATE_ALIGN_BYTES 16
/* m, n, k must fit a CUDA grid dimension and int32 kernel index math. */
#define VALIDATE_MAX_DIM INT32_MAX

static bool is_fp8(w8a8_dtype t) { return t == W8A8_E4M3 || t == W8A8_E5M2; }
static bool is_out(w8a8_dtype t) { return t == W8A8_BF16 || t == W8A8_FP16 || t == W8A8_FP32; }

static const char *dtype_text(w8a8_dtype t)
{
    const char *name = w8a8_dtype_name(t);
    return name ? name : "an unknown dtype";
}

static w8a8_status check_size(w8a8_context *ctx, const char *name, int64_t value)
{
    if (value < 1)
        return errorf(ctx, W8A8_INVALID, "problem.%s: %" PRId64 " must be at least 1", name, value);
    if (value > VALIDATE_MAX_DIM)
        return errorf(ctx, W8A8_INVALID, "problem.%s: %" PRId64 " exceeds %d", name, value,
                      VALIDATE_MAX_DIM);
    return W8A8_OK;
}

static w8a8_status check_dtypes(w8a8_context *ctx, const w8a8_problem *p)
{
    if (p->a_type == W8A8_E4M3FNUZ || p->b_type == W8A8_E4M3FNUZ)
        return errorf(ctx, W8A8_UNSUPPORTED, "problem.%s: e4m3fnuz is for the weight utilities "
                      "only; convert to e4m3 first", p->a_type == W8A8_E4M3FNUZ ? "a_type" : "b_type");
    if (!is_fp8(p->a_type) && p->a_type != W8A8_INT8)
        return errorf(ctx, W8A8_INVALID, "problem.a_type: %s is not e4m3, e5m2 or int8",
                      dtype_text(p->a_type));
    if (is_fp8(p->a_type) ? !is_fp8(p->b_type) : p->b_type != W8A8_INT8)
        return errorf(ctx, W8A8_INVALID, "problem.b_type: %s cannot be combined with a_type %s "
                      "(FP8 mixes with FP8, int8 with int8)",
                      dtype_text(p->b_type), dtype_text(p->a_type));
    if (!is_out(p->out_type))
        return errorf(ctx, W8A8_INVALID, "problem.out_type: %s is not bf16, fp16 or fp32",
                      dtype_text(p->out_type));
    if (p->bias_type != W8A8_DTYPE_NONE && p->bias_type != p->out_type && p->bias_type != W8A8_FP32)
        return errorf(ctx, W8A8_INVALID, "problem.bias_type: %s is neither none, out_type (%s) "
                      "nor fp32", dtype_text(p->bias_type), dtype_text(p->out_type));
    return W8A8_OK;
}

/* A row stride in elements: 0 (dense) or ≥ the row length, 16-byte aligned, and the whole
 * operand (rows × stride × element bytes) addressable in int64. */
static w8a8_status check_stride(w8a8_context *ctx, const char *name, int64_t ld, int64_t rows,
                                int64_t row_length, size_t element_bytes)
{
    if (ld != 0 && ld < row_length)
        return errorf(ctx, W8A8_INVALID, "problem.%s: %" PRId64 " is less than the row length %"
                      PRId64, name, ld, row_length);
    int64_t stride = ld ? ld : row_length, bytes;
    if (__builtin_mul_overflow(stride, (int64_t)element_bytes, &bytes) ||
        __builtin_mul_overflow(bytes, rows, &bytes))
        return errorf(ctx, W8A8_INVALID, "problem.%s: %" PRId64 " × %" PRId64 " rows overflows "
                      "64-bit byte offsets", name, stride, rows);
    if ((stride * (int64_t)element_bytes) % VALIDATE_ALIGN_BYTES != 0)
        return errorf(ctx, W8A8_INVALID, "problem.%s: rows of %" PRId64 " elements × %zu bytes "
                      "are not a multiple of %d bytes%s", name, stride, element_bytes,
                      VALIDATE_ALIGN_BYTES, ld ? "" : " (dense stride)");
    return W8A8_OK;
}

static w8a8_status check_strides(w8a8_context *ctx, const w8a8_problem *p)
{
    if (p->k % VALIDATE_ALIGN_BYTES != 0)
        return errorf(ctx, W8A8_INVALID, "problem.k: %" PRId64 " is not a multiple of %d",
                      p->k, VALIDATE_ALIGN_BYTES);
    w8a8_status st = check_stride(ctx, "lda", p->lda, p->m, p->k, 1);
    if (st == W8A8_OK)
        st = check_stride(ctx, "ldb", p->ldb, p->n, p->k, 1);
    if (st == W8A8_OK)
        st = check_stride(ctx, "ldc", p->ldc, p->m, p->n, w8a8_dtype_size(p->out_type));
    return st;
}

/* One operand's scale layout; `which` is "a_scale" or "b_scale", rows is M or N. */
static w8a8_status check_scale(w8a8_context *ctx, const char *which, const w8a8_scale_layout *s,
                               int64_t rows, int64_t k)
{
    if (s->kind == W8A8_SCALE_TENSOR || s->kind == W8A8_SCALE_ROW)
        return W8A8_OK; /* the other fields are ignored */
    if (s->kind != W8A8_SCALE_BLOCK)
        return errorf(ctx, W8A8_INVALID, "problem.%s.kind: %d is not a w8a8_scale_kind", which,
                      (int)s->kind);
    if (s->group_rows < 1)
        return errorf(ctx, W8A8_INVALID, "problem.%s.group_rows: %d must be at least 1", which,
                      (int)s->group_rows);
    if (s->group_k < 1)
        return errorf(ctx, W8A8_INVALID, "problem.%s.group_k: %d must be at least 1", which,
                      (int)s->group_k);
    if (s->group_k % VALIDATE_ALIGN_BYTES != 0)
        return errorf(ctx, W8A8_UNSUPPORTED, "problem.%s.group_k: %d is not a multiple of %d",
                      which, (int)s->group_k, VALIDATE_ALIGN_BYTES);
    if (s->k_major != 0 && s->k_major != 1)
        return errorf(ctx, W8A8_INVALID, "problem.%s.k_major: %d is not 0 or 1", which,
                      (int)s->k_major);
    int64_t row_blocks = (rows + s->group_rows - 1) / s->group_rows;
    int64_t k_blocks = (k + s->group_k - 1) / s->group_k;
    int64_t dense = s->k_major ? row_blocks : k_blocks;
    int64_t lines = s->k_major ? k_blocks : row_blocks;
    if (s->ld != 0 && s->ld < dense)
        return errorf(ctx, W8A8_INVALID, "problem.%s.ld: %" PRId64 " is less than %" PRId64
                      " (%s)", which, s->ld, dense,
                      s->k_major ? "ceil(rows / group_rows)" : "ceil(k / group_k)");
    int64_t bytes;
    if (__builtin_mul_overflow(s->ld ? s->ld : dense, lines, &bytes) ||
        __builtin_mul_overflow(bytes, (int64_t)sizeof(float), &bytes))
        return errorf(ctx, W8A8_INVALID, "problem.%s.ld: %" PRId64 " overflows 64-bit offsets",
                      which, s->ld);
    return W8A8_OK;
}

static w8a8_status check_scales(w8a8_context *ctx, const w8a8_problem *p)
{
    w8a8_status st = check_scale(ctx, "a_scale", &p->a_scale, p->m, p->k);
    if (st == W8A8_OK)
        st = check_scale(ctx, "b_scale", &p->b_scale, p->n, p->k);
    if (st != W8A8_OK)
        return st;
    if (p->a_scale.kind == W8A8_SCALE_BLOCK && p->b_scale.kind == W8A8_SCALE_BLOCK &&
        p->a_scale.group_k != p->b_scale.group_k)
        return errorf(ctx, W8A8_UNSUPPORTED, "problem.b_scale.group_k: %d differs from "
                      "a_scale.group_k %d (block scales of A and B must share their K groups)",
                      (int)p->b_scale.group_k, (int)p->a_scale.group_k);
    return W8A8_OK;
}

static w8a8_status check_azp(w8a8_context *ctx, const w8a8_problem *p)
{
    if (p->azp == W8A8_AZP_NONE)
        return W8A8_OK;
    if (p->azp != W8A8_AZP_TENSOR && p->azp != W8A8_AZP_TOKEN)
        return errorf(ctx, W8A8_INVALID, "problem.azp: %d is not a w8a8_azp_kind", (int)p->azp);
    if (p->a_type != W8A8_INT8)
        return errorf(ctx, W8A8_INVALID, "problem.azp: a zero point needs int8 A, not %s",
                      dtype_text(p->a_type));
    if (p->a_scale.kind == W8A8_SCALE_BLOCK || p->b_scale.kind == W8A8_SCALE_BLOCK)
        return errorf(ctx, W8A8_INVALID, "problem.azp: a zero point needs per-tensor or per-row "
                      "scales, not block scales on %s",
                      p->a_scale.kind == W8A8_SCALE_BLOCK ? "a_scale" : "b_scale");
    return W8A8_OK;
}

static w8a8_status check_accum(w8a8_context *ctx, const w8a8_problem *p)
{
    if (p->accum != W8A8_ACCUM_FAST && p->accum != W8A8_ACCUM_PROMOTED)
        return errorf(ctx, W8A8_INVALID, "problem.accum: %d is not a w8a8_accum", (int)p->accum);
    return W8A8_OK;
}

w8a8_status validate_problem(w8a8_context *ctx, const w8a8_problem *problem)
{
    if (!problem)
        return errorf(ctx, W8A8_INVALID, "problem is NULL");
    w8a8_status st = check_size(ctx, "m", problem->m);
    if (st == W8A8_OK)
        st = check_size(ctx, "n", problem->n);
    if (st == W8A8_OK)
        st = check_size(ctx, "k", problem->k);
    if (st == W8A8_OK)
        st = check_dtypes(ctx, problem);
    if (st == W8A8_OK)
        st = check_strides(ctx, problem);
    if (st == W8A8_OK)
        st = check_scales(ctx, problem);
    if (st == W8A8_OK)
        st = check_azp(ctx, problem);
    if (st == W8A8_OK)
        st = check_accum(ctx, problem);
    return st;
}

/* A pointer that must be set (`required`) or must not be (it would be ignored, which hides
 * a caller's bug), aligned to `align` bytes when set. */
static w8a8_status check_pointer(w8a8_context *ctx, const char *name, const void *ptr,
                                 bool required, size_t align, const char *why_unused)
{
    if (required && !ptr)
        return errorf(ctx, W8A8_INVALID, "tensors.%s is NULL", name);
    if (!required && ptr)
        return errorf(ctx, W8A8_INVALID, "tensors.%s is set but %s", name, why_unused);
    if (ptr && (uintptr_t)ptr % align != 0)
        return errorf(ctx, W8A8_INVALID, "tensors.%s: %p is not %zu-byte aligned", name, ptr, align);
    return W8A8_OK;
}

/* Per-tensor scales are single floats (4-byte alignment); row and block scales are vectors
 * that kernels load 16 bytes at a time. */
static size_t scale_align(w8a8_scale_kind kind)
{
    return kind == W8A8_SCALE_TENSOR ? sizeof(float) : VALIDATE_ALIGN_BYTES;
}

w8a8_status validate_tensors(w8a8_context *ctx, const w8a8_problem *problem,
                             const w8a8_tensors *tensors)
{
    if (!tensors)
        return errorf(ctx, W8A8_INVALID, "tensors is NULL");
    const w8a8_problem *p = problem;
    bool has_bias = p->bias_type != W8A8_DTYPE_NONE, has_azp = p->azp != W8A8_AZP_NONE;
    const size_t align = VALIDATE_ALIGN_BYTES;
    w8a8_status st = check_pointer(ctx, "a", tensors->a, true, align, "");
    if (st == W8A8_OK)
        st = check_pointer(ctx, "b", tensors->b, true, align, "");
    if (st == W8A8_OK)
        st = check_pointer(ctx, "out", tensors->out, true, align, "");
    if (st == W8A8_OK)
        st = check_pointer(ctx, "a_scale", tensors->a_scale, true, scale_align(p->a_scale.kind), "");
    if (st == W8A8_OK)
        st = check_pointer(ctx, "b_scale", tensors->b_scale, true, scale_align(p->b_scale.kind), "");
    if (st == W8A8_OK)
        st = check_pointer(ctx, "bias", tensors->bias, has_bias, align,
                           "problem.bias_type is none");
    if (st == W8A8_OK)
        st = check_pointer(ctx, "azp", tensors->azp, has_azp, sizeof(int32_t),
                           "problem.azp is W8A8_AZP_NONE");
    if (st == W8A8_OK)
        st = check_pointer(ctx, "b_col_sums", tensors->b_col_sums, has_azp, sizeof(int32_t),
                           "problem.azp is W8A8_AZP_NONE");
    return st;
}

w8a8_status validate_call(w8a8_context *ctx, const w8a8_problem *problem,
                          const w8a8_tensors *tensors)
{
    w8a8_status st = validate_problem(ctx, problem);
    return st == W8A8_OK ? validate_tensors(ctx, problem, tensors) : st;
}
