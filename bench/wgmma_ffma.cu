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
 *   promote3   three warpgroups as promote (a third consumer: does it hide the promotion?)
 *   chain3     three warpgroups as chain
 *   promote3n96, chain3n96, promote2n96: the same with m64n96k32 (48 accumulators a thread,
 *              what a third consumer's registers allow beside a temporary set)
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

enum { CHAIN, PROMOTE, OVERLAP, SOLO, NEIGHBOUR, HALF, STREAM };

#define F4(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define F16(d, i) F4(d, i), F4(d, i + 4), F4(d, i + 8), F4(d, i + 12)
#define F48(d) F16(d, 0), F16(d, 16), F16(d, 32)
#define F64(d) F48(d), F16(d, 48)
#define LIST48                                                                                 \
    "%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,"   \
    "%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,"     \
    "%47,%48,%49,%50"
#define LIST64 LIST48 ",%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66"

/* wgmma.m64n<N>k32 e4m3 into d (N / 2 accumulators a thread): acc 0 overwrites d */
#define WGMMA(N, LIST, FD)                                                                     \
    __device__ __forceinline__ void wgmma(float (&d)[N / 2], uint64_t da, uint64_t db, int acc) \
    {                                                                                          \
        asm volatile("{ .reg .pred p;\n setp.ne.b32 p, %0, 0;\n"                               \
                     " wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 {" LIST       \
                     "}, %1, %2, p, 1, 1;\n}"                                                  \
                     : "+r"(acc), "+l"(da), "+l"(db), FD(d)                                    \
                     :                                                                         \
                     : "memory");                                                              \
    }
WGMMA(128, LIST64, F64)
WGMMA(96, LIST48, F48)
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }
template <int NA> __device__ __forceinline__ void reg_fence(float (&d)[NA])
{
#pragma unroll
    for (int i = 0; i < NA; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* K-major, 128-byte swizzle, 8-row atoms of 1024 bytes (as sm90_gemm's tiles) */
__device__ __forceinline__ uint64_t desc(uint32_t addr)
{
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}

/* the 4 k32 wgmmas of one K block; first: overwrite instead of accumulate */
template <int NA>
__device__ __forceinline__ void k_block(float (&d)[NA], uint32_t a, uint32_t b, bool first)
{
    fence();
#pragma unroll
    for (int k = 0; k < 4; ++k)
        wgmma(d, desc(a + 32 * k), desc(b + 32 * k), first && k == 0 ? 0 : 1);
    commit();
}

template <int NF, int NA>
__device__ __forceinline__ void promote(float (&acc)[NA], const float (&tmp)[NA], float s)
{
#pragma unroll
    for (int i = 0; i < NF; ++i)
        acc[i] = __fmaf_rn(tmp[i], s, acc[i]);
}

template <int mode, int WGS, int N>
__global__ void __launch_bounds__(128 * WGS, 1) bench(int iters, const float *scales, float *sink,
                                                      long long *cycles)
{
    constexpr int NA = N / 2; /* accumulators a thread */
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const uint32_t base = ((uint32_t)__cvta_generic_to_shared(smem_raw) + 1023u) & ~1023u;
    unsigned char *p = smem_raw + (base - (uint32_t)__cvta_generic_to_shared(smem_raw));
    /* A: WGS × 64 rows, B: N rows, 128 bytes each; small e4m3 codes (no NaN / inf) */
    for (int i = threadIdx.x; i < (WGS * 64 + N) * 128; i += blockDim.x)
        p[i] = (unsigned char)(((i * 2654435761u) >> 13) & 0x37);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const int wg = threadIdx.x / 128;
    const uint32_t a = base + wg * 64 * 128, b = base + WGS * 64 * 128;
    float acc[NA], tmp[NA], tmp2[NA];
#pragma unroll
    for (int i = 0; i < NA; ++i)
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
    } else if (mode == NEIGHBOUR) { /* the other warpgroups: a promotion's FFMAs per K block */
        for (int it = 0; it < iters; ++it) {
            promote<NA>(acc, tmp, (it & 1) ? s0 : s1);
            reg_fence(acc);
#pragma unroll
            for (int i = 0; i < NA; ++i)
                tmp[i] = acc[i] * 0.5f; /* keeps tmp live and changing */
            reg_fence(tmp);
        }
    } else if (mode == PROMOTE || mode == HALF) {
        for (int it = 0; it < iters; ++it) {
            k_block(tmp, a, b, true);
            wait<0>();
            reg_fence(tmp);
            if (mode == PROMOTE)
                promote<NA>(acc, tmp, (it & 1) ? s0 : s1);
            else
                promote<NA / 2>(acc, tmp, (it & 1) ? s0 : s1);
        }
    } else if (mode == OVERLAP) { /* pairs finish inside their iteration (ptxas C7514) */
        for (int it = 0; it + 1 < iters; it += 2) {
            k_block(tmp, a, b, true);
            k_block(tmp2, a, b, true);
            wait<1>();
            reg_fence(tmp);
            promote<NA>(acc, tmp, s0);
            wait<0>();
            reg_fence(tmp2);
            promote<NA>(acc, tmp2, s1);
        }
    }
    long long t1 = clock64();
    if (threadIdx.x % 128 == 0)
        cycles[blockIdx.x * 4 + wg] = t1 - t0;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < NA; ++i)
        sum += acc[i] + tmp[i] + tmp2[i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

struct mode_case {
    const char *name;
    void (*kernel)(int, const float *, float *, long long *);
    int wgs, n, issuing; /* warpgroups, wgmma N, warpgroups issuing wgmmas */
};

int main(int argc, char **argv)
{
    const int iters = argc > 1 ? atoi(argv[1]) : 20000;
    int dev = 0, sms = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int smem = 160 * 1024; /* one CTA per SM */
    /* name, mode, warpgroups, wgmma N, warpgroups issuing wgmmas */
#define CASE(name, mode, wgs, n, issuing) {name, bench<mode, wgs, n>, wgs, n, issuing}
    const mode_case cases[] = {
        CASE("chain", CHAIN, 2, 128, 2),         CASE("promote", PROMOTE, 2, 128, 2),
        CASE("overlap", OVERLAP, 2, 128, 2),     CASE("solo", SOLO, 2, 128, 1),
        CASE("neighbour", NEIGHBOUR, 2, 128, 1), CASE("half", HALF, 2, 128, 2),
        CASE("stream", STREAM, 2, 128, 2),       CASE("chain3", CHAIN, 3, 128, 3),
        CASE("promote3", PROMOTE, 3, 128, 3),    CASE("chain3n96", CHAIN, 3, 96, 3),
        CASE("promote3n96", PROMOTE, 3, 96, 3),  CASE("promote2n96", PROMOTE, 2, 96, 2),
    };
#undef CASE
    const int modes = (int)(sizeof cases / sizeof cases[0]);
    for (int m = 0; m < modes; ++m)
        CHECK(cudaFuncSetAttribute(cases[m].kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    float *scales, *sink;
    long long *cycles;
    CHECK(cudaMalloc(&scales, 8 * sizeof(float)));
    CHECK(cudaMalloc(&sink, (size_t)sms * 512 * sizeof(float)));
    CHECK(cudaMalloc(&cycles, (size_t)sms * 4 * sizeof(long long)));
    float hs[8] = {0.5f, 0.25f, 1.0f, 0.125f, 0.75f, 0.5f, 2.0f, 1.5f};
    CHECK(cudaMemcpy(scales, hs, sizeof hs, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    /* rounds over the modes, so that each sees the same clock and power states */
    const int rounds = 3;
    std::vector<std::vector<float>> ms(modes);
    std::vector<std::vector<long long>> cyc(modes);
    for (int r = 0; r < rounds; ++r)
        for (int m = 0; m < modes; ++m) {
            const int threads = 128 * cases[m].wgs;
            cases[m].kernel<<<sms, threads, smem>>>(iters / 10, scales, sink, cycles); /* warm */
            CHECK(cudaEventRecord(e0));
            cases[m].kernel<<<sms, threads, smem>>>(iters, scales, sink, cycles);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaGetLastError());
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            ms[m].push_back(t);
            std::vector<long long> c(sms * 4);
            CHECK(cudaMemcpy(c.data(), cycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
            std::vector<long long> c0;
            for (int i = 0; i < sms; ++i)
                c0.push_back(c[4 * i]);
            std::sort(c0.begin(), c0.end());
            cyc[m].push_back(c0[sms / 2]);
        }
    for (int m = 0; m < modes; ++m) {
        std::sort(ms[m].begin(), ms[m].end());
        std::sort(cyc[m].begin(), cyc[m].end());
        const double flop = 2.0 * 64 * cases[m].n * 128 * (double)iters * cases[m].issuing * sms;
        const double cycles_per_kb = (double)cyc[m][rounds / 2] / iters;
        /* tensor-pipe cycles a K block of every issuing warpgroup needs at the SM's peak of
         * 8192 dense FP8 FLOP a cycle, over the cycles warpgroup 0 took for one */
        const double busy = 2.0 * 64 * cases[m].n * 128 * cases[m].issuing / 8192.0 / cycles_per_kb;
        printf("{\"mode\": \"%s\", \"warpgroups\": %d, \"n\": %d, \"iters\": %d, \"ms\": %.3f, "
               "\"tflops\": %.1f, \"wg0_cycles_per_kblock\": %.1f, \"tensor_busy\": %.3f}\n",
               cases[m].name, cases[m].wgs, cases[m].n, iters, ms[m][rounds / 2],
               flop / (ms[m][rounds / 2] * 1e-3) / 1e12, cycles_per_kb, busy);
    }
    return 0;
}
