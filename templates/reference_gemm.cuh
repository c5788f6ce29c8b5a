/* The reference GEMM: the oracle for tests and for the tuner's verification, on any arch
 * ≥ sm_80. One thread computes one output element; simple enough to be obviously right.
 *
 *   out[m, n] = Σ_g ( Σ_{k in g} A[m, k]·B[n, k] ) · sa_blk(m, g) · sb_blk(n, g)
 *               · sa(m) · sb(n)  (+ bias[n])
 *
 * where g runs over the K groups of the block scales (the whole of K when neither operand has
 * block scales), sa_blk/sb_blk are the block scales (1 for other kinds) and sa/sb the
 * per-tensor or per-row scales (1 for block kinds). Within one group the sum is exact in int32
 * for int8 and fp32 for FP8 (each FP8 product is exact in fp32; only the additions round).
 * With a zero point (int8, per-tensor/row scales only):
 *   out = sa(m)·sb(n)·(Σ_k A·B − azp(m)·b_col_sums[n]) (+ bias[n]), the correction in int64.
 * The int32 group sum is exact while group_k·127·128 < 2^31, i.e. K (or group_k) ≤ 131072.
 *
 * Prologue macros read (values in common/gemm_args.h):
 *   W8A8_A_TYPE     W8A8_T_E4M3, W8A8_T_E5M2 or W8A8_T_INT8
 *   W8A8_B_TYPE     FP8 (any mix with A) when A is FP8; W8A8_T_INT8 when A is int8
 *   W8A8_OUT_TYPE   W8A8_T_BF16, W8A8_T_FP16 or W8A8_T_FP32
 *   W8A8_BIAS_TYPE  W8A8_T_NONE, W8A8_OUT_TYPE or W8A8_T_FP32 (N values)
 *   W8A8_A_SCALE    W8A8_S_TENSOR, W8A8_S_ROW (M floats) or W8A8_S_BLOCK
 *   W8A8_B_SCALE    the same for B (ROW = N floats)
 *   W8A8_AZP        W8A8_Z_NONE, W8A8_Z_TENSOR or W8A8_Z_TOKEN (int8 and non-block only)
 *   W8A8_FP8_DECODE_BITS  optional: FP8 decode by integer operations on every arch (tests)
 * Run-time values come from w8a8_gemm_args: sizes, strides (elements), block group shapes,
 * scale leading dimensions (resolved by the host: never 0 here) and k_major flags.
 * Host contract (validate.c): K, group_k and the row strides are multiples of 16, operand
 * pointers 16-byte aligned, and equal group_k when both operands have block scales.
 *
 * Launch: block (W8A8_REF_BLOCK_X, W8A8_REF_BLOCK_Y), grid (ceil(N / X), any y ≥ 1); rows
 * beyond gridDim.y · Y are covered by a grid-stride loop, so M has no grid limit. */
#include "common/gemm_args.h"
#include "common/types.cuh"

#if !defined(W8A8_A_TYPE) || !defined(W8A8_B_TYPE) || !defined(W8A8_OUT_TYPE) ||            \
    !defined(W8A8_BIAS_TYPE) || !defined(W8A8_A_SCALE) || !defined(W8A8_B_SCALE) ||         \
    !defined(W8A8_AZP)
#error "reference_gemm needs W8A8_A_TYPE, B_TYPE, OUT_TYPE, BIAS_TYPE, A_SCALE, B_SCALE, AZP"
#endif

#define W8A8_REF_BLOCK_X 32
#define W8A8_REF_BLOCK_Y 8

#define W8A8_REF_IS_FP8(t) ((t) == W8A8_T_E4M3 || (t) == W8A8_T_E5M2)
#define W8A8_REF_IS_SCALE(s) ((s) == W8A8_S_TENSOR || (s) == W8A8_S_ROW || (s) == W8A8_S_BLOCK)

static_assert(W8A8_REF_IS_FP8(W8A8_A_TYPE) || W8A8_A_TYPE == W8A8_T_INT8, "W8A8_A_TYPE");
static_assert(W8A8_REF_IS_FP8(W8A8_A_TYPE) ? W8A8_REF_IS_FP8(W8A8_B_TYPE)
                                           : W8A8_B_TYPE == W8A8_T_INT8,
              "W8A8_B_TYPE must be FP8 with FP8 A, int8 with int8 A");
static_assert(W8A8_OUT_TYPE == W8A8_T_BF16 || W8A8_OUT_TYPE == W8A8_T_FP16 ||
                  W8A8_OUT_TYPE == W8A8_T_FP32, "W8A8_OUT_TYPE");
static_assert(W8A8_BIAS_TYPE == W8A8_T_NONE || W8A8_BIAS_TYPE == W8A8_OUT_TYPE ||
                  W8A8_BIAS_TYPE == W8A8_T_FP32, "W8A8_BIAS_TYPE");
static_assert(W8A8_REF_IS_SCALE(W8A8_A_SCALE) && W8A8_REF_IS_SCALE(W8A8_B_SCALE),
              "W8A8_A_SCALE / W8A8_B_SCALE");
static_assert(W8A8_AZP == W8A8_Z_NONE || W8A8_AZP == W8A8_Z_TENSOR || W8A8_AZP == W8A8_Z_TOKEN,
              "W8A8_AZP");
static_assert(W8A8_AZP == W8A8_Z_NONE ||
                  (W8A8_A_TYPE == W8A8_T_INT8 && W8A8_A_SCALE != W8A8_S_BLOCK &&
                   W8A8_B_SCALE != W8A8_S_BLOCK),
              "a zero point needs int8 A and per-tensor/row scales");

#if W8A8_A_TYPE == W8A8_T_INT8
typedef w8a8_s32 w8a8_ref_acc; /* exact */
#else
typedef float w8a8_ref_acc;    /* products exact, sums rounded */
#endif

/* Four packed FP8 codes of dtype T → floats, lowest byte first. */
template <int T>
W8A8_DEVICE void w8a8_ref_fp8x4(w8a8_u32 word, float v[4])
{
    if (T == W8A8_T_E4M3) {
        w8a8_e4m3x2_to_f32x2((w8a8_u16)(word & 0xFFFFu), v[0], v[1]);
        w8a8_e4m3x2_to_f32x2((w8a8_u16)(word >> 16), v[2], v[3]);
    } else {
        w8a8_e5m2x2_to_f32x2((w8a8_u16)(word & 0xFFFFu), v[0], v[1]);
        w8a8_e5m2x2_to_f32x2((w8a8_u16)(word >> 16), v[2], v[3]);
    }
}

/* Σ of the four products of two words of packed operands, added to acc in order. */
W8A8_DEVICE void w8a8_ref_dot4(w8a8_u32 a_word, w8a8_u32 b_word, w8a8_ref_acc &acc)
{
#if W8A8_A_TYPE == W8A8_T_INT8
    for (int i = 0; i < 4; i++)
        acc += (w8a8_s32)(w8a8_s8)(a_word >> (8 * i)) * (w8a8_s32)(w8a8_s8)(b_word >> (8 * i));
#else
    float a[4], b[4];
    w8a8_ref_fp8x4<W8A8_A_TYPE>(a_word, a);
    w8a8_ref_fp8x4<W8A8_B_TYPE>(b_word, b);
    for (int i = 0; i < 4; i++)
        acc = fmaf(a[i], b[i], acc); /* = acc + a·b: the product is exact */
#endif
}

/* Σ_{k0 ≤ k < k1} A[m, k]·B[n, k] from row pointers; k0 and k1 are multiples of 16. */
W8A8_DEVICE w8a8_ref_acc w8a8_ref_dot(const w8a8_u8 *a_row, const w8a8_u8 *b_row,
                                      long long k0, long long k1)
{
    w8a8_ref_acc acc = 0;
    for (long long k = k0; k < k1; k += 16) {
        const w8a8_u32x4 a = *(const w8a8_u32x4 *)(a_row + k);
        const w8a8_u32x4 b = *(const w8a8_u32x4 *)(b_row + k);
        w8a8_ref_dot4(a.x, b.x, acc);
        w8a8_ref_dot4(a.y, b.y, acc);
        w8a8_ref_dot4(a.z, b.z, acc);
        w8a8_ref_dot4(a.w, b.w, acc);
    }
    return acc;
}

/* Scale of element (row, k) in a block-scale matrix (row-major or K-major, leading dim ld). */
W8A8_DEVICE float w8a8_ref_block_scale(const float *scale, long long ld, int group_rows,
                                       int group_k, int k_major, long long row, long long k)
{
    long long row_block = row / group_rows, k_block = k / group_k;
    return k_major ? scale[k_block * ld + row_block] : scale[row_block * ld + k_block];
}

/* The K extent over which the raw accumulator runs before block scales are applied. */
W8A8_DEVICE long long w8a8_ref_k_group(const w8a8_gemm_args &args)
{
#if W8A8_A_SCALE == W8A8_S_BLOCK
    return args.a_group_k;
#elif W8A8_B_SCALE == W8A8_S_BLOCK
    return args.b_group_k;
#else
    return args.k;
#endif
}

/* The group sums of row m and column n with block scales applied, in fp32. */
W8A8_DEVICE float w8a8_ref_blocked_sum(const w8a8_gemm_args &args, long long m, long long n)
{
    const w8a8_u8 *a_row = (const w8a8_u8 *)args.a + m * args.lda;
    const w8a8_u8 *b_row = (const w8a8_u8 *)args.b + n * args.ldb;
    const long long group = w8a8_ref_k_group(args);
    float total = 0.0f;
    for (long long k0 = 0; k0 < args.k; k0 += group) {
        long long k1 = k0 + group < args.k ? k0 + group : args.k;
        w8a8_ref_acc acc = w8a8_ref_dot(a_row, b_row, k0, k1);
#if W8A8_AZP != W8A8_Z_NONE
        /* One group spans all of K here (static_assert above), so the correction is whole. */
        long long azp = args.azp[W8A8_AZP == W8A8_Z_TOKEN ? m : 0];
        float part = (float)((long long)acc - azp * (long long)args.b_col_sums[n]);
#else
        float part = (float)acc;
#endif
#if W8A8_A_SCALE == W8A8_S_BLOCK
        part *= w8a8_ref_block_scale(args.a_scale, args.a_scale_ld, args.a_group_rows,
                                     args.a_group_k, args.a_scale_k_major, m, k0);
#endif
#if W8A8_B_SCALE == W8A8_S_BLOCK
        part *= w8a8_ref_block_scale(args.b_scale, args.b_scale_ld, args.b_group_rows,
                                     args.b_group_k, args.b_scale_k_major, n, k0);
#endif
        total += part;
    }
    return total;
}

W8A8_DEVICE float w8a8_ref_output(const w8a8_gemm_args &args, long long m, long long n)
{
    float value = w8a8_ref_blocked_sum(args, m, n);
#if W8A8_A_SCALE == W8A8_S_TENSOR
    value *= args.a_scale[0];
#elif W8A8_A_SCALE == W8A8_S_ROW
    value *= args.a_scale[m];
#endif
#if W8A8_B_SCALE == W8A8_S_TENSOR
    value *= args.b_scale[0];
#elif W8A8_B_SCALE == W8A8_S_ROW
    value *= args.b_scale[n];
#endif
#if W8A8_BIAS_TYPE == W8A8_T_FP32
    value += ((const float *)args.bias)[n];
#elif W8A8_BIAS_TYPE == W8A8_T_BF16
    value += w8a8_bf16_to_f32(((const w8a8_u16 *)args.bias)[n]);
#elif W8A8_BIAS_TYPE == W8A8_T_FP16
    value += w8a8_fp16_to_f32(((const w8a8_u16 *)args.bias)[n]);
#endif
    return value;
}

extern "C" __global__ void __launch_bounds__(W8A8_REF_BLOCK_X * W8A8_REF_BLOCK_Y)
w8a8_reference_gemm(w8a8_gemm_args args)
{
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= args.n)
        return; /* no barriers below, so early exit is safe */
    const long long row_step = (long long)gridDim.y * blockDim.y;
    for (long long m = (long long)blockIdx.y * blockDim.y + threadIdx.y; m < args.m;
         m += row_step) {
        const float value = w8a8_ref_output(args, m, n);
        const long long at = m * args.ldc + n;
#if W8A8_OUT_TYPE == W8A8_T_FP32
        ((float *)args.out)[at] = value;
#elif W8A8_OUT_TYPE == W8A8_T_BF16
        ((w8a8_u16 *)args.out)[at] = w8a8_f32_to_bf16(value);
#else
        ((w8a8_u16 *)args.out)[at] = w8a8_f32_to_fp16(value);
#endif
    }
}
