/* The tuner's compile queue: every distinct kernel (template, arch, defines) of a tuning run
 * is compiled once, however many keys want it (a cubin does not depend on M, N or K), by
 * worker threads that run beside the GPU timing. Workers serve the demand in the order the
 * timing loop will need it: the current key's candidates first, in their order, then the next
 * keys' (prefetch); kernels only past keys wanted are left. On a budget the keys ahead are
 * served in step (kq_set_horizon): a kernel at position d of the key j places ahead comes at
 * d + j × pace, so each key finds its best-ranked kernels built when the timing reaches it,
 * instead of the pool spending the whole run on the deep tail of the key being timed. The
 * timing thread that needs a kernel no worker has started compiles it itself instead of
 * waiting. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"
#include "tune.h"

#define KQ_MAX_THREADS 256
#define KQ_FIRST_SLOTS 1024u /* hash slots to start with (a power of two) */
#define KQ_MIN_PACE 8        /* kernels per key ahead, at least */
#define KQ_GUESS_SECONDS 0.7 /* one fresh compile, until the run has measured some (H100 host:
                                0.6–0.75 s for sm90_gemm) */

struct kernel_queue {
    w8a8_context *ctx;
    int threads;
    pthread_t ids[KQ_MAX_THREADS];
    int started;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a kernel finished, the demand moved, or stop */
    kq_kernel **items;
    size_t count, cap;
    size_t *slots;          /* open addressing: index + 1, 0 = empty */
    size_t slot_count;
    /* the demand: lists[key] = kernel indices in the order that key needs them */
    const size_t *const *lists;
    const size_t *lengths;
    size_t list_count;
    size_t *cursors;        /* per key: everything before it is started or done */
    size_t current;         /* the key being timed */
    double horizon;         /* seconds of timing per key ahead; 0: each key in full, in turn */
    bool stop;
    /* statistics */
    double start_time, last_done_time, busy_seconds, wait_seconds;
    size_t built, from_store, rejected, failed, by_waiter;
};

static uint64_t kernel_hash(const char *template_name, const char *arch, const char *defines)
{
    /* "\xff" between the parts: no byte of a name, so ("ab", "c") and ("a", "bc") differ */
    uint64_t h = util_hash_text(UTIL_HASH_SEED, template_name);
    h = util_hash_text(util_hash_text(h, "\xff"), arch);
    return util_hash_text(util_hash_text(h, "\xff"), defines);
}

static bool kernel_is(const kq_kernel *k, const char *template_name, const char *arch,
                      const char *defines)
{
    return strcmp(k->template_name, template_name) == 0 && strcmp(k->arch, arch) == 0 &&
           strcmp(k->defines, defines) == 0;
}

/* Rebuilds the hash table at twice the size. */
static bool slots_grow(kernel_queue *q)
{
    size_t count = q->slot_count ? 2 * q->slot_count : KQ_FIRST_SLOTS;
    size_t *slots = calloc(count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < q->count; i++) {
        const kq_kernel *k = q->items[i];
        size_t at = kernel_hash(k->template_name, k->arch, k->defines) & (count - 1);
        while (slots[at])
            at = (at + 1) & (count - 1);
        slots[at] = i + 1;
    }
    free(q->slots);
    q->slots = slots;
    q->slot_count = count;
    return true;
}

w8a8_status kq_create(w8a8_context *ctx, int threads, kernel_queue **out)
{
    *out = NULL;
    kernel_queue *q = calloc(1, sizeof *q);
    if (!q || !slots_grow(q)) {
        free(q);
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for the compile queue");
    }
    q->ctx = ctx;
    q->threads = threads < 1 ? 1 : threads > KQ_MAX_THREADS ? KQ_MAX_THREADS : threads;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
    *out = q;
    return W8A8_OK;
}

w8a8_status kq_add(kernel_queue *q, const char *template_name, const char *arch,
                   const char *defines, size_t *index)
{
    pthread_mutex_lock(&q->lock);
    uint64_t h = kernel_hash(template_name, arch, defines);
    size_t at = h & (q->slot_count - 1);
    for (; q->slots[at]; at = (at + 1) & (q->slot_count - 1))
        if (kernel_is(q->items[q->slots[at] - 1], template_name, arch, defines)) {
            *index = q->slots[at] - 1;
            pthread_mutex_unlock(&q->lock);
            return W8A8_OK;
        }
    kq_kernel *k = calloc(1, sizeof *k);
    bool room = k && strlen(defines) < sizeof k->defines;
    if (room && q->count == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        kq_kernel **grown = realloc(q->items, cap * sizeof *grown);
        room = grown != NULL;
        if (grown) {
            q->items = grown;
            q->cap = cap;
        }
    }
    if (!room) {
        pthread_mutex_unlock(&q->lock);
        free(k);
        return errorf(q->ctx, W8A8_NO_MEMORY, "out of host memory for the compile queue");
    }
    snprintf(k->template_name, sizeof k->template_name, "%s", template_name);
    snprintf(k->arch, sizeof k->arch, "%s", arch);
    snprintf(k->defines, sizeof k->defines, "%s", defines);
    q->items[q->count] = k;
    q->slots[at] = ++q->count;
    *index = q->count - 1;
    bool ok = 2 * q->count < q->slot_count || slots_grow(q); /* keep the load under one half */
    pthread_mutex_unlock(&q->lock);
    return ok ? W8A8_OK : errorf(q->ctx, W8A8_NO_MEMORY, "out of host memory for the compile queue");
}

/* Compiles one kernel (lock not held). NVRTC is thread-safe; errors are kept per thread. */
static void compile_kernel(kernel_queue *q, kq_kernel *k)
{
    jit_cubin cubin;
    memset(&cubin, 0, sizeof cubin);
    w8a8_status st = jit_cubin_get(q->ctx, k->template_name, k->defines, k->arch, &cubin);
    if (st != W8A8_OK) {
        snprintf(k->error, sizeof k->error, "%s: %s", w8a8_status_string(st), w8a8_errmsg(q->ctx));
        jit_cubin_free(&cubin); /* a failed compile keeps its log */
        return;
    }
    k->info = cubin.info;
    jit_cubin_free(&cubin);
    k->compiled = !k->info.rejected;
    if (k->info.rejected)
        snprintf(k->error, sizeof k->error, "%s", k->info.reject_reason);
}

/* Runs compile_kernel for a kernel marked running and records the outcome (lock held on entry
 * and exit, released while compiling). */
static void compile_locked(kernel_queue *q, kq_kernel *k, bool by_waiter)
{
    pthread_mutex_unlock(&q->lock);
    double t0 = util_now();
    compile_kernel(q, k);
    double t1 = util_now();
    pthread_mutex_lock(&q->lock);
    k->running = false;
    k->done = true;
    q->busy_seconds += t1 - t0;
    q->last_done_time = t1;
    q->built += k->compiled;
    q->from_store += k->compiled && k->info.from_disk;
    q->rejected += k->info.rejected;
    q->failed += !k->compiled && !k->info.rejected;
    q->by_waiter += by_waiter;
    pthread_cond_broadcast(&q->changed);
}

/* Kernels per key ahead: what the pool builds in `horizon` seconds (its mean compile time so
 * far, kernels from the store included). SIZE_MAX without a horizon. Lock held. */
static size_t pace_locked(const kernel_queue *q)
{
    if (q->horizon <= 0)
        return SIZE_MAX;
    size_t done = q->built + q->rejected + q->failed;
    double each = done >= 16 ? q->busy_seconds / (double)done : KQ_GUESS_SECONDS;
    double pace = q->horizon * (q->threads > 0 ? q->threads : 1) / (each > 1e-3 ? each : 1e-3);
    return pace < KQ_MIN_PACE ? KQ_MIN_PACE : pace > 1e6 ? SIZE_MAX : (size_t)pace;
}

/* The next kernel no one has started: the lowest d + j × pace over the keys from the current
 * one on (d: its position in key current + j's list); NULL if none. Lock held. */
static kq_kernel *next_pending(kernel_queue *q)
{
    size_t pace = pace_locked(q), best_score = SIZE_MAX;
    kq_kernel *best = NULL;
    for (size_t key = q->current; key < q->list_count; key++) {
        size_t ahead = key - q->current;
        if (best && (pace == SIZE_MAX || ahead >= (best_score + pace - 1) / pace))
            break; /* this key's scores and later ones' are at least ahead × pace */
        size_t *cursor = &q->cursors[key];
        for (; *cursor < q->lengths[key]; ++*cursor) {
            kq_kernel *k = q->items[q->lists[key][*cursor]];
            if (!k->done && !k->running)
                break;
        }
        if (*cursor == q->lengths[key])
            continue;
        size_t score = pace == SIZE_MAX ? 0 : ahead * pace + *cursor;
        if (!best || score < best_score) {
            best = q->items[q->lists[key][*cursor]];
            best_score = score;
        }
    }
    return best;
}

static void *worker(void *arg)
{
    kernel_queue *q = arg;
    pthread_mutex_lock(&q->lock);
    while (!q->stop) {
        kq_kernel *k = next_pending(q);
        if (!k) {
            pthread_cond_wait(&q->changed, &q->lock);
            continue;
        }
        k->running = true;
        compile_locked(q, k, false);
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

void kq_set_demand(kernel_queue *q, const size_t *const *lists, const size_t *lengths,
                   size_t count)
{
    pthread_mutex_lock(&q->lock);
    q->lists = lists;
    q->lengths = lengths;
    q->list_count = count;
    free(q->cursors);
    q->cursors = calloc(count ? count : 1, sizeof *q->cursors);
    if (!q->cursors)
        q->list_count = 0; /* no prefetch; kq_wait still compiles what is asked */
    q->current = 0;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

void kq_start(kernel_queue *q)
{
    q->start_time = q->last_done_time = util_now();
    for (int i = 0; i < q->threads; i++) /* a thread that cannot start means less parallelism */
        if (pthread_create(&q->ids[q->started], NULL, worker, q) == 0)
            q->started++;
}

void kq_set_horizon(kernel_queue *q, double seconds)
{
    pthread_mutex_lock(&q->lock);
    q->horizon = seconds > 0 ? seconds : 0;
    pthread_mutex_unlock(&q->lock);
}

void kq_set_current(kernel_queue *q, size_t key)
{
    pthread_mutex_lock(&q->lock);
    q->current = key;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

const kq_kernel *kq_wait(kernel_queue *q, size_t index)
{
    double t0 = util_now();
    pthread_mutex_lock(&q->lock);
    kq_kernel *k = q->items[index];
    while (!k->done) {
        if (!k->running) {
            k->running = true;
            compile_locked(q, k, true);
        } else {
            pthread_cond_wait(&q->changed, &q->lock);
        }
    }
    q->wait_seconds += util_now() - t0;
    pthread_mutex_unlock(&q->lock);
    return k;
}

const kq_kernel *kq_kernel_at(kernel_queue *q, size_t index)
{
    pthread_mutex_lock(&q->lock);
    const kq_kernel *k = index < q->count ? q->items[index] : NULL;
    pthread_mutex_unlock(&q->lock);
    return k;
}

/* Stops the workers: a compile under way finishes, nothing new starts. */
static void stop_workers(kernel_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->stop = true;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    for (int i = 0; i < q->started; i++)
        pthread_join(q->ids[i], NULL);
    q->started = 0;
}

void kq_stats_get(kernel_queue *q, kq_stats *s)
{
    memset(s, 0, sizeof *s);
    if (!q)
        return;
    pthread_mutex_lock(&q->lock);
    s->kernels = q->count;
    s->built = q->built;
    s->from_store = q->from_store;
    s->rejected = q->rejected;
    s->failed = q->failed;
    s->by_waiter = q->by_waiter;
    s->threads = q->threads;
    s->busy_seconds = q->busy_seconds;
    s->wait_seconds = q->wait_seconds;
    s->wall_seconds = q->last_done_time - q->start_time;
    for (size_t i = 0; i < q->count; i++)
        s->compiled_fresh += q->items[i]->done && q->items[i]->info.compile_ms > 0;
    pthread_mutex_unlock(&q->lock);
}

void kq_destroy(kernel_queue *q)
{
    if (!q)
        return;
    stop_workers(q);
    for (size_t i = 0; i < q->count; i++)
        free(q->items[i]);
    free(q->items);
    free(q->slots);
    free(q->cursors);
    pthread_cond_destroy(&q->changed);
    pthread_mutex_destroy(&q->lock);
    free(q);
}
