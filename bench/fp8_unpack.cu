/* fp8_unpack: what FP8 → f16 unpacking costs beside f16 mma.sync on Hopper, where sm80_gemm
 * runs FP8 (compiled for plain sm_90, which has no FP8 mma.sync) as f16 m16n8k16 mmas on
 * fragments unpacked in registers: one unpack instruction per f16x2 and, for a 64×64 warp
 * tile, one f16x2 per mma. A standalone microbenchmark (nvcc -gencode
 * arch=compute_90,code=sm_90 -O3 -o fp8_unpack bench/fp8_unpack.cu), not part of the library.
 * Every iteration each warp makes 16 f16x2 from 8 fresh words (so nothing is hoisted) and
 * issues 16 m16n8k16 mmas on them, in four independent accumulator chains:
 *
 *   mma     the mmas only, on the words as they are (no unpack): the f16 mma.sync ceiling
 *   f2fp    cvt.rn.f16x2.e4m3x2 (F2FP), two per word: what sm80_gemm does
 *   bits    e4m3 by integer ops, (w & 0x80008000) | ((w & 0x7F007F00) >> 1) and the same of
 *           w << 8 (bytes 1, 3 and 0, 2 paired; the value 2^-8 times the code's, exact)
 *   prmt    e5m2 by one byte permute per f16x2 (an e5m2 code is the high byte of its f16)
 *   cvtonly f2fp's unpacks without the mmas (the unpack rate alone)
 *
 * Prints one JSON line per mode: mma TFLOP/s (2·16·8·16 a mma) and unpacks per SM per clock
 * (at the SM clock cudaDeviceProp reports). Usage: fp8_unpack [iterations] */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

enum { MMA, F2FP, BITS, PRMT, CVTONLY, MODES };
static const char *const names[] = {"mma", "f2fp", "bits", "prmt", "cvtonly"};

__device__ __forceinline__ void mma16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                      uint32_t a3, uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
                 " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

template <int MODE> __device__ __forceinline__ void unpack(uint32_t w, uint32_t &lo, uint32_t &hi)
{
    if (MODE == F2FP || MODE == CVTONLY) {
        asm("{ .reg .b16 l, h; mov.b32 {l, h}, %2;"
            " cvt.rn.f16x2.e4m3x2 %0, l; cvt.rn.f16x2.e4m3x2 %1, h; }"
            : "=r"(lo), "=r"(hi) : "r"(w));
    } else if (MODE == BITS) {
        lo = (w & 0x80008000u) | ((w & 0x7F007F00u) >> 1);
        const uint32_t v = w << 8;
        hi = (v & 0x80008000u) | ((v & 0x7F007F00u) >> 1);
    } else if (MODE == PRMT) {
        asm("prmt.b32 %0, %1, 0, 0x1404;" : "=r"(lo) : "r"(w));
        asm("prmt.b32 %0, %1, 0, 0x3424;" : "=r"(hi) : "r"(w));
    } else {
        lo = w;
        hi = w ^ 0x00010001u;
    }
}

template <int MODE> __global__ void run(int iterations, float *sink, uint32_t seed)
{
    uint32_t w[8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
        w[i] = (seed ^ (threadIdx.x * 0x01010101u) ^ (i * 0x02040608u)) & 0x3B3B3B3Bu;
    float acc[4][4] = {};
    uint32_t x = 0;
    for (int it = 0; it < iterations; ++it) {
        uint32_t h[8][2];
#pragma unroll
        for (int i = 0; i < 8; ++i)
            unpack<MODE>(w[i] ^ x, h[i][0], h[i][1]);
        if constexpr (MODE == CVTONLY) {
#pragma unroll
            for (int i = 0; i < 8; ++i)
                x += h[i][0] ^ h[i][1];
            x &= 0x01010101u;
        } else {
#pragma unroll
            for (int j = 0; j < 16; ++j) {
                const int a = j & 7, b = (j + 3) & 7;
                mma16(acc[j & 3], h[a][0], h[a][1], h[(a + 1) & 7][0], h[(a + 1) & 7][1],
                      h[b][0], h[b][1]);
            }
            x = (x + 0x01010101u) & 0x01010101u;
        }
    }
    float s = (float)x;
#pragma unroll
    for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i)
            s += acc[c][i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

typedef void (*kernel_t)(int, float *, uint32_t);
static const kernel_t kernels[] = {run<MMA>, run<F2FP>, run<BITS>, run<PRMT>, run<CVTONLY>};

int main(int argc, char **argv)
{
    const int iterations = argc > 1 ? atoi(argv[1]) : 20000;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const int threads = 256, ctas = prop.multiProcessorCount * 4;
    float *sink;
    CHECK(cudaMalloc(&sink, sizeof(float) * threads * ctas));
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    for (int mode = 0; mode < MODES; ++mode) {
        float best = 1e30f;
        for (int rep = 0; rep < 6; ++rep) {
            CHECK(cudaEventRecord(t0));
            kernels[mode]<<<ctas, threads>>>(iterations, sink, 0x2A2A2A2Au ^ rep);
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, t0, t1));
            if (rep > 0 && ms < best)
                best = ms;
        }
        const double warps = (double)ctas * threads / 32;
        const double mmas = mode == CVTONLY ? 0 : warps * iterations * 16;
        const double unpacks = mode == MMA ? 0 : warps * 32 * iterations * 16; /* f16x2 lanes */
        const double clocks = best * 1e-3 * clock_khz * 1e3 * prop.multiProcessorCount;
        printf("{\"mode\": \"%s\", \"ms\": %.3f, \"mma_tflops\": %.1f, "
               "\"f16x2_per_sm_clk\": %.1f}\n",
               names[mode], best, mmas * 2 * 16 * 8 * 16 / (best * 1e9), unpacks / clocks);
    }
    CHECK(cudaFree(sink));
    return 0;
}
