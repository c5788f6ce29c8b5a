/* What the tuner's files (tune.c, timing.c, pool.c) and the dispatcher share: the timing
 * harness over rotated random buffers, verification against the reference kernel, a small
 * thread pool, and the entry point the dispatcher's online mode calls. Prefixes: timing_,
 * pool_, tune_. */
#ifndef W8A8_TUNE_H
#define W8A8_TUNE_H

#include "internal.h"

/* ---- timing.c: buffers ---------------------------------------------------------------------- */

/* Device buffers for one problem: `count` complete tensor sets (A, B, out, scales, bias, zero
 * points, column sums) so that together they exceed rotate_l2_factor × L2, plus one reference
 * output for set 0 (computed on first use) and an optional workspace. Every set holds the
 * same random values (addresses, not contents, defeat the cache). */
typedef struct timing_buffers {
    w8a8_problem problem;      /* resolved: strides and scale lds filled in */
    w8a8_tensors *sets;        /* count tensor sets, all inside one allocation */
    size_t count;
    CUdeviceptr base;          /* count × set_bytes */
    size_t set_bytes;
    size_t out_bytes;          /* bytes of one output (m × ldc elements) */
    CUdeviceptr reference_out; /* 0 until the reference ran */
    double reference_max;      /* max |ref| over the output */
    CUdeviceptr workspace;
    size_t workspace_bytes;
    CUstream stream;
    CUevent start, stop;
    size_t next_set;           /* rotation position, kept across measurements */
} timing_buffers;

w8a8_status timing_buffers_create(w8a8_context *ctx, const w8a8_problem *problem,
                                  double rotate_l2_factor, size_t workspace_bytes,
                                  timing_buffers *b);
void timing_buffers_destroy(w8a8_context *ctx, timing_buffers *b);

/* ---- timing.c: measuring -------------------------------------------------------------------- */

/* Launches one product; returns W8A8_OK or an error recorded on ctx. */
typedef w8a8_status (*timing_launch_fn)(w8a8_context *ctx, void *user,
                                        const w8a8_problem *problem,
                                        const w8a8_tensors *tensors, CUdeviceptr workspace,
                                        CUstream stream);

typedef struct timing_result {
    double median_us, spread_us, min_us;
    double host_us; /* host time per launch call, median over samples */
    int samples, batch;
} timing_result;

/* Warm-up, a probe to size the batch (≈ min_batch_us of GPU time, 1…1000 launches), then
 * `samples` event-timed batches rotating through the sets. */
w8a8_status timing_measure(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                           void *user, int samples, double min_batch_us, timing_result *r);

/* Runs `launch` once on set 0 (output poisoned first) and compares with the reference kernel's
 * output for the same inputs. *error = max |out − ref| / max |ref|; *passed per the bound of
 * timing_tolerance. Returns W8A8_OK whether or not it passed (errors are launch/copy failures). */
w8a8_status timing_verify(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                          void *user, double *error, bool *passed);

/* The acceptance bound of timing_verify: element-wise
 *   |out − ref| ≤ ulp_rel(out_type) · |ref| + accumulation_rel · max |ref|
 * (see timing.c for the reasoning). */
void timing_tolerance(const w8a8_problem *problem, double *ulp_rel, double *accumulation_rel);

/* Median and p90 − p10 spread of n values (sorts them in place). */
void timing_stats(double *values, int n, double *median, double *spread);

/* ---- pool.c ----------------------------------------------------------------------------------- */

/* Calls fn(user, i) for i in [0, count) on up to `threads` threads (the caller's included);
 * returns when all are done. threads ≤ 0: online CPUs. */
typedef void (*pool_fn)(void *user, size_t index);
void pool_run(int threads, size_t count, pool_fn fn, void *user);
/* Online CPUs (≥ 1). */
int pool_cpu_count(void);

/* ---- tune.c ----------------------------------------------------------------------------------- */

/* Online mode: tunes one problem with the given budget and no progress callback, without
 * touching the dispatcher (the caller holds its lock). */
w8a8_status tune_problem_online(w8a8_context *ctx, const w8a8_problem *problem,
                                double budget_seconds);

#endif
