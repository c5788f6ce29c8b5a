/* wgmma_ffma: does the block-scaled loop's promotion (64 FFMAs per thread and 128-deep K block,
 * acc += tmp · scale) take time from the tensor cores, and how much? A standalone Hopper
 * microbenchmark (nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o wgmma_ffma bench/wgmma_ffma.cu), not part of the
 * library: one CTA per SM, operands fixed in shared memory (no loads), each warpgroup issuing
 * the m64n128k32 e4m3 wgmmas of sm90_gemm's 64×128 consumer, four per K block.
 *
 *   chain      both warpgroups: 4 wgmmas accumulating, commit, wait 0 (no promotion)
 *   promote    both: 4 wgmmas into tmp, wait 0, acc = fma(tmp, s, acc) (sm90_gemm overlap 0)
 *   overlap    both: block i + 1 into the other tmp set, wait 1, promote block i (overlap 1)
 *   solo       warpgroup 0 as chain, warpgroup 1 idle
 *   neighbour  warpgroup 0 as chain, warpgroup 1 only the FFMAs of a promotion, no wgmma
 *   half       both: promote only 32 of the 64 accumulators (half the FFMAs)
 *   stream     both: 4 wgmmas accumulating, commit, wait 1 (sm90_gemm's per-tensor loop)
 *
 * Prints one JSON line per mode: TFLOP/s of the wgmmas (all CTAs), and cycles per K block of
 * warpgroup 0 (clock64, median over CTAs). Usage: wgmma_ffma [iterations] */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CHECK(x)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

enum { CHAIN, PROMOTE, OVERLAP, SOLO, NEIGHBOUR, HALF, STREAM, MODES };
static const char *const mode_names[] = {"chain", "promote", "overlap", "solo", "neighbour", "half", "stream"};

#define F4(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define F16(d, i) F4(d, i), F4(d, i + 4), F4(d, i + 8), F4(d, i + 12)
#define F64(d) F16(d, 0), F16(d, 16), F16(d, 32), F16(d, 48)
#define LIST64                                                                                 \
    "%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,"   \
    "%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,"     \
    "%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66"

__device__ __forceinline__ void wgmma(float (&d)[64], uint64_t da, uint64_t db, int acc)
{
    asm volatile("{ .reg .pred p;\n setp.ne.b32 p, %0, 0;\n"
                 " wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {" LIST64
                 "}, %1, %2, p, 1, 1;\n}"
                 : "+r"(acc), "+l"(da), "+l"(db), F64(d)
                 :
                 : "memory");
}
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }
__device__ __forceinline__ void reg_fence(float (&d)[64])
{
#pragma unroll
    for (int i = 0; i < 64; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* K-major, 128-byte swizzle, 8-row atoms of 1024 bytes (as sm90_gemm's tiles) */
__device__ __forceinline__ uint64_t desc(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

/* the 4 k32 wgmmas of one K block; first: overwrite instead of accumulate */
__device__ __forceinline__ void k_block(float (&d)[64], uint32_t a, uint32_t b, bool first)
{
    fence();
#pragma unroll
    for (int k = 0; k < 4; ++k)
        wgmma(d, desc(a + 32 * k), desc(b + 32 * k), first && k == 0 ? 0 : 1);
    commit();
}

template <int NF>
__device__ __forceinline__ void promote(float (&acc)[64], const float (&tmp)[64], float s)
{
#pragma unroll
    for (int i = 0; i < NF; ++i)
        acc[i] = __fmaf_rn(tmp[i], s, acc[i]);
}

template <int mode>
__global__ void __launch_bounds__(256, 1) bench(int iters, const float *scales, float *sink,
                                                long long *cycles)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
    unsigned char *p = smem_raw + (base - (uint32_t)__cvta_generic_to_shared(smem_raw));
    /* A: 2 × 64 rows, B: 128 rows, 128 bytes each; small e4m3 codes (no NaN / inf) */
    for (int i = threadIdx.x; i < 256 * 128; i += blockDim.x)
        p[i] = (unsigned char)(((i * 2654435761u) >> 13) & 0x37);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const int wg = threadIdx.x / 128;
    const uint32_t a = base + wg * 64 * 128, b = base + 128 * 128;
    float acc[64], tmp[64], tmp2[64];
#pragma unroll
    for (int i = 0; i < 64; ++i)
        acc[i] = tmp[i] = tmp2[i] = 0.0f;
    const float s0 = scales[threadIdx.x & 7], s1 = scales[(threadIdx.x + 3) & 7];
    long long t0 = clock64();
    const bool issue = wg == 0 || (mode != SOLO && mode != NEIGHBOUR);
    if (issue && (mode == CHAIN || mode == SOLO || mode == NEIGHBOUR)) {
        for (int it = 0; it < iters; ++it) {
            k_block(acc, a, b, false);
            wait<0>();
            reg_fence(acc);
        }
    } else if (mode == STREAM) {
        for (int it = 0; it < iters; ++it) {
            k_block(acc, a, b, false);
            wait<1>();
        }
        wait<0>();
        reg_fence(acc);
    } else if (mode == NEIGHBOUR) { /* warpgroup 1: a promotion's FFMAs per K block */
        for (int it = 0; it < iters; ++it) {
            promote<64>(acc, tmp, (it & 1) ? s0 : s1);
            reg_fence(acc);
#pragma unroll
            for (int i = 0; i < 64; ++i)
                tmp[i] = acc[i] * 0.5f; /* keeps tmp live and changing */
            reg_fence(tmp);
        }
    } else if (mode == PROMOTE || mode == HALF) {
        for (int it = 0; it < iters; ++it) {
            k_block(tmp, a, b, true);
            wait<0>();
            reg_fence(tmp);
            if (mode == PROMOTE)
                promote<64>(acc, tmp, (it & 1) ? s0 : s1);
            else
                promote<32>(acc, tmp, (it & 1) ? s0 : s1);
        }
    } else if (mode == OVERLAP) { /* pairs finish inside their iteration (ptxas C7514) */
        for (int it = 0; it + 1 < iters; it += 2) {
            k_block(tmp, a, b, true);
            k_block(tmp2, a, b, true);
            wait<1>();
            reg_fence(tmp);
            promote<64>(acc, tmp, s0);
            wait<0>();
            reg_fence(tmp2);
            promote<64>(acc, tmp2, s1);
        }
    }
    long long t1 = clock64();
    if (threadIdx.x % 128 == 0)
        cycles[blockIdx.x * 2 + wg] = t1 - t0;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 64; ++i)
        sum += acc[i] + tmp[i] + tmp2[i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main(int argc, char **argv)
{
    const int iters = argc > 1 ? atoi(argv[1]) : 20000;
    int dev = 0, sms = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int smem = 160 * 1024; /* one CTA per SM */
    void (*const kernels[MODES])(int, const float *, float *, long long *) = {
        bench<CHAIN>, bench<PROMOTE>, bench<OVERLAP>, bench<SOLO>, bench<NEIGHBOUR>, bench<HALF>,
        bench<STREAM>};
    for (int m = 0; m < MODES; ++m)
        CHECK(cudaFuncSetAttribute(kernels[m], cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    float *scales, *sink;
    long long *cycles;
    CHECK(cudaMalloc(&scales, 8 * sizeof(float)));
    CHECK(cudaMalloc(&sink, (size_t)sms * 256 * sizeof(float)));
    CHECK(cudaMalloc(&cycles, (size_t)sms * 2 * sizeof(long long)));
    float hs[8] = {0.5f, 0.25f, 1.0f, 0.125f, 0.75f, 0.5f, 2.0f, 1.5f};
    CHECK(cudaMemcpy(scales, hs, sizeof hs, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    /* rounds over the modes, so that each sees the same clock and power states */
    const int rounds = 3;
    std::vector<std::vector<float>> ms(MODES);
    std::vector<std::vector<long long>> cyc(MODES);
    for (int r = 0; r < rounds; ++r)
        for (int m = 0; m < MODES; ++m) {
            kernels[m]<<<sms, 256, smem>>>(iters / 10, scales, sink, cycles); /* warm */
            CHECK(cudaEventRecord(e0));
            kernels[m]<<<sms, 256, smem>>>(iters, scales, sink, cycles);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaGetLastError());
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            ms[m].push_back(t);
            std::vector<long long> c(sms * 2);
            CHECK(cudaMemcpy(c.data(), cycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
            std::vector<long long> c0;
            for (int i = 0; i < sms; ++i)
                c0.push_back(c[2 * i]);
            std::sort(c0.begin(), c0.end());
            cyc[m].push_back(c0[sms / 2]);
        }
    for (int m = 0; m < MODES; ++m) {
        std::sort(ms[m].begin(), ms[m].end());
        std::sort(cyc[m].begin(), cyc[m].end());
        const int issuing = (m == SOLO || m == NEIGHBOUR) ? 1 : 2;
        const double flop = 2.0 * 64 * 128 * 128 * (double)iters * issuing * sms;
        printf("{\"mode\": \"%s\", \"iters\": %d, \"ms\": %.3f, \"tflops\": %.1f, "
               "\"wg0_cycles_per_kblock\": %.1f}\n",
               mode_names[m], iters, ms[m][rounds / 2], flop / (ms[m][rounds / 2] * 1e-3) / 1e12,
               (double)cyc[m][rounds / 2] / iters);
    }
    return 0;
}
