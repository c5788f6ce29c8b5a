/* stream_probe: how fast can a kernel read a weight matrix (N rows of K bytes) from HBM, and
 * which access pattern gets there? Issue 10's per-tensor decode shapes lose 1-3 % to cuBLASLt
 * on H200s whose HBM streams 4.3 TB/s for torch while every swap-AB config of ours stops at
 * 4.15-4.17 (session 44, D4). This times pure reads, no math, in the shapes our kernels use:
 *
 *   ldg       every thread reads 16-byte words, grid-strided over the whole buffer (the plain
 *             copy-engine-free ceiling); ctas = CTAs per SM, unroll = loads in flight a thread
 *   tma       persistent CTAs (one an SM), one thread issuing 2-D TMA boxes of `rows` rows x
 *             128 bytes (SWIZZLE_128B, as sm90_gemm's weight tiles), `kboxes` boxes along K per
 *             stage, `stages` stages; a consumer warp frees each stage once it lands. Tiles of
 *             `rows` rows go to CTAs round-robin (order 0, our tile scheduler) or in one
 *             contiguous band a CTA (order 1); split = K parts a tile (work items (tile,
 *             part), a tile's parts consecutive); rotate = 1 starts tile t at K block t mod blocks;
 *             hint = 1 adds an L2 evict-first policy (our weights' hint); promo = the tensor
 *             map's L2 promotion (256 bytes, ours; 128; 0 none)
 *   bulk      persistent CTAs, 1-D cp.async.bulk of contiguous chunks, each CTA a contiguous
 *             band of the buffer (the ideal DRAM pattern)
 *   dec       sm80_decode's weight loads without its math (16-row CTAs, warps splitting K in
 *             128-byte chunks, lane (g, t) reading 32 bytes of rows g and g + 8); with
 *             consecutive = 1 a warp's `unroll` chunks in flight are neighbours
 *   rowwarp   CTAs of `rows` rows, a warp reading 512 contiguous bytes of one row a load,
 *             `unroll` loads in flight
 *
 * Each variant: 3 launches to warm, then 5 bursts of 20 back-to-back launches timed with
 * events, launches rotating over 4 buffers (no L2 reuse); one JSON line with the median
 * microseconds a launch and GB/s.
 *
 *   nvcc -O3 -arch=sm_90a -o stream_probe bench/stream_probe.cu -lcuda
 *   ./stream_probe [N K] ...   (default: 57344 8192 and 8192 28672)
 *
 * Needs an sm_90 GPU. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));          \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

enum { MAX_STAGES = 32, BUFS = 4, BURST = 20, BURSTS = 5 };

struct tma_args {
    int rows, kboxes, stages, order, rotate, hint, split;
    int tiles, kblocks;
};

__device__ __forceinline__ uint32_t sptr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void bar_init(uint64_t *b, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sptr(b)), "r"(count));
}

__device__ __forceinline__ void bar_expect(uint64_t *b, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sptr(b)),
                 "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void bar_arrive(uint64_t *b)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(sptr(b)) : "memory");
}

__device__ __forceinline__ void bar_wait(uint64_t *b, uint32_t parity)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra W;\n"
                 "}" ::"r"(sptr(b)),
                 "r"(parity)
                 : "memory");
}

__device__ __forceinline__ void tma_2d(void *dst, const CUtensorMap *map, int x, int y,
                                       uint64_t *bar, int hint, uint64_t policy)
{
    if (hint)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(sptr(dst)),
                     "l"(map), "r"(x), "r"(y), "r"(sptr(bar)), "l"(policy)
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(sptr(dst)),
                     "l"(map), "r"(x), "r"(y), "r"(sptr(bar))
                     : "memory");
}

__device__ __forceinline__ void bulk_1d(void *dst, const void *src, uint32_t bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(sptr(dst)),
                 "l"(src), "r"(bytes), "r"(sptr(bar))
                 : "memory");
}

/* The ring both persistent kernels share: warp 0's lane 0 fills stages, warp 1 frees them. */
__global__ void __launch_bounds__(64) tma_read(const __grid_constant__ CUtensorMap map,
                                                tma_args a, int *sink)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    __shared__ uint64_t full[MAX_STAGES], empty[MAX_STAGES];
    uint8_t *smem = (uint8_t *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    const uint32_t stage_bytes = (uint32_t)a.rows * 128u * (uint32_t)a.kboxes;
    if (threadIdx.x == 0) {
        for (int s = 0; s < a.stages; s++) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], 1);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    /* work items: (tile, K part), a tile's parts consecutive */
    const int items = a.tiles * a.split;
    int first = blockIdx.x, step = gridDim.x, last = items;
    if (a.order == 1) { /* a contiguous band of items a CTA */
        first = (int)((long)items * blockIdx.x / gridDim.x);
        last = (int)((long)items * (blockIdx.x + 1) / gridDim.x);
        step = 1;
    }
    int it = 0, acc = 0;
    if (threadIdx.x == 0) {
        uint64_t policy = 0;
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
        for (int i = first; i < last; i += step) {
            const int t = i / a.split, part = i % a.split;
            const int kb0 = a.kblocks * part / a.split, kb1 = a.kblocks * (part + 1) / a.split;
            for (int kb = kb0; kb < kb1; kb++, it++) {
                int k = a.rotate ? (kb + t) % a.kblocks : kb;
                int s = it % a.stages;
                bar_wait(&empty[s], ((it / a.stages) & 1) ^ 1);
                bar_expect(&full[s], stage_bytes);
                for (int j = 0; j < a.kboxes; j++)
                    tma_2d(smem + (size_t)s * stage_bytes + (size_t)j * a.rows * 128, &map,
                           (k * a.kboxes + j) * 128, t * a.rows, &full[s], a.hint, policy);
            }
        }
    } else if (threadIdx.x >= 32) {
        for (int i = first; i < last; i += step) {
            const int part = i % a.split;
            const int kb0 = a.kblocks * part / a.split, kb1 = a.kblocks * (part + 1) / a.split;
            for (int kb = kb0; kb < kb1; kb++, it++) {
                int s = it % a.stages;
                bar_wait(&full[s], (it / a.stages) & 1);
                acc += smem[(size_t)s * stage_bytes + threadIdx.x];
                __syncwarp();
                if (threadIdx.x == 32)
                    bar_arrive(&empty[s]);
            }
        }
        if (acc == 0x7fffffff)
            *sink = acc;
    }
}

__global__ void __launch_bounds__(64) bulk_read(const uint8_t *src, size_t bytes,
                                                 uint32_t chunk, int stages, int *sink)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    __shared__ uint64_t full[MAX_STAGES], empty[MAX_STAGES];
    uint8_t *smem = (uint8_t *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; s++) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], 1);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    size_t chunks = bytes / chunk;
    size_t first = chunks * blockIdx.x / gridDim.x, last = chunks * (blockIdx.x + 1) / gridDim.x;
    int it = 0, acc = 0;
    if (threadIdx.x == 0) {
        for (size_t c = first; c < last; c++, it++) {
            int s = it % stages;
            bar_wait(&empty[s], ((it / stages) & 1) ^ 1);
            bar_expect(&full[s], chunk);
            bulk_1d(smem + (size_t)s * chunk, src + c * chunk, chunk, &full[s]);
        }
    } else if (threadIdx.x >= 32) {
        for (size_t c = first; c < last; c++, it++) {
            int s = it % stages;
            bar_wait(&full[s], (it / stages) & 1);
            acc += smem[(size_t)s * chunk + threadIdx.x];
            __syncwarp();
            if (threadIdx.x == 32)
                bar_arrive(&empty[s]);
        }
        if (acc == 0x7fffffff)
            *sink = acc;
    }
}

template <int UNROLL>
__global__ void ldg_read(const int4 *p, size_t n16, int *sink)
{
    int acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
        int4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            asm volatile("ld.global.nc.L1::no_allocate.v4.s32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                         : "l"(p + i + u * stride));
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n16; i += stride)
        acc ^= p[i].x;
    if (acc == 0x7fffffff)
        *sink = acc;
}

/* sm80_decode's weight loads without its math: CTAs of 16 rows, WARPS warps splitting K into
 * 128-byte chunks (warp w: chunks w, w + WARPS, ...; UNROLL chunks in flight), lane (g, t)
 * loading bytes [32t, 32t + 32) of rows g and g + 8 as two 16-byte pieces (its layout). */
template <int WARPS, int UNROLL, bool CONSECUTIVE = false>
__global__ void dec_read(const uint8_t *w, long k, int *sink)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const long chunks = k / 128;
    const uint8_t *rows = w + (long)blockIdx.x * 16 * k;
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    int acc = 0;
    /* CONSECUTIVE: a batch's UNROLL chunks of a warp are neighbours (c0 + u), the warps'
     * batches UNROLL chunks apart; else warp w's chunks are w, w + WARPS, ... (sm80_decode) */
    for (long c0 = CONSECUTIVE ? (long)warp * UNROLL : warp; c0 < chunks;
         c0 += (long)WARPS * UNROLL) {
        int4 v[UNROLL][4];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const long c = c0 + (long)u * (CONSECUTIVE ? 1 : WARPS);
            if (c < chunks)
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const uint8_t *p = rows + (long)(g + 8 * (q >> 1)) * k + c * 128 + 32 * t +
                                       16 * (q & 1);
                    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.s32 {%0,%1,%2,%3}, "
                                 "[%4], %5;"
                                 : "=r"(v[u][q].x), "=r"(v[u][q].y), "=r"(v[u][q].z),
                                   "=r"(v[u][q].w)
                                 : "l"(p), "l"(policy));
                }
            else
                for (int q = 0; q < 4; q++)
                    v[u][q] = make_int4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                acc ^= v[u][q].x ^ v[u][q].y ^ v[u][q].z ^ v[u][q].w;
    }
    if (acc == 0x7fffffff)
        *sink = acc;
}

/* A warp reads 512 contiguous bytes of one row a load (lane l: bytes 16l...), UNROLL loads
 * in flight; CTAs of ROWS rows, WARPS warps, warp w taking rows w, w + WARPS, ... whole. */
template <int WARPS, int UNROLL, int ROWS>
__global__ void rowwarp_read(const uint8_t *w, long k, int *sink)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long spans = k / 512;
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    int acc = 0;
    for (int r = warp; r < ROWS; r += WARPS) {
        const uint8_t *row = w + ((long)blockIdx.x * ROWS + r) * k + 16 * lane;
        for (long s0 = 0; s0 < spans; s0 += UNROLL) {
            int4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                if (s0 + u < spans)
                    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.s32 "
                                 "{%0,%1,%2,%3}, [%4], %5;"
                                 : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                                 : "l"(row + (s0 + u) * 512), "l"(policy));
                else
                    v[u] = make_int4(0, 0, 0, 0);
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
        }
    }
    if (acc == 0x7fffffff)
        *sink = acc;
}

static int sms;
static int *sink;

/* Times launch(buf) as BURSTS bursts of BURST launches; returns the median µs a launch. */
template <typename F> static double time_it(F launch)
{
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++)
        launch(i % BUFS);
    CHECK(cudaGetLastError());
    double us[BURSTS];
    for (int b = 0; b < BURSTS; b++) {
        CHECK(cudaEventRecord(e0));
        for (int i = 0; i < BURST; i++)
            launch(i % BUFS);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        us[b] = ms * 1000.0 / BURST;
    }
    CHECK(cudaGetLastError());
    for (int i = 0; i < BURSTS; i++) /* insertion sort, then the middle one */
        for (int j = i; j > 0 && us[j] < us[j - 1]; j--) {
            double t = us[j];
            us[j] = us[j - 1];
            us[j - 1] = t;
        }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return us[BURSTS / 2];
}

static void report(const char *kind, long n, long k, const char *params, double us)
{
    printf("{\"probe\": \"%s\", \"n\": %ld, \"k\": %ld, %s, \"us\": %.2f, \"gbps\": %.1f}\n", kind, n,
           k, params, us, (double)n * k / us / 1e3);
    fflush(stdout);
}

static void probe_shape(long n, long k, uint8_t **buf)
{
    size_t bytes = (size_t)n * k;
    /* ldg: CTAs an SM x loads in flight a thread */
    const int ctas[] = {2, 4, 8}, threads = 512;
    for (int c = 0; c < 3; c++) {
        int grid = sms * ctas[c];
        char p[128];
        snprintf(p, sizeof p, "\"ctas\": %d, \"unroll\": 4", ctas[c]);
        report("ldg", n, k, p, time_it([&](int b) {
                   ldg_read<4><<<grid, threads>>>((const int4 *)buf[b], bytes / 16, sink);
               }));
        snprintf(p, sizeof p, "\"ctas\": %d, \"unroll\": 8", ctas[c]);
        report("ldg", n, k, p, time_it([&](int b) {
                   ldg_read<8><<<grid, threads>>>((const int4 *)buf[b], bytes / 16, sink);
               }));
    }
    /* register loads in sm80_decode's layout, and a row a warp load */
    {
        char p[128];
#define DEC(W, U)                                                                                \
    snprintf(p, sizeof p, "\"warps\": %d, \"unroll\": %d", W, U);                              \
    report("dec", n, k, p, time_it([&](int b) {                                                  \
               dec_read<W, U><<<(unsigned)(n / 16), 32 * W>>>(buf[b], k, sink);                  \
           }));
        DEC(2, 1) DEC(4, 1) DEC(8, 1) DEC(16, 1) DEC(4, 2) DEC(8, 2) DEC(8, 4)
#undef DEC
#define DEC2(W, U)                                                                               \
    snprintf(p, sizeof p, "\"warps\": %d, \"unroll\": %d, \"consecutive\": 1", W, U);        \
    report("dec", n, k, p, time_it([&](int b) {                                                  \
               dec_read<W, U, true><<<(unsigned)(n / 16), 32 * W>>>(buf[b], k, sink);            \
           }));
        DEC2(2, 2) DEC2(2, 4) DEC2(4, 2) DEC2(4, 4) DEC2(8, 2) DEC2(8, 4) DEC2(16, 2) DEC2(1, 4)
        DEC2(1, 8) DEC2(2, 8)
#undef DEC2
#define ROW(W, U, R)                                                                             \
    snprintf(p, sizeof p, "\"warps\": %d, \"unroll\": %d, \"rows\": %d", W, U, R);           \
    report("rowwarp", n, k, p, time_it([&](int b) {                                              \
               rowwarp_read<W, U, R><<<(unsigned)(n / R), 32 * W>>>(buf[b], k, sink);            \
           }));
        ROW(4, 4, 16) ROW(8, 4, 16) ROW(8, 8, 16) ROW(16, 4, 16) ROW(8, 2, 16) ROW(4, 8, 16)
        ROW(8, 4, 32) ROW(4, 4, 8)
#undef ROW
    }
    /* bulk: contiguous chunks, one band a CTA */
    const uint32_t chunks[] = {8192, 16384, 32768};
    for (int c = 0; c < 3; c++) {
        int stages = (int)(196608 / chunks[c]);
        if (stages > MAX_STAGES)
            stages = MAX_STAGES;
        size_t smem = (size_t)stages * chunks[c] + 1024;
        CHECK(cudaFuncSetAttribute(bulk_read, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)smem));
        char p[128];
        snprintf(p, sizeof p, "\"chunk\": %u, \"stages\": %d", chunks[c], stages);
        report("bulk", n, k, p, time_it([&](int b) {
                   bulk_read<<<sms, 64, smem>>>(buf[b], bytes, chunks[c], stages, sink);
               }));
    }
    /* tma: the weight tiles of sm90_gemm's swap-AB configs and variations on them */
    CUtensorMap maps[BUFS];
    struct variant {
        int rows, kboxes, stages, order, rotate, hint, promo, split;
    } v[160];
    int nv = 0;
    /* the swap-AB weight tiles (rows x 128 bytes a stage, ring ~192 KB) in both orders, with
     * split-K into 1, 2, 4 parts; then wider stages */
    const int rows_list[] = {64, 128, 256};
    for (int r = 0; r < 3; r++)
        for (int order = 0; order < 2; order++)
            for (int split = 1; split <= 4; split *= 2) {
                int stages = 196608 / (rows_list[r] * 128);
                v[nv++] = (variant){rows_list[r], 1, stages > 24 ? 24 : stages, order, 0, 1, 256,
                                    split};
            }
    for (int r = 0; r < 2; r++)
        for (int kb = 2; kb <= 4; kb *= 2)
            for (int order = 0; order < 2; order++) {
                int stages = 196608 / (rows_list[r] * 128 * kb);
                v[nv++] = (variant){rows_list[r], kb, stages, order, 0, 1, 256, 1};
            }
    v[nv++] = (variant){64, 1, 16, 0, 0, 1, 256, 1}; /* ours at 16x57344x8192 */
    v[nv++] = (variant){256, 1, 6, 1, 0, 0, 256, 1}; /* band without the hint */
    v[nv++] = (variant){256, 1, 4, 1, 0, 1, 256, 1}; /* band, 4 stages */
    v[nv++] = (variant){256, 1, 3, 1, 0, 1, 256, 1}; /* band, 3 stages */
    for (int i = 0; i < nv; i++) {
        if (n % v[i].rows || k % (128 * v[i].kboxes))
            continue;
        for (int b = 0; b < BUFS; b++) {
            cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)n};
            cuuint64_t strides[1] = {(cuuint64_t)k};
            cuuint32_t box[2] = {128, (cuuint32_t)v[i].rows}, estr[2] = {1, 1};
            CUresult r = cuTensorMapEncodeTiled(
                &maps[b], CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, buf[b], dims, strides, box, estr,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                v[i].promo == 256   ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                : v[i].promo == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                                    : CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
            if (r != CUDA_SUCCESS) {
                fprintf(stderr, "cuTensorMapEncodeTiled: %d\n", (int)r);
                exit(1);
            }
        }
        tma_args a = {v[i].rows,  v[i].kboxes, v[i].stages, v[i].order, v[i].rotate,
                      v[i].hint,  v[i].split,  (int)(n / v[i].rows),
                      (int)(k / (128 * v[i].kboxes))};
        size_t smem = (size_t)v[i].stages * v[i].rows * 128 * v[i].kboxes + 1024;
        CHECK(cudaFuncSetAttribute(tma_read, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)smem));
        char p[224];
        snprintf(p, sizeof p,
                 "\"rows\": %d, \"kboxes\": %d, \"stages\": %d, \"order\": %d, \"rotate\": %d, "
                 "\"hint\": %d, \"promo\": %d, \"split\": %d",
                 v[i].rows, v[i].kboxes, v[i].stages, v[i].order, v[i].rotate, v[i].hint,
                 v[i].promo, v[i].split);
        report("tma", n, k, p, time_it([&](int b) {
                   tma_read<<<sms, 64, smem>>>(maps[b], a, sink);
               }));
    }
}

int main(int argc, char **argv)
{
    long shapes[8][2] = {{57344, 8192}, {8192, 28672}};
    int nshapes = 2;
    if (argc > 1) {
        nshapes = 0;
        for (int i = 1; i + 1 < argc && nshapes < 8; i += 2, nshapes++) {
            shapes[nshapes][0] = atol(argv[i]);
            shapes[nshapes][1] = atol(argv[i + 1]);
        }
    }
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaMalloc(&sink, sizeof(int)));
    for (int s = 0; s < nshapes; s++) {
        size_t bytes = (size_t)shapes[s][0] * shapes[s][1];
        uint8_t *buf[BUFS];
        for (int b = 0; b < BUFS; b++) {
            CHECK(cudaMalloc(&buf[b], bytes));
            CHECK(cudaMemset(buf[b], 0x11 * (b + 1), bytes));
        }
        probe_shape(shapes[s][0], shapes[s][1], buf);
        for (int b = 0; b < BUFS; b++)
            CHECK(cudaFree(buf[b]));
    }
    return 0;
}
