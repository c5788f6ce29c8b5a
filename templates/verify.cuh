/* verify.cuh — the tuner's check of a candidate's output against the reference, on the GPU, so
 * that verifying a large product copies three words to the host instead of the whole output.
 * Host side: tuner/timing.c (timing_verify).
 *
 * Entry w8a8_verify_compare(out, ldc, m, n, ref, rows, row_count, ulp_rel, acc_abs, result):
 *  - every element out[r·ldc + c], r < m, c < n, must be finite: the host poisons the output
 *    with 0xFF bytes (NaN in bf16, fp16 and fp32) before the launch, so a non-finite element is
 *    one the candidate did not write (or wrote as NaN/inf) — result[0] counts them;
 *  - for each i < row_count, out row rows[i] is compared with ref row i (stride ldc):
 *    |out − ref| ≤ ulp_rel · |ref| + acc_abs element-wise (timing_tolerance's bound) —
 *    result[1] counts the elements that miss it (NaN counts), result[2] is the largest
 *    |out − ref| as float bits (+inf for NaN; non-negative floats order like their bits).
 * result[0..2] must be zero before the launch.
 *
 * Parameters (prologue macros):
 *   W8A8_OUT_TYPE   4 bf16, 5 fp16, 6 fp32 (common/gemm_args.h)
 *
 * Launch: one-dimensional, any grid (blocks stride over rows), blockDim.x a multiple of 32. */
#include "common/gemm_args.h"
#include "common/types.cuh"

#ifndef W8A8_OUT_TYPE
#error "verify needs W8A8_OUT_TYPE"
#endif
static_assert(W8A8_OUT_TYPE == W8A8_T_BF16 || W8A8_OUT_TYPE == W8A8_T_FP16 ||
                  W8A8_OUT_TYPE == W8A8_T_FP32,
              "W8A8_OUT_TYPE: bf16 (4), fp16 (5) or fp32 (6)");

W8A8_DEVICE float verify_load(const void *base, long long index)
{
#if W8A8_OUT_TYPE == W8A8_T_BF16
    return w8a8_bf16_to_f32(((const w8a8_u16 *)base)[index]);
#elif W8A8_OUT_TYPE == W8A8_T_FP16
    return w8a8_fp16_to_f32(((const w8a8_u16 *)base)[index]);
#else
    return ((const float *)base)[index];
#endif
}

/* Finite: exponent not all ones (NaN and ±inf have it). */
W8A8_DEVICE bool verify_finite(float value)
{
    return (__float_as_uint(value) & 0x7F800000u) != 0x7F800000u;
}

extern "C" __global__ void w8a8_verify_compare(const void *out, long long ldc, long long m,
                                               long long n, const void *ref, const int *rows,
                                               int row_count, float ulp_rel, float acc_abs,
                                               unsigned *result)
{
    unsigned nonfinite = 0, failed = 0;
    float worst = 0.0f;
    for (long long r = blockIdx.x; r < m; r += gridDim.x)
        for (long long c = threadIdx.x; c < n; c += blockDim.x)
            nonfinite += !verify_finite(verify_load(out, r * ldc + c));
    for (long long i = blockIdx.x; i < row_count; i += gridDim.x) {
        long long row = rows[i];
        for (long long c = threadIdx.x; c < n; c += blockDim.x) {
            float want = verify_load(ref, i * ldc + c);
            float got = verify_load(out, row * ldc + c);
            float diff = fabsf(got - want);
            if (!verify_finite(diff))
                diff = __int_as_float(0x7F800000); /* NaN or inf: the worst */
            worst = fmaxf(worst, diff);
            failed += !(diff <= ulp_rel * fabsf(want) + acc_abs);
        }
    }
    const unsigned all = 0xFFFFFFFFu;
    nonfinite = __reduce_add_sync(all, nonfinite);
    failed = __reduce_add_sync(all, failed);
    unsigned worst_bits = __reduce_max_sync(all, __float_as_uint(worst));
    if ((threadIdx.x & 31) == 0) {
        if (nonfinite)
            atomicAdd(&result[0], nonfinite);
        if (failed)
            atomicAdd(&result[1], failed);
        if (worst_bits)
            atomicMax(&result[2], worst_bits);
    }
}
