/* Epilogue and scale helpers every GEMM family shares (any arch from sm_80 on): packing to
 * the 16-bit out dtypes, bias loads, predicated stores of one or two adjacent outputs, the
 * per-token / per-channel / per-tensor scale of a row or column, and the index of a block
 * scale (promoted accumulation). Include after the problem traits are defined; reads
 * W8A8_OUT_TYPE, W8A8_BIAS_TYPE, W8A8_A_SCALE, W8A8_B_SCALE (common/gemm_args.h values).
 *
 *   w8a8_pack_bf16x2, w8a8_pack_f16x2   (lo, hi) → packed pair, round to nearest even
 *   w8a8_pack_out2                      the same in the 16-bit out dtype
 *   w8a8_load_bias(bias, col)           bias[col] as float (0 without a bias)
 *   w8a8_store1 / w8a8_store2           one value, or two at col, col + 1 (pair: col + 1 < N)
 *   w8a8_a_scale_at(args, row)          sa for an output row (1 with block scales)
 *   w8a8_b_scale_at(args, col)          sb for an output column (1 with block scales)
 *   w8a8_block_scale(ptr, k_major, ld, index, kb)
 *                                       a block-scale matrix's entry for (row or block row
 *                                       `index`, K block kb), row-major or K-major
 *   w8a8_block_scale_ptr(...)           the same entry's address
 *   w8a8_azp_corrected(args, sum, row, col)
 *                                       an accumulator as float, less azp · Σ_k B[col, k]
 *                                       when W8A8_AZP asks for it (in int32 for INT8 sums);
 *                                       defined when the template defines W8A8_AZP */
#ifndef W8A8_EPILOGUE_CUH
#define W8A8_EPILOGUE_CUH

#include "common/gemm_args.h"
#include "common/types.cuh"

#if !defined(W8A8_OUT_TYPE) || !defined(W8A8_BIAS_TYPE) || !defined(W8A8_A_SCALE) ||          \
    !defined(W8A8_B_SCALE)
#error "common/epilogue.cuh needs W8A8_OUT_TYPE, W8A8_BIAS_TYPE, W8A8_A_SCALE, W8A8_B_SCALE"
#endif

#define W8A8_OUT_BYTES (W8A8_OUT_TYPE == W8A8_T_FP32 ? 4 : 2)

W8A8_DEVICE w8a8_u32 w8a8_pack_bf16x2(float lo, float hi)
{
    w8a8_u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

W8A8_DEVICE w8a8_u32 w8a8_pack_f16x2(float lo, float hi)
{
    w8a8_u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

W8A8_DEVICE float w8a8_load_bias(const void *bias, long long col)
{
#if W8A8_BIAS_TYPE == W8A8_T_FP32
    return __ldg((const float *)bias + col);
#elif W8A8_BIAS_TYPE == W8A8_T_BF16
    return w8a8_bf16_to_f32(__ldg((const unsigned short *)bias + col));
#elif W8A8_BIAS_TYPE == W8A8_T_FP16
    return w8a8_fp16_to_f32(__ldg((const unsigned short *)bias + col));
#else
    (void)bias;
    (void)col;
    return 0.0f;
#endif
}

#if W8A8_OUT_TYPE != W8A8_T_FP32
/* (v0, v1) packed in the 16-bit out dtype. */
W8A8_DEVICE w8a8_u32 w8a8_pack_out2(float v0, float v1)
{
#if W8A8_OUT_TYPE == W8A8_T_BF16
    return w8a8_pack_bf16x2(v0, v1);
#else
    return w8a8_pack_f16x2(v0, v1);
#endif
}
#endif

/* Stores (v0, v1) at columns col, col+1 of an output row; `pair` says col+1 < N. */
W8A8_DEVICE void w8a8_store2(void *row_ptr, long long col, float v0, float v1, bool pair)
{
#if W8A8_OUT_TYPE == W8A8_T_FP32
    float *p = (float *)row_ptr + col;
    if (pair)
        *(float2 *)p = make_float2(v0, v1);
    else
        *p = v0;
#else
    const w8a8_u32 packed = w8a8_pack_out2(v0, v1);
    unsigned short *p = (unsigned short *)row_ptr + col;
    if (pair)
        *(w8a8_u32 *)p = packed;
    else
        *p = (unsigned short)(packed & 0xFFFFu);
#endif
}

/* Stores v at column col of an output row. */
W8A8_DEVICE void w8a8_store1(void *row_ptr, long long col, float v)
{
#if W8A8_OUT_TYPE == W8A8_T_FP32
    ((float *)row_ptr)[col] = v;
#elif W8A8_OUT_TYPE == W8A8_T_BF16
    ((unsigned short *)row_ptr)[col] = w8a8_f32_to_bf16(v);
#else
    ((unsigned short *)row_ptr)[col] = w8a8_f32_to_fp16(v);
#endif
}

/* Epilogue scales. Block scales are applied in the main loop, so the epilogue sees 1. */
W8A8_DEVICE float w8a8_a_scale_at(const w8a8_gemm_args &args, long long row)
{
#if W8A8_A_SCALE == W8A8_S_ROW
    return __ldg(args.a_scale + row);
#elif W8A8_A_SCALE == W8A8_S_TENSOR
    (void)row;
    return __ldg(args.a_scale);
#else
    (void)args;
    (void)row;
    return 1.0f;
#endif
}

W8A8_DEVICE float w8a8_b_scale_at(const w8a8_gemm_args &args, long long col)
{
#if W8A8_B_SCALE == W8A8_S_ROW
    return __ldg(args.b_scale + col);
#elif W8A8_B_SCALE == W8A8_S_TENSOR
    (void)col;
    return __ldg(args.b_scale);
#else
    (void)args;
    (void)col;
    return 1.0f;
#endif
}

/* Entry (index, kb) of a block-scale matrix: index is a row of A (1×128 groups) or a block
 * row of B (128×128 groups), kb the K block; row-major (index·ld + kb) or K-major
 * (kb·ld + index). */
W8A8_DEVICE const float *w8a8_block_scale_ptr(const float *scale, int k_major, long long ld,
                                              long long index, long long kb)
{
    return scale + (k_major ? kb * ld + index : index * ld + kb);
}

W8A8_DEVICE float w8a8_block_scale(const float *scale, int k_major, long long ld,
                                   long long index, long long kb)
{
    return __ldg(w8a8_block_scale_ptr(scale, k_major, ld, index, kb));
}

#ifdef W8A8_AZP
/* INT8 with an activation zero point: Σ_k (A − azp)·B = Σ_k A·B − azp·colsum(B), exact in
 * int32; FP8 sums pass through. */
template <typename Acc>
static __device__ __forceinline__ float w8a8_azp_corrected(const w8a8_gemm_args &args, Acc sum,
                                                           long long row, long long col)
{
#if W8A8_AZP == W8A8_Z_TOKEN
    return (float)(sum - __ldg(args.azp + row) * __ldg(args.b_col_sums + col));
#elif W8A8_AZP == W8A8_Z_TENSOR
    (void)row;
    return (float)(sum - __ldg(args.azp) * __ldg(args.b_col_sums + col));
#else
    (void)args;
    (void)row;
    (void)col;
    return (float)sum;
#endif
}
#endif

#endif /* W8A8_EPILOGUE_CUH */
