/* w8a8_scaled_mm_cpu: the scaled matmul on the CPU, written from the definition rather than
 * from any kernel's structure, so it can judge the kernels (the GPU reference included):
 *
 *   out[m, n] = Σ_k sa(m, k)·A[m, k] · sb(n, k)·B[n, k]  (+ bias[n])
 *
 * with every scale kind expanded to a per-element scale, accumulated in fp64 and rounded once
 * to out_type. With a zero point (per-tensor/row scales only) the literal formula of the
 * header is used, with the integer sum exact in int64:
 *
 *   out[m, n] = sa(m)·sb(n)·(Σ_k A·B − azp(m)·b_col_sums[n])  (+ bias[n])  */
#include <inttypes.h>
#include <stdlib.h>

#include "gemm.h"
#include "numeric.h"

/* Rows of B dequantized at once: bounds the scratch memory to CPU_B_ROWS · K doubles. */
#define CPU_B_ROWS 64
#define CPU_CODES 256 /* values of an 8-bit code */

/* The per-element scale of (row, k) for one operand. */
static double scale_at(const float *scale, const w8a8_scale_layout *layout, int64_t row, int64_t k)
{
    switch (layout->kind) {
    case W8A8_SCALE_TENSOR: return scale[0];
    case W8A8_SCALE_ROW: return scale[row];
    case W8A8_SCALE_BLOCK: {
        int64_t row_block = row / layout->group_rows, k_block = k / layout->group_k;
        return layout->k_major ? scale[k_block * layout->ld + row_block]
                               : scale[row_block * layout->ld + k_block];
    }
    }
    return 0.0; /* unreachable for a validated problem */
}

/* Decoded value of every 8-bit code of dtype (FP8 or int8). */
static void code_table(w8a8_dtype dtype, double table[CPU_CODES])
{
    for (int code = 0; code < CPU_CODES; code++) {
        uint8_t byte = (uint8_t)code;
        float value = 0.0f;
        num_load_f32(dtype, &byte, 0, &value);
        table[code] = value;
    }
}

/* row[k] = s(row_index, k) · X[row_index, k] for one row of an operand. */
static void dequantize_row(const uint8_t *codes, const double table[CPU_CODES],
                           const float *scale, const w8a8_scale_layout *layout,
                           int64_t row_index, int64_t k, double *row)
{
    for (int64_t i = 0; i < k; i++)
        row[i] = table[codes[i]] * scale_at(scale, layout, row_index, i);
}

static double bias_at(const w8a8_problem *p, const w8a8_tensors *t, int64_t n)
{
    float value = 0.0f;
    if (p->bias_type != W8A8_DTYPE_NONE)
        num_load_f32(p->bias_type, t->bias, n, &value);
    return value;
}

/* The zero-point path: int8, per-tensor/row scales, exact integer sums. */
static void azp_output(const w8a8_problem *p, const w8a8_tensors *t, int64_t m, int64_t n)
{
    const int8_t *a = (const int8_t *)t->a + m * p->lda;
    const int8_t *b = (const int8_t *)t->b + n * p->ldb;
    int64_t acc = 0;
    for (int64_t k = 0; k < p->k; k++)
        acc += (int64_t)a[k] * b[k];
    int64_t azp = t->azp[p->azp == W8A8_AZP_TOKEN ? m : 0];
    acc -= azp * (int64_t)t->b_col_sums[n];
    double value = (double)acc * scale_at(t->a_scale, &p->a_scale, m, 0) *
                   scale_at(t->b_scale, &p->b_scale, n, 0);
    num_store_f64(p->out_type, t->out, m * p->ldc + n, value + bias_at(p, t, n));
}

/* Columns [n0, n0 + count) of every row, from B rows already dequantized into b_rows. */
static void dense_block(const w8a8_problem *p, const w8a8_tensors *t, const double *a_table,
                        const double *b_rows, int64_t n0, int64_t count, double *a_row)
{
    for (int64_t m = 0; m < p->m; m++) {
        dequantize_row((const uint8_t *)t->a + m * p->lda, a_table, t->a_scale, &p->a_scale, m,
                       p->k, a_row);
        for (int64_t j = 0; j < count; j++) {
            const double *b_row = b_rows + j * p->k;
            double acc = 0.0;
            for (int64_t k = 0; k < p->k; k++)
                acc += a_row[k] * b_row[k];
            num_store_f64(p->out_type, t->out, m * p->ldc + n0 + j, acc + bias_at(p, t, n0 + j));
        }
    }
}

static w8a8_status dense_output(w8a8_context *ctx, const w8a8_problem *p, const w8a8_tensors *t)
{
    double a_table[CPU_CODES], b_table[CPU_CODES];
    code_table(p->a_type, a_table);
    code_table(p->b_type, b_table);
    int64_t rows = p->n < CPU_B_ROWS ? p->n : CPU_B_ROWS;
    double *a_row = malloc((size_t)p->k * sizeof *a_row);
    double *b_rows = malloc((size_t)(rows * p->k) * sizeof *b_rows);
    if (!a_row || !b_rows) {
        free(a_row);
        free(b_rows);
        return errorf(ctx, W8A8_NO_MEMORY, "w8a8_scaled_mm_cpu: out of host memory for %" PRId64
                      " × %" PRId64 " doubles", rows + 1, p->k);
    }
    for (int64_t n0 = 0; n0 < p->n; n0 += rows) {
        int64_t count = p->n - n0 < rows ? p->n - n0 : rows;
        for (int64_t j = 0; j < count; j++)
            dequantize_row((const uint8_t *)t->b + (n0 + j) * p->ldb, b_table, t->b_scale,
                           &p->b_scale, n0 + j, p->k, b_rows + j * p->k);
        dense_block(p, t, a_table, b_rows, n0, count, a_row);
    }
    free(a_row);
    free(b_rows);
    return W8A8_OK;
}

w8a8_status w8a8_scaled_mm_cpu(w8a8_context *ctx, const w8a8_problem *problem,
                               const w8a8_tensors *tensors)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    error_clear(ctx);
    w8a8_status st = validate_call(ctx, problem, tensors);
    if (st != W8A8_OK)
        return st;
    w8a8_problem p;
    gemm_problem_resolve(problem, &p);
    if (p.azp == W8A8_AZP_NONE)
        return dense_output(ctx, &p, tensors);
    for (int64_t m = 0; m < p.m; m++)
        for (int64_t n = 0; n < p.n; n++)
            azp_output(&p, tensors, m, n);
    return W8A8_OK;
}
