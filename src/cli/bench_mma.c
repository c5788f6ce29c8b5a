/* `w8a8 bench --op mma-peak`: the throughput ceiling of mma.sync.aligned.m16n8k32 on the
 * device (templates/mma_peak.cuh), INT8 and — from compute capability 8.9 — FP8 (e4m3, e5m2),
 * the physical limit the mma.sync families are judged against; and of f16 m16n8k16 (two per
 * k32 unit, counted as one), the instruction sm80_gemm runs FP8 with on Hopper (plain sm_90,
 * whose FP8 mma.sync ptxas expands into f16 mmas and adds). Each operand type runs a few
 * shapes of the same kernel (independent accumulator chains per warp × resident warps per
 * SM); the best shape's rate is the peak. CUDA events around single launches of a few
 * milliseconds, warm-up first, best of the samples. JSON lines carry provider
 * ("mma.sync.peak"), dtype, tflops, us, and the shape (chains, warps_per_sm); before each
 * peak, one "mma.sync.shape" line per shape tried (chains 4, 8, 16 × 8, 16, 32 warps per SM). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "internal.h"
#include "jit.h"

#define MP_TEMPLATE "mma_peak"
#define MP_ENTRY "w8a8_mma_peak"
#define MP_THREADS 256                    /* 8 warps per CTA */
#define MP_WARP 32
#define MP_FLOP_PER_MMA (2.0 * 16 * 8 * 32) /* m16n8k32 multiply-adds, 2 FLOP each */
#define MP_DEFAULT_SAMPLES 5
#define MP_WARMUP 2
#define MP_ITERATIONS 4096
#define MP_MIN_CC_FP8 89

typedef struct mp_args {
    bool json;
    int samples;
} mp_args;

static void mp_usage(FILE *f)
{
    fprintf(f, "usage: w8a8 bench --op mma-peak [--samples N] [--json]\n"
               "Measures the peak throughput of mma.sync.m16n8k32 (INT8; FP8 e4m3/e5m2 from\n"
               "compute capability 8.9) and of f16 m16n8k16 (fp16, two per k32) with operands\n"
               "in registers.\n");
}

static int mp_parse(mp_args *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->samples = MP_DEFAULT_SAMPLES;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--op") == 0 && i + 1 < argc) {
            i++;
        } else if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1000)
                return cli_usage_error("--samples: '%s' is not 1..1000", argv[i]);
            a->samples = (int)v;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            mp_usage(stdout);
            return 0;
        } else {
            cli_usage_error("bench --op mma-peak: unknown option '%s'", argv[i]);
            mp_usage(stderr);
            return 2;
        }
    }
    return -1;
}

/* Best microseconds of `samples` single launches of kernel (after a warm-up). */
static w8a8_status mp_time(w8a8_context *ctx, const jit_kernel *kernel, const jit_launch *launch,
                           int iterations, CUdeviceptr sink, int samples, double *best_us)
{
    const cu_api *cu = ctx->cu;
    CUevent start, stop;
    if (cu->cuEventCreate(&start, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
        return errorf(ctx, W8A8_CUDA_ERROR, "cuEventCreate failed");
    if (cu->cuEventCreate(&stop, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
        cu->cuEventDestroy(start);
        return errorf(ctx, W8A8_CUDA_ERROR, "cuEventCreate failed");
    }
    unsigned seed = 0x2A2A2A2Au ^ (unsigned)samples; /* opaque to the compiler */
    void *params[] = {&iterations, &sink, &seed};
    w8a8_status st = W8A8_OK;
    *best_us = 0;
    for (int s = -MP_WARMUP; s < samples && st == W8A8_OK; s++) {
        cu->cuEventRecord(start, NULL);
        st = jit_kernel_launch(ctx, kernel, launch, params);
        cu->cuEventRecord(stop, NULL);
        float ms = 0;
        if (st == W8A8_OK && (cu->cuEventSynchronize(stop) != CUDA_SUCCESS ||
                              cu->cuEventElapsedTime(&ms, start, stop) != CUDA_SUCCESS))
            st = errorf(ctx, W8A8_CUDA_ERROR, "timing events failed");
        if (st == W8A8_OK && s >= 0 && (*best_us == 0 || 1000.0 * ms < *best_us))
            *best_us = 1000.0 * ms;
    }
    cu->cuEventDestroy(start);
    cu->cuEventDestroy(stop);
    return st;
}

/* The peak of one operand type over the kernel shapes; prints one line. */
static w8a8_status mp_measure(w8a8_context *ctx, const mp_args *a, w8a8_dtype type, CUdeviceptr sink)
{
    /* 8 warps per SM with 16 chains is what a 1-CTA sm80_gemm tile of 8 warps has (64×64 warp
     * tiles: 32 accumulators); whether so few warps reach the peak is what it asks */
    static const int chains[] = {4, 8, 16};
    static const int warps_per_sm[] = {8, 16, 32};
    double best_tflops = 0, best_us = 0;
    int best_chains = 0, best_warps = 0;
    for (size_t ci = 0; ci < sizeof chains / sizeof chains[0]; ci++) {
        char defines[128];
        snprintf(defines, sizeof defines, "A_TYPE=%d,B_TYPE=%d,CHAINS=%d", (int)type, (int)type,
                 chains[ci]);
        const jit_kernel *kernel;
        w8a8_status st = jit_kernel_get(ctx, MP_TEMPLATE, defines, NULL, MP_ENTRY, &kernel);
        if (st != W8A8_OK)
            return st;
        for (size_t wi = 0; wi < sizeof warps_per_sm / sizeof warps_per_sm[0]; wi++) {
            jit_launch launch = {.grid = {(unsigned)(ctx->sm_count * warps_per_sm[wi] * MP_WARP /
                                                     MP_THREADS), 1, 1},
                                 .block = {MP_THREADS, 1, 1}, .cluster = {1, 1, 1}};
            double us = 0;
            st = mp_time(ctx, kernel, &launch, MP_ITERATIONS, sink, a->samples, &us);
            if (st != W8A8_OK)
                return st;
            double mmas = (double)launch.grid[0] * (MP_THREADS / MP_WARP) * MP_ITERATIONS *
                          chains[ci];
            double tflops = us > 0 ? mmas * MP_FLOP_PER_MMA / (us * 1e6) : 0;
            if (a->json)
                printf("{\"provider\": \"mma.sync.shape\", \"device\": \"%s\", \"arch\": "
                       "\"%s\", \"dtype\": \"%s\", \"tflops\": %.1f, \"us\": %.1f, "
                       "\"chains\": %d, \"warps_per_sm\": %d}\n", ctx->device_name, ctx->arch,
                       w8a8_dtype_name(type), tflops, us, chains[ci], warps_per_sm[wi]);
            if (tflops > best_tflops) {
                best_tflops = tflops;
                best_us = us;
                best_chains = chains[ci];
                best_warps = warps_per_sm[wi];
            }
        }
    }
    const char *name = w8a8_dtype_name(type);
    if (a->json)
        printf("{\"provider\": \"mma.sync.peak\", \"device\": \"%s\", \"arch\": \"%s\", "
               "\"dtype\": \"%s\", \"tflops\": %.1f, \"us\": %.1f, \"chains\": %d, "
               "\"warps_per_sm\": %d}\n", ctx->device_name, ctx->arch, name, best_tflops,
               best_us, best_chains, best_warps);
    else
        printf("%-14s %-6s %-6s %10.1f TFLOP/s  (%d chains, %d warps/SM, %.1f us)\n",
               "mma.sync.peak", ctx->arch, name, best_tflops, best_chains, best_warps, best_us);
    return W8A8_OK;
}

int cli_bench_mma_peak(int argc, char **argv)
{
    mp_args a;
    int rc = mp_parse(&a, argc, argv);
    if (rc >= 0)
        return rc;
    w8a8_context *ctx = cli_open(0);
    if (!ctx)
        return 1;
    w8a8_status st = context_require_device(ctx);
    if (st == W8A8_OK)
        st = context_make_current(ctx);
    CUdeviceptr sink = 0;
    size_t sink_bytes = (size_t)ctx->sm_count * 32 * MP_WARP * sizeof(float);
    if (st == W8A8_OK && ctx->cu->cuMemAlloc(&sink, sink_bytes) != CUDA_SUCCESS)
        st = errorf(ctx, W8A8_NO_MEMORY, "cuMemAlloc(%zu bytes) failed", sink_bytes);
    if (st == W8A8_OK && !a.json)
        printf("mma.sync.m16n8k32 peak on %s (%d SMs), kernels compiled for %s\n",
               ctx->device_name, ctx->sm_count, ctx->arch);
    bool fp8 = 10 * ctx->cc_major + ctx->cc_minor >= MP_MIN_CC_FP8;
    const w8a8_dtype types[] = {W8A8_INT8, W8A8_E4M3, W8A8_E5M2, W8A8_FP16};
    for (size_t i = 0; st == W8A8_OK && i < sizeof types / sizeof types[0]; i++)
        if (types[i] == W8A8_INT8 || types[i] == W8A8_FP16 || fp8)
            st = mp_measure(ctx, &a, types[i], sink);
    if (sink)
        ctx->cu->cuMemFree(sink);
    rc = st == W8A8_OK ? 0 : cli_fail_ctx(ctx, st);
    w8a8_context_close(ctx);
    return rc;
}
