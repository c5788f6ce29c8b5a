/* mma_peak: the throughput ceiling of mma.sync.aligned.m16n8k32 on this GPU (`w8a8 bench
 * --op mma-peak`), the physical limit the mma.sync families (sm80_gemm, sm80_decode) are
 * measured against. Every warp runs CHAINS independent accumulator chains (enough to cover
 * the instruction's latency) for `iterations` rounds on operands held in registers: no memory
 * traffic but one store per thread at the end, which keeps the work from being optimized
 * away.
 *
 * Kernel parameters: int iterations, float *sink (one float per thread of the grid),
 * unsigned seed (operand bits; the host passes a value the compiler cannot see).
 * Launch: any grid; blocks of any multiple of 32 threads.
 *
 * Config macros (W8A8_<NAME>):
 *   A_TYPE, B_TYPE   INT8 with INT8 (sm_80 on), an E4M3/E5M2 mix (sm_89 on), or FP16 with
 *                    FP16 (sm_80 on: a k32 unit is two m16n8k16)
 *   CHAINS           independent accumulators per warp, 1 … 16 */
#include "common/gemm_args.h"
#include "common/types.cuh"
#include "common/sm80.cuh"

#if !defined(W8A8_A_TYPE) || !defined(W8A8_B_TYPE) || !defined(W8A8_CHAINS)
#error "mma_peak needs W8A8_A_TYPE, W8A8_B_TYPE, W8A8_CHAINS"
#endif
static_assert(W8A8_CHAINS >= 1 && W8A8_CHAINS <= 16, "CHAINS is 1..16");

#if W8A8_A_TYPE == W8A8_T_FP16
/* FP16: two m16n8k16 f16 mmas into fp32 for each k32 unit, which is how sm80_gemm runs an FP8
 * k32 step compiled for plain sm_90 (no FP8 mma.sync there); FLOPs count as one k32 unit */
static_assert(W8A8_B_TYPE == W8A8_T_FP16, "FP16 pairs only with FP16");
struct peak_mma {
    typedef float acc_t;
    static __device__ __forceinline__ void run(float (&c)[4], w8a8_u32 a0, w8a8_u32 a1,
                                               w8a8_u32 a2, w8a8_u32 a3, w8a8_u32 b0,
                                               w8a8_u32 b1)
    {
        w8a8_mma_k16_f16(c, a0, a1, a2, a3, b0, b1);
        w8a8_mma_k16_f16(c, a2, a3, a0, a1, b1, b0);
    }
};
#else
typedef w8a8_mma_k32<W8A8_A_TYPE, W8A8_B_TYPE> peak_mma;
#endif

#define PEAK_FP8 (W8A8_A_TYPE == W8A8_T_E4M3 || W8A8_A_TYPE == W8A8_T_E5M2)

extern "C" __global__ void w8a8_mma_peak(int iterations, float *sink, w8a8_u32 seed)
{
    /* 0x3F-masked bytes: finite e4m3/e5m2 codes, small INT8 values */
    const w8a8_u32 bits = (seed ^ (threadIdx.x * 0x01010101u)) & 0x3F3F3F3Fu;
    const w8a8_u32 a0 = bits, a1 = bits ^ 0x01020304u, a2 = bits ^ 0x04030201u,
                   a3 = bits ^ 0x02020202u, b0 = bits ^ 0x01010101u, b1 = bits ^ 0x03030303u;
    peak_mma::acc_t acc[W8A8_CHAINS][4];
#pragma unroll
    for (int c = 0; c < W8A8_CHAINS; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            acc[c][i] = 0;
    /* Each chain has its own operands: with one set for all, chains that start equal stay
     * equal and ptxas merges them (FP8 on sm_90, where the mma is two HMMAs after an unpack:
     * 4 HMMAs were left of 8 chains' 16, and the "peak" read 4x too high). */
    for (int it = 0; it < iterations; ++it) {
        /* FP8: B changes every iteration (one xor a register, shared by the chains). Compiled
         * for sm_90, which has no FP8 mma.sync, an FP8 mma is two f16 mmas from zero and FADDs
         * into the accumulators; with operands fixed across iterations ptxas hoisted the mmas
         * out of the loop, and the "peak" timed the FADDs alone (895 TFLOP/s on an H200,
         * against 492 for f16 m16n8k16, session 34). INT8 and f16 mmas accumulate in place. */
        const w8a8_u32 v = PEAK_FP8 ? ((w8a8_u32)it & 0x01010101u) : 0u;
#pragma unroll
        for (int c = 0; c < W8A8_CHAINS; ++c) {
            const w8a8_u32 d = 0x01010101u * (w8a8_u32)c;
            peak_mma::run(acc[c], a0 ^ d, a1 ^ d, a2 ^ d, a3 ^ d, b0 ^ v, b1 ^ v);
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < W8A8_CHAINS; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            sum += (float)acc[c][i];
    sink[(long long)blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
