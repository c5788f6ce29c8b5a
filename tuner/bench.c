/* Public benchmarking entry points over the tuner's timing harness: w8a8_bench_time (any
 * launcher, the dispatched kernel by default), w8a8_bench_host_overhead (host time of a
 * cached w8a8_scaled_mm call) and w8a8_bench_launch_floor (the same beside the driver's own
 * time for a bare launch of the kernel it dispatches). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "tune.h"

#define BENCH_DEFAULT_SAMPLES 20
#define BENCH_DEFAULT_BATCH_US 1000.0
#define BENCH_HOST_CHUNK 64 /* calls between synchronizations: far below the launch queue depth */

typedef struct user_launcher {
    w8a8_bench_launch_fn fn;
    void *user;
} user_launcher;

static w8a8_status launch_user(w8a8_context *ctx, void *user, const w8a8_problem *problem,
                               const w8a8_tensors *tensors, CUdeviceptr workspace, CUstream stream)
{
    const user_launcher *l = user;
    int rc = l->fn(l->user, problem, tensors, (void *)(uintptr_t)workspace, (void *)stream);
    return rc == 0 ? W8A8_OK : errorf(ctx, W8A8_CUDA_ERROR, "the launcher returned %d", rc);
}

static w8a8_status launch_dispatched(w8a8_context *ctx, void *user, const w8a8_problem *problem,
                                     const w8a8_tensors *tensors, CUdeviceptr workspace,
                                     CUstream stream)
{
    (void)user;
    (void)workspace;
    return w8a8_scaled_mm(ctx, problem, tensors, (void *)stream);
}

/* The arguments every entry point takes (options: w8a8_bench_time's, else NULL), then the
 * device: a bad argument is refused without one. */
static w8a8_status bench_check(w8a8_context *ctx, const w8a8_problem *problem, const void *out,
                               const w8a8_bench_options *options)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!problem || !out)
        return errorf(ctx, W8A8_INVALID, "%s is NULL", problem ? "the OUT result" : "problem");
    if (options && (options->batch < 0 || options->batch > TIMING_MAX_BATCH))
        return errorf(ctx, W8A8_INVALID, "options.batch: %d (0, or 1…%d launches a sample)",
                      options->batch, TIMING_MAX_BATCH);
    error_clear(ctx);
    w8a8_status st = validate_problem(ctx, problem);
    if (st == W8A8_OK)
        st = context_require_device(ctx);
    return st;
}

/* (A + B read once, out written once) in bytes, as peers.py counts them. */
static double bench_bytes(const w8a8_problem *p)
{
    return (double)p->m * (double)p->k * (double)w8a8_dtype_size(p->a_type) +
           (double)p->n * (double)p->k * (double)w8a8_dtype_size(p->b_type) +
           (double)p->m * (double)p->n * (double)w8a8_dtype_size(p->out_type);
}

w8a8_status w8a8_bench_time(w8a8_context *ctx, const w8a8_problem *problem,
                            w8a8_bench_launch_fn launch, void *user,
                            const w8a8_bench_options *options, w8a8_bench_result *result)
{
    w8a8_bench_options defaults = {0};
    const w8a8_bench_options *o = options ? options : &defaults;
    w8a8_status st = bench_check(ctx, problem, result, o);
    if (st != W8A8_OK)
        return st;
    memset(result, 0, sizeof *result);
    result->verify_error = -1.0;
    if (!launch && (st = w8a8_dispatch_warm(ctx, problem)) != W8A8_OK)
        return st;
    user_launcher launcher = {launch, user};
    timing_launch_fn fn = launch ? launch_user : launch_dispatched;
    timing_buffers b;
    st = timing_buffers_create(ctx, problem, o->rotate_l2_factor, o->workspace_bytes, &b);
    if (st != W8A8_OK)
        return st;
    result->buffer_sets = (int)b.count;
    if (o->verify) {
        bool passed = false;
        st = timing_verify(ctx, &b, fn, &launcher, &result->verify_error, &passed);
        result->verified = passed;
        if (st == W8A8_OK && !passed)
            st = errorf(ctx, W8A8_VERIFY_FAILED,
                        "the output differs from the reference by %.3g of max |ref|",
                        result->verify_error);
    }
    timing_result r;
    if (st == W8A8_OK)
        st = timing_measure(ctx, &b, fn, &launcher, o->samples > 0 ? o->samples : BENCH_DEFAULT_SAMPLES,
                            o->min_batch_us > 0 ? o->min_batch_us : BENCH_DEFAULT_BATCH_US,
                            o->batch, o->graph != 0, &r);
    if (st == W8A8_OK) {
        result->median_us = r.median_us;
        result->spread_us = r.spread_us;
        result->min_us = r.min_us;
        result->samples = r.samples;
        result->batch = r.batch;
        result->host_us = r.host_us;
        result->tflops = 2.0 * (double)problem->m * (double)problem->n * (double)problem->k /
                         r.median_us / 1e6;
        result->gbps = bench_bytes(problem) / r.median_us / 1e3;
    }
    timing_buffers_destroy(ctx, &b);
    return st;
}

/* Host time per call of chunks of BENCH_HOST_CHUNK w8a8_scaled_mm calls on one set, into
 * per_call[0..chunks); the GPU drains between chunks outside the clock. */
static w8a8_status host_chunks(w8a8_context *ctx, timing_buffers *b, int chunks, double *per_call)
{
    for (int c = 0; c < chunks; c++) {
        double t0 = util_now();
        for (int i = 0; i < BENCH_HOST_CHUNK; i++) {
            w8a8_status st = w8a8_scaled_mm(ctx, &b->problem, &b->sets[0], (void *)b->stream);
            if (st != W8A8_OK)
                return st;
        }
        per_call[c] = 1e6 * (util_now() - t0) / BENCH_HOST_CHUNK;
        w8a8_status st = timing_buffers_wait(ctx, b, NULL, BENCH_HOST_CHUNK, "a chunk of calls");
        if (st != W8A8_OK)
            return st;
    }
    return W8A8_OK;
}

/* The driver's floor: the launch hook of one w8a8_scaled_mm call, which replays each launch
 * the call makes with bare cuLaunchKernelEx, in the same chunks, while the family's
 * parameters are alive. A call that launches twice adds both launches' times. */
typedef struct floor_block {
    w8a8_context *ctx;
    timing_buffers *b;
    int chunks;
    double *per_call; /* chunks values, summed over the call's launches */
    int launches;
    w8a8_status wait_status; /* how a wait between chunks failed (the hook returns a CUresult) */
    char wait_message[W8A8_ERRMSG_BYTES];
} floor_block;

static CUresult floor_launches(void *user, const CUlaunchConfig *config, CUfunction function,
                               void **params)
{
    floor_block *f = user;
    const cu_api *cu = f->ctx->cu;
    for (int c = -1; c < f->chunks; c++) { /* chunk −1 warms the path up: not counted */
        double t0 = util_now();
        for (int i = 0; i < BENCH_HOST_CHUNK; i++) {
            CUresult rc = cu->cuLaunchKernelEx(config, function, params, NULL);
            if (rc != CUDA_SUCCESS)
                return rc;
        }
        if (c >= 0)
            f->per_call[c] += 1e6 * (util_now() - t0) / BENCH_HOST_CHUNK;
        f->wait_status = timing_buffers_wait(f->ctx, f->b, NULL, BENCH_HOST_CHUNK,
                                             "a chunk of bare launches");
        if (f->wait_status != W8A8_OK) {
            snprintf(f->wait_message, sizeof f->wait_message, "%s", w8a8_errmsg(f->ctx));
            return f->wait_status == W8A8_HUNG ? CUDA_ERROR_LAUNCH_TIMEOUT
                                               : (CUresult)w8a8_error_cuda(f->ctx);
        }
    }
    f->launches++;
    return CUDA_SUCCESS;
}

static w8a8_status floor_chunks(w8a8_context *ctx, timing_buffers *b, int chunks, double *per_call,
                                int *launches)
{
    floor_block f = {.ctx = ctx, .b = b, .chunks = chunks, .per_call = per_call};
    for (int c = 0; c < chunks; c++)
        per_call[c] = 0.0;
    jit_launch_hook_set(floor_launches, &f);
    w8a8_status st = w8a8_scaled_mm(ctx, &b->problem, &b->sets[0], (void *)b->stream);
    jit_launch_hook_set(NULL, NULL);
    if (f.wait_status != W8A8_OK) /* the launch's own error would hide the wait's */
        st = errorf(ctx, f.wait_status, "%s", f.wait_message);
    if (st == W8A8_OK && f.launches == 0)
        st = errorf(ctx, W8A8_INTERNAL, "the dispatched call launched no kernel to time");
    *launches = f.launches;
    return st;
}

/* Chunks per round of the interleaved measurement: long enough to time, short enough that a
 * change of the host's clock falls on both sides. */
#define BENCH_ROUND_CHUNKS 16

/* Times `calls` cached w8a8_scaled_mm calls and, when floor is not NULL, as many bare launches
 * interleaved with them in rounds. */
static w8a8_status host_measure(w8a8_context *ctx, const w8a8_problem *problem, int calls,
                                double *us_per_call, double *min_us_per_call,
                                w8a8_launch_floor *floor)
{
    int chunks = calls > BENCH_HOST_CHUNK ? calls / BENCH_HOST_CHUNK : 1;
    double *ours = malloc(2 * (size_t)chunks * sizeof *ours);
    if (!ours)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    double *bare = ours + chunks;
    timing_buffers b;
    memset(&b, 0, sizeof b);
    w8a8_status st = w8a8_dispatch_warm(ctx, problem);
    if (st == W8A8_OK) /* one set: the kernels' own time does not matter here */
        st = timing_buffers_create(ctx, problem, 1e-9, 0, &b);
    if (st == W8A8_OK) /* the first launch of a kernel pays one-time costs: not counted */
        st = host_chunks(ctx, &b, 1, ours);
    int launches = 0;
    for (int done = 0; st == W8A8_OK && done < chunks; done += BENCH_ROUND_CHUNKS) {
        int n = chunks - done < BENCH_ROUND_CHUNKS ? chunks - done : BENCH_ROUND_CHUNKS;
        st = host_chunks(ctx, &b, n, ours + done);
        if (st == W8A8_OK && floor)
            st = floor_chunks(ctx, &b, n, bare + done, &launches);
    }
    if (st == W8A8_OK) {
        double spread;
        timing_stats(ours, chunks, us_per_call, &spread); /* sorts: [0] is the fastest */
        *min_us_per_call = ours[0];
        if (floor) {
            timing_stats(bare, chunks, &floor->floor_us_per_call, &spread);
            floor->floor_min_us_per_call = bare[0];
            floor->calls = chunks * BENCH_HOST_CHUNK;
            floor->launches_per_call = launches;
        }
    }
    timing_buffers_destroy(ctx, &b);
    free(ours);
    return st;
}

w8a8_status w8a8_bench_host_overhead(w8a8_context *ctx, const w8a8_problem *problem, int calls,
                                     double *us_per_call, double *min_us_per_call)
{
    w8a8_status st = bench_check(ctx, problem, us_per_call, NULL);
    double min_us = 0.0;
    if (st == W8A8_OK)
        st = host_measure(ctx, problem, calls, us_per_call, &min_us, NULL);
    if (st == W8A8_OK && min_us_per_call)
        *min_us_per_call = min_us;
    return st;
}

w8a8_status w8a8_bench_launch_floor(w8a8_context *ctx, const w8a8_problem *problem, int calls,
                                    w8a8_launch_floor *result)
{
    w8a8_status st = bench_check(ctx, problem, result, NULL);
    if (st != W8A8_OK)
        return st;
    memset(result, 0, sizeof *result);
    return host_measure(ctx, problem, calls, &result->us_per_call, &result->min_us_per_call,
                        result);
}
