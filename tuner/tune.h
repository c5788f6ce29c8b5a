/* What the tuner's files (tune.c, timing.c, pool.c) and the dispatcher share: the timing
 * harness over rotated random buffers, verification against the reference kernel, a small
 * thread pool, and the entry point the dispatcher's online mode calls. Prefixes: timing_,
 * pool_, tune_. */
#ifndef W8A8_TUNE_H
#define W8A8_TUNE_H

#include "internal.h"

/* ---- timing.c: buffers ---------------------------------------------------------------------- */

/* Device buffers for one problem: `count` complete tensor sets (A, B, out, scales, bias, zero
 * points, column sums) so that together they exceed rotate_l2_factor × L2, plus the reference
 * output of set 0's sampled rows (computed on first use) and an optional workspace. Every set
 * holds the same random values (addresses, not contents, defeat the cache). */
#define TIMING_MAX_SAMPLE_BLOCKS 5
typedef struct timing_buffers {
    w8a8_problem problem;      /* resolved: strides and scale lds filled in */
    w8a8_tensors *sets;        /* count tensor sets, all inside one allocation */
    size_t count;
    CUdeviceptr base;          /* count × set_bytes */
    size_t set_bytes;
    size_t out_bytes;          /* bytes of one output (m × ldc elements) */
    CUdeviceptr verify_base;   /* 0 until the reference ran; holds the next three */
    CUdeviceptr verify_result; /* 3 words: non-finite outputs, failed elements, worst |diff| */
    CUdeviceptr sample_index;  /* int32 row numbers of the sampled rows */
    CUdeviceptr reference_out; /* the reference's sampled rows, packed (stride ldc) */
    int64_t sample_starts[TIMING_MAX_SAMPLE_BLOCKS], sample_lengths[TIMING_MAX_SAMPLE_BLOCKS];
    int sample_blocks;
    int64_t sample_rows;
    double reference_max;      /* max |ref| over the sampled rows */
    CUdeviceptr workspace;
    size_t workspace_bytes;
    CUstream stream;
    CUevent start, stop;
    size_t next_set;           /* rotation position, kept across measurements */
    double watchdog_seconds;   /* the watchdog's base limit (timing_watchdog_seconds(0) at
                                  create; the tuner sets its run's) */
    double launch_seconds;     /* the longest launch seen so far (scales the watchdog) */
} timing_buffers;

w8a8_status timing_buffers_create(w8a8_context *ctx, const w8a8_problem *problem,
                                  double rotate_l2_factor, size_t workspace_bytes,
                                  timing_buffers *b);
void timing_buffers_destroy(w8a8_context *ctx, timing_buffers *b);

/* ---- timing.c: the watchdog ------------------------------------------------------------------ */

/* A kernel that never finishes (a deadlocked barrier in a buggy config) must not stall a tuning
 * run forever, so every wait of the timing and verification path polls with a deadline
 * instead of blocking in the driver. The limit is generous: a legitimate wait is a timed batch
 * (sized to about a millisecond of GPU time), one verification launch, or the reference on
 * the sampled rows (under a second at the largest model shapes); a wait covering `launches`
 * launches gets launches × the longest launch seen so far on top, so three warm-up launches of
 * the reference kernel timed as a candidate at M = 16384, N = 57344, K = 8192 (seconds each)
 * still finish in time. */
#define TIMING_WATCHDOG_DEFAULT_S 60.0
#define TIMING_WATCHDOG_ENV "W8A8_TUNE_WATCHDOG_S"

/* The limit: `seconds` when > 0, else $W8A8_TUNE_WATCHDOG_S when it is a positive number, else
 * TIMING_WATCHDOG_DEFAULT_S. */
double timing_watchdog_seconds(double seconds);

/* Waits until `event` completed (event NULL: everything queued on b's stream) for work of
 * `launches` launches, polling the driver (it spins briefly, then sleeps between polls).
 * Returns W8A8_OK, W8A8_CUDA_ERROR, or after b->watchdog_seconds + launches ×
 * b->launch_seconds W8A8_HUNG with a message naming `what`, having marked ctx->gpu_hung:
 * nothing may wait on this context again (timing_buffers_destroy then frees no device
 * memory). */
w8a8_status timing_buffers_wait(w8a8_context *ctx, timing_buffers *b, CUevent event,
                                int launches, const char *what);

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

/* Warm-up, a probe to size the batch (≈ min_batch_us of GPU time, and with `graph` at least
 * TIMING_GRAPH_MIN_BATCH launches; 1…TIMING_MAX_BATCH launches; `batch` > 0 instead fixes it,
 * without the probe), then `samples` event-timed batches rotating through the sets: launched
 * from the host each time, or (graph) captured once into a CUDA graph and replayed, as a
 * serving engine that captures graphs runs them (host_us is then the replay call's host time
 * per launch). */
#define TIMING_MAX_BATCH W8A8_BENCH_MAX_BATCH
/* A replayed graph's fewest launches when sized by time: peers.py's 20-call replay. A long
 * kernel timed in bursts of two (1 ms) ran 744 us where 20-call replays of the same cubin took
 * 837-862 us at 4096x7168x16384 (H200, bench/results-2026-11-29-s43): its clock holds up only
 * in short bursts. The tuner's final pass replays graphs, so its winners are chosen in the
 * bursts they are compared in. */
#define TIMING_GRAPH_MIN_BATCH W8A8_BENCH_GRAPH_BATCH
w8a8_status timing_measure(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                           void *user, int samples, double min_batch_us, int batch, bool graph,
                           timing_result *r);

/* Runs `launch` once on set 0 (output poisoned first), checks on the GPU that every output
 * element was written (finite) and compares sampled rows with the reference kernel's output
 * for the same inputs: every row when M ≤ 512, else 128-row blocks at the start, the end and
 * evenly between (each with every column). The reference runs once per buffers, on those rows
 * only. *error = max |out − ref| / max |ref| over the sampled rows (infinite when an element
 * was not written); *passed per the bound of timing_tolerance. Returns W8A8_OK whether or not
 * it passed (errors are launch/copy failures). */
w8a8_status timing_verify(w8a8_context *ctx, timing_buffers *b, timing_launch_fn launch,
                          void *user, double *error, bool *passed);

/* Runs the reference on the sampled rows now, unless done (timing_verify does it on first use). */
w8a8_status timing_verify_prepare(w8a8_context *ctx, timing_buffers *b);
/* The template of the verification kernel, and its defines for `w8a8 compile --all` (one per
 * out dtype; NULL past the end). */
#define TIMING_VERIFY_TEMPLATE "verify"
const char *timing_compile_defines(size_t index);
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

/* ---- kernel_queue.c: compile once, time many --------------------------------------------- */

#define KQ_DEFINES_BYTES 1024

/* One distinct kernel of a tuning run. Fields other than the name are written by whoever
 * compiles it and read only once kq_wait returned it. */
typedef struct kq_kernel {
    char template_name[64];
    char arch[16];
    char defines[KQ_DEFINES_BYTES];
    bool running, done;
    bool compiled;          /* built or found in the cubin store, and accepted */
    w8a8_kernel_info info;
    char error[256];        /* why not compiled: a compile error or the rejection */
} kq_kernel;

typedef struct kernel_queue kernel_queue;

typedef struct kq_stats {
    size_t kernels;         /* distinct kernels the run's candidates name */
    size_t built;           /* compiled or loaded, and accepted */
    size_t compiled_fresh;  /* of them, compiled by NVRTC in this run (not from the store) */
    size_t from_store, rejected, failed;
    size_t by_waiter;       /* compiled by the timing thread itself (no worker had started) */
    int threads;
    double busy_seconds;    /* summed over the threads */
    double wall_seconds;    /* from kq_start to the last compile's end */
    double wait_seconds;    /* the timing thread's time in kq_wait */
} kq_stats;

/* An empty queue with `threads` workers (not started). */
w8a8_status kq_create(w8a8_context *ctx, int threads, kernel_queue **out);
/* Stops the workers (a compile under way finishes) and frees everything. NULL is fine. */
void kq_destroy(kernel_queue *q);
/* The index of (template, arch, defines), added if new. Thread-safe. */
w8a8_status kq_add(kernel_queue *q, const char *template_name, const char *arch,
                   const char *defines, size_t *index);
/* What the keys will need: lists[key] holds kernel indices in the order the timing loop asks
 * for them. Borrowed until kq_destroy. */
void kq_set_demand(kernel_queue *q, const size_t *const *lists, const size_t *lengths,
                   size_t count);
/* Starts the workers; they compile the demand from the current key on. */
void kq_start(kernel_queue *q);
/* On a budget, each key is expected to time for about `seconds`: the keys ahead are served in
 * step, each its best-ranked kernels first, about as many as the pool builds in that time
 * (0: each key's whole list before the next key's). */
void kq_set_horizon(kernel_queue *q, double seconds);
/* The timing loop moved to `key`: earlier keys' kernels are no longer compiled ahead. */
void kq_set_current(kernel_queue *q, size_t key);
/* Kernel `index`, done: compiled on the calling thread if no worker has started it, else
 * waited for. */
const kq_kernel *kq_wait(kernel_queue *q, size_t index);
/* Kernel `index` as it stands (done or not); NULL past the end. */
const kq_kernel *kq_kernel_at(kernel_queue *q, size_t index);
void kq_stats_get(kernel_queue *q, kq_stats *s);

/* ---- tune.c ----------------------------------------------------------------------------------- */

/* Online mode: tunes one problem with the given budget and no progress callback, without
 * touching the dispatcher (the caller holds its lock). */
w8a8_status tune_problem_online(w8a8_context *ctx, const w8a8_problem *problem,
                                double budget_seconds);

#endif
