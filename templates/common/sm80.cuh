/* mma.sync-era device helpers (any arch from sm_80 on), shared by the families built on
 * mma.sync (sm80_decode, sm80_gemm):
 *
 *   w8a8_mma_k32<PTX_A, PTX_B>::run(c, a0, a1, a2, a3, b0, b1)
 *       c += A(16×32) · B(32×8) with mma.sync.aligned.m16n8k32.row.col; PTX_A / PTX_B are the
 *       W8A8_T_* types of the instruction's A and B operands: INT8 × INT8 (.s32.s8.s8.s32, from
 *       sm_80) or any e4m3/e5m2 mix (.f32.<a>.<b>.f32, from sm_89). ::acc_t is int or float.
 *       Fragments (g = lane / 4, t = lane % 4): a0 (row g, k 4t…4t+3), a1 (row g + 8, the
 *       same k), a2 / a3 the same rows at k 16 + 4t…; b0 (k 4t…4t+3, col g), b1 (k 16 + 4t…,
 *       col g); c0, c1 (row g, cols 2t, 2t + 1), c2, c3 (row g + 8, the same cols).
 *   w8a8_mma_k16_f16(c, a0, a1, a2, a3, b0, b1)
 *       c += A(16×16) · B(16×8), f16 operands, f32 accumulators (mma.sync m16n8k16): a0 (row
 *       g, k 2t, 2t + 1), a1 (row g + 8, the same k), a2 / a3 the same rows at k 8 + 2t…; b0
 *       (k 2t, 2t + 1, col g), b1 (k 8 + 2t…, col g); c as above
 *   w8a8_fp8x4_to_f16x2<TYPE>(word, lo, hi), w8a8_fp8_unpack_factor<TYPE>()
 *       four FP8 codes (W8A8_T_E4M3 / E5M2) → two f16x2 holding their values divided by the
 *       factor, exactly: cvt from sm_89 on (bytes 0, 1 → lo; 2, 3 → hi; the lower byte in
 *       the lower half; factor 1), integer operations on sm_80/86 or with W8A8_SOFT_FP8=1
 *       (W8A8_FP8_UNPACK_BITS: bytes 1, 3 → lo, 0, 2 → hi; factor 256 for e4m3, whose NaN code
 *       counts as ±480, 1 for e5m2); a kernel unpacks both operands of an mma alike and
 *       multiplies its sums by the factors once (powers of 2: exact)
 *   w8a8_smem_u32(p)             a shared-memory pointer as the 32-bit address PTX takes
 *   w8a8_ldmatrix_x4(r, addr)    ldmatrix.m8n8.x4.b16: lanes 8i…8i+7 give the 8 row addresses
 *                                (16 bytes each) of matrix i; r[i] = the 4 bytes of matrix i
 *                                at row lane / 4, bytes 4·(lane % 4)… — for 8-bit data exactly
 *                                one mma.sync k32 fragment register
 *   w8a8_cp_async16(dst, src, valid)
 *                                cp.async.cg 16 bytes global → shared, bypassing L1; zeros
 *                                when !valid (src is then not read, but must be a pointer)
 *   w8a8_cp_async16_all(dst, src)   the same, always the 16 bytes
 *   w8a8_cp_async_commit(), w8a8_cp_async_wait<N>()
 *                                close a group; wait until at most N groups are in flight
 *
 * An FP8 specialization is only instantiated by code that uses it, so INT8 kernels of these
 * families still compile for sm_80/86. */
#ifndef W8A8_SM80_CUH
#define W8A8_SM80_CUH

#include "common/gemm_args.h"
#include "common/types.cuh"

/* ---- mma.sync.m16n8k32 ----------------------------------------------------------------- */

template <int PTX_A, int PTX_B> struct w8a8_mma_k32;

template <> struct w8a8_mma_k32<W8A8_T_INT8, W8A8_T_INT8> {
    typedef int acc_t;
    static __device__ __forceinline__ void run(int (&c)[4], w8a8_u32 a0, w8a8_u32 a1,
                                               w8a8_u32 a2, w8a8_u32 a3, w8a8_u32 b0,
                                               w8a8_u32 b1)
    {
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"
                     " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
};

#define W8A8_MMA_K32_FP8(ta, tb, ptx)                                                          \
    template <> struct w8a8_mma_k32<ta, tb> {                                                  \
        typedef float acc_t;                                                                   \
        static __device__ __forceinline__ void run(float (&c)[4], w8a8_u32 a0, w8a8_u32 a1,    \
                                                   w8a8_u32 a2, w8a8_u32 a3, w8a8_u32 b0,      \
                                                   w8a8_u32 b1)                                \
        {                                                                                      \
            asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." ptx ".f32"                   \
                         " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"    \
                         : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                      \
                         : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));              \
        }                                                                                      \
    };
W8A8_MMA_K32_FP8(W8A8_T_E4M3, W8A8_T_E4M3, "e4m3.e4m3")
W8A8_MMA_K32_FP8(W8A8_T_E4M3, W8A8_T_E5M2, "e4m3.e5m2")
W8A8_MMA_K32_FP8(W8A8_T_E5M2, W8A8_T_E4M3, "e5m2.e4m3")
W8A8_MMA_K32_FP8(W8A8_T_E5M2, W8A8_T_E5M2, "e5m2.e5m2")
#undef W8A8_MMA_K32_FP8

/* ---- mma.sync.m16n8k16 on f16, and FP8 → f16 ------------------------------------------- */

W8A8_DEVICE void w8a8_mma_k16_f16(float (&c)[4], w8a8_u32 a0, w8a8_u32 a1, w8a8_u32 a2,
                                  w8a8_u32 a3, w8a8_u32 b0, w8a8_u32 b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
                 " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* FP8 → f16 with integer operations: sm_80/86 have no cvt from FP8, and a test may ask for
 * this path elsewhere (W8A8_SOFT_FP8=1). Bytes 1, 3 of a word become lo and bytes 0, 2 (the
 * word shifted left by 8) hi — another pairing than cvt's (0, 1 and 2, 3), harmless as both
 * operands of an mma are unpacked alike (the same K permutation). An e5m2 code is the high byte
 * of its f16, exact (inf and NaN too). An e4m3 code's sign stays at bit 15 and its exponent and
 * mantissa move down one bit into f16's, which reads 2^-8 times its value (subnormals
 * included: an e4m3 subnormal m · 2^-9 reads as the f16 subnormal m · 2^-17): the caller
 * multiplies its sums by 256 per e4m3 operand; the NaN code S.1111.111 counts as ±480, not
 * NaN. Three integer operations an f16x2 for e4m3, one for e5m2, and the shift a word (an
 * f16x2 multiply per e4m3 f16x2 instead of the one on the sums ran 1.2× slower on an H200). */
#ifndef W8A8_SOFT_FP8
#define W8A8_SOFT_FP8 0
#endif
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890) || W8A8_SOFT_FP8
#define W8A8_FP8_UNPACK_BITS 1
#else
#define W8A8_FP8_UNPACK_BITS 0
#endif

template <int TYPE> struct w8a8_fp8x4_to_f16x2_op;
#if W8A8_FP8_UNPACK_BITS
template <int TYPE> struct w8a8_fp8x4_to_f16x2_op {
    static constexpr float factor = TYPE == W8A8_T_E4M3 ? 256.0f : 1.0f;
    /* the codes in bits 15..8 and 31..24 of p as f16x2 (the bits below them ignored) */
    static __device__ __forceinline__ w8a8_u32 f16x2_of_high_bytes(w8a8_u32 p)
    {
        if (TYPE == W8A8_T_E5M2)
            return p & 0xFF00FF00u;
        return (p & 0x80008000u) | ((p >> 1) & 0x3F803F80u);
    }
    static __device__ __forceinline__ void run(w8a8_u32 word, w8a8_u32 &lo, w8a8_u32 &hi)
    {
        lo = f16x2_of_high_bytes(word);      /* bytes 1, 3 */
        hi = f16x2_of_high_bytes(word << 8); /* bytes 0, 2 */
    }
};
#else
#define W8A8_FP8X4_TO_F16X2(type, ptx)                                                         \
    template <> struct w8a8_fp8x4_to_f16x2_op<type> {                                          \
        static constexpr float factor = 1.0f;                                                  \
        static __device__ __forceinline__ void run(w8a8_u32 word, w8a8_u32 &lo, w8a8_u32 &hi)  \
        {                                                                                      \
            asm("{ .reg .b16 l, h; mov.b32 {l, h}, %2;"                                        \
                " cvt.rn.f16x2." ptx "x2 %0, l; cvt.rn.f16x2." ptx "x2 %1, h; }"               \
                : "=r"(lo), "=r"(hi) : "r"(word));                                             \
        }                                                                                      \
    };
W8A8_FP8X4_TO_F16X2(W8A8_T_E4M3, "e4m3")
W8A8_FP8X4_TO_F16X2(W8A8_T_E5M2, "e5m2")
#undef W8A8_FP8X4_TO_F16X2
#endif

template <int TYPE>
W8A8_DEVICE void w8a8_fp8x4_to_f16x2(w8a8_u32 word, w8a8_u32 &lo, w8a8_u32 &hi)
{
    w8a8_fp8x4_to_f16x2_op<TYPE>::run(word, lo, hi);
}

template <int TYPE> W8A8_DEVICE constexpr float w8a8_fp8_unpack_factor()
{
    return w8a8_fp8x4_to_f16x2_op<TYPE>::factor;
}

/* ---- shared memory: addresses, ldmatrix, cp.async -------------------------------------- */

W8A8_DEVICE w8a8_u32 w8a8_smem_u32(const void *ptr)
{
    w8a8_u32 addr;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(addr) : "l"(ptr));
    return addr;
}

W8A8_DEVICE void w8a8_ldmatrix_x4(w8a8_u32 (&r)[4], w8a8_u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

W8A8_DEVICE void w8a8_cp_async16(w8a8_u32 dst, const void *src, bool valid)
{
    const int bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                 "r"(bytes)
                 : "memory");
}

/* The same, always 16 bytes: no source-size operand */
W8A8_DEVICE void w8a8_cp_async16_all(w8a8_u32 dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

W8A8_DEVICE void w8a8_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int N> W8A8_DEVICE void w8a8_cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

#endif /* W8A8_SM80_CUH */
