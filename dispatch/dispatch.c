/* The dispatcher: w8a8_scaled_mm, w8a8_dispatch_warm / _explain, and the W8A8_TUNE policy.
 *
 * Hot path (a key seen before): validate → key → lock-free probe → family->run. The table is
 * an open-addressing array of atomic entry pointers, published with release stores and read
 * with acquire loads. Entries are immutable once published; replacing one (after tuning)
 * publishes a new entry and retires the old, and growing the table publishes a new array and
 * retires the old one. Retired memory is freed only when the context closes, so a reader
 * that loaded an old pointer keeps reading valid memory without any reference counting.
 * Readers therefore take no lock, allocate nothing and write nothing shared.
 *
 * Miss path (first call for a key): under the table's mutex, build the fallback chain (cache
 * → space defaults → reference), apply the tune policy, plan the first link that plans, and
 * publish the entry. Only this path touches SQLite, Lua and NVRTC. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dispatch.h"
#include "tune.h"

/* ---- keys ------------------------------------------------------------------------------------ */

/* The problem class plus the M bucket. Field for field at least as fine as cache_key (it adds
 * B's scale layout orientation), with no padding so that memcmp compares it. */
typedef struct dispatch_key {
    int32_t a_type, b_type, out_type, bias_type;
    int32_t a_scale, b_scale;
    int32_t a_group_rows, a_group_k, a_k_major;
    int32_t b_group_rows, b_group_k, b_k_major;
    int32_t azp, promoted; /* promoted: gemm_promotes */
    int64_t n, k, m_bucket;
} dispatch_key;
_Static_assert(sizeof(dispatch_key) == 14 * 4 + 3 * 8, "dispatch_key must have no padding");

static void key_make(dispatch_key *key, const w8a8_problem *p)
{
    bool a_block = p->a_scale.kind == W8A8_SCALE_BLOCK;
    bool b_block = p->b_scale.kind == W8A8_SCALE_BLOCK;
    key->a_type = (int32_t)p->a_type;
    key->b_type = (int32_t)p->b_type;
    key->out_type = (int32_t)p->out_type;
    key->bias_type = (int32_t)p->bias_type;
    key->a_scale = (int32_t)p->a_scale.kind;
    key->b_scale = (int32_t)p->b_scale.kind;
    key->a_group_rows = a_block ? p->a_scale.group_rows : 0;
    key->a_group_k = a_block ? p->a_scale.group_k : 0;
    key->a_k_major = a_block ? p->a_scale.k_major != 0 : 0;
    key->b_group_rows = b_block ? p->b_scale.group_rows : 0;
    key->b_group_k = b_block ? p->b_scale.group_k : 0;
    key->b_k_major = b_block ? p->b_scale.k_major != 0 : 0;
    key->azp = (int32_t)p->azp;
    key->promoted = gemm_promotes(p) ? 1 : 0;
    key->n = p->n;
    key->k = p->k;
    key->m_bucket = cache_m_bucket(p->m);
}

/* A multiply-xorshift mix over the key's 64-bit words: a few nanoseconds. */
static uint64_t key_hash(const dispatch_key *key)
{
    const unsigned char *bytes = (const unsigned char *)key;
    uint64_t h = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < sizeof *key; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        h = (h ^ word) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    return h;
}

/* ---- the table ------------------------------------------------------------------------------- */

typedef struct dispatch_entry {
    dispatch_key key;
    uint64_t hash;
    gemm_plan plan;
    dispatch_choice choice;              /* what was planned, for explain */
    char notes[DISPATCH_NOTES_BYTES];    /* links skipped or failed before it */
} dispatch_entry;

typedef struct dispatch_slots {
    size_t mask; /* capacity − 1; capacity is a power of two */
    _Atomic(dispatch_entry *) slot[];
} dispatch_slots;

struct dispatch_table {
    _Atomic(dispatch_slots *) slots;
    pthread_mutex_t lock; /* misses, inserts, refreshes; never taken by a hit */
    size_t count;
    atomic_int tune_mode;
    void **retired;       /* entries and slot arrays no longer reachable from `slots` */
    size_t retired_count, retired_cap;
    bool identity_done;   /* the fields below were filled (under lock) */
    bool has_cache_dev, has_space_dev;
    cache_device cache_dev;
    space_device space_dev;
};

#define DISPATCH_INITIAL_CAPACITY 64

static dispatch_slots *slots_new(size_t capacity)
{
    dispatch_slots *s = calloc(1, sizeof *s + capacity * sizeof s->slot[0]);
    if (!s)
        return NULL;
    s->mask = capacity - 1;
    for (size_t i = 0; i < capacity; i++)
        atomic_init(&s->slot[i], NULL);
    return s;
}

/* Lock-free: any number of threads, concurrently with one writer. */
static const dispatch_entry *table_find(dispatch_table *t, const dispatch_key *key, uint64_t hash)
{
    dispatch_slots *s = atomic_load_explicit(&t->slots, memory_order_acquire);
    size_t i = (size_t)hash & s->mask;
    for (size_t probes = 0; probes <= s->mask; probes++, i = (i + 1) & s->mask) {
        const dispatch_entry *e = atomic_load_explicit(&s->slot[i], memory_order_acquire);
        if (!e)
            return NULL;
        if (e->hash == hash && memcmp(&e->key, key, sizeof *key) == 0)
            return e;
    }
    return NULL;
}

/* Keeps `ptr` until the context closes (a reader may still hold it). Lock held. */
static bool table_retire(dispatch_table *t, void *ptr)
{
    if (t->retired_count == t->retired_cap) {
        size_t cap = t->retired_cap ? 2 * t->retired_cap : 16;
        void **grown = realloc(t->retired, cap * sizeof *grown);
        if (!grown)
            return false;
        t->retired = grown;
        t->retired_cap = cap;
    }
    t->retired[t->retired_count++] = ptr;
    return true;
}

/* Puts e into s at its probe position: replaces an entry with the same key (returned) or fills
 * the first empty slot (NULL returned). Lock held. */
static dispatch_entry *slots_put(dispatch_slots *s, dispatch_entry *e)
{
    size_t i = (size_t)e->hash & s->mask;
    for (;; i = (i + 1) & s->mask) {
        dispatch_entry *old = atomic_load_explicit(&s->slot[i], memory_order_relaxed);
        if (!old || (old->hash == e->hash && memcmp(&old->key, &e->key, sizeof e->key) == 0)) {
            atomic_store_explicit(&s->slot[i], e, memory_order_release);
            return old;
        }
    }
}

/* Doubles the array when it would pass half full: a new array is filled, then published. */
static w8a8_status table_reserve(w8a8_context *ctx, dispatch_table *t)
{
    dispatch_slots *s = atomic_load_explicit(&t->slots, memory_order_relaxed);
    if ((t->count + 1) * 2 <= s->mask + 1)
        return W8A8_OK;
    dispatch_slots *grown = slots_new(2 * (s->mask + 1));
    if (!grown || !table_retire(t, s)) {
        free(grown);
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for the dispatch table");
    }
    for (size_t i = 0; i <= s->mask; i++) {
        dispatch_entry *e = atomic_load_explicit(&s->slot[i], memory_order_relaxed);
        if (e)
            slots_put(grown, e);
    }
    atomic_store_explicit(&t->slots, grown, memory_order_release);
    return W8A8_OK;
}

/* Publishes e (new key, or a replacement for a key's entry). Lock held. */
static w8a8_status table_insert(w8a8_context *ctx, dispatch_table *t, dispatch_entry *e)
{
    w8a8_status st = table_reserve(ctx, t);
    if (st != W8A8_OK)
        return st;
    if (!table_retire(t, NULL)) /* reserve room so a replacement can always be retired */
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for the dispatch table");
    t->retired_count--;
    dispatch_entry *old = slots_put(atomic_load_explicit(&t->slots, memory_order_relaxed), e);
    if (old)
        t->retired[t->retired_count++] = old;
    else
        t->count++;
    return W8A8_OK;
}

static void table_free(dispatch_table *t)
{
    dispatch_slots *s = atomic_load_explicit(&t->slots, memory_order_relaxed);
    if (s) {
        for (size_t i = 0; i <= s->mask; i++)
            free(atomic_load_explicit(&s->slot[i], memory_order_relaxed));
        free(s);
    }
    /* Retired slot arrays hold pointers to live entries: free the arrays, not what they hold;
     * retired entries were unpublished, so they are freed here exactly once. */
    for (size_t i = 0; i < t->retired_count; i++)
        free(t->retired[i]);
    free(t->retired);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

static void dispatch_tuned(w8a8_context *ctx, const w8a8_problem *problem);

/* The context's table, created on first use (double-checked under ctx->lock); it registers
 * the dispatcher's close and re-plan hooks on the context. */
static dispatch_table *table_get(w8a8_context *ctx)
{
    dispatch_table *t = __atomic_load_n(&ctx->dispatch, __ATOMIC_ACQUIRE);
    if (t)
        return t;
    pthread_mutex_lock(&ctx->lock);
    t = ctx->dispatch;
    if (!t && (t = calloc(1, sizeof *t)) != NULL) {
        dispatch_slots *s = slots_new(DISPATCH_INITIAL_CAPACITY);
        if (!s) {
            free(t);
            t = NULL;
        } else {
            atomic_init(&t->slots, s);
            pthread_mutex_init(&t->lock, NULL);
            w8a8_tune_mode mode = W8A8_TUNE_OFF;
            if (dispatch_tune_mode_from_env(getenv("W8A8_TUNE"), &mode) != W8A8_OK)
                mode = W8A8_TUNE_OFF; /* a typo must not break inference */
            atomic_init(&t->tune_mode, (int)mode);
            ctx->dispatch_on_close = dispatch_destroy;
            ctx->dispatch_on_tuned = dispatch_tuned;
            __atomic_store_n(&ctx->dispatch, t, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    return t;
}

void dispatch_destroy(w8a8_context *ctx)
{
    if (!ctx || !ctx->dispatch)
        return;
    table_free(ctx->dispatch);
    ctx->dispatch = NULL;
}

/* ---- the fallback chain ---------------------------------------------------------------------- */

static void notef(dispatch_chain *chain, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notef(dispatch_chain *chain, const char *fmt, ...)
{
    size_t used = strlen(chain->notes);
    if (used + 3 >= sizeof chain->notes)
        return;
    if (used) {
        memcpy(chain->notes + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(chain->notes + used, sizeof chain->notes - used, fmt, ap);
    va_end(ap);
}

static const gemm_family *family_in(const gemm_family *const *families, const char *name)
{
    for (size_t i = 0; families[i]; i++)
        if (strcmp(families[i]->name, name) == 0)
            return families[i];
    return NULL;
}

static dispatch_choice *chain_push(dispatch_chain *chain, const gemm_family *family,
                                   dispatch_reason reason, const char *config)
{
    if (chain->count == DISPATCH_MAX_CHOICES)
        return NULL;
    dispatch_choice *c = &chain->choices[chain->count++];
    memset(c, 0, sizeof *c);
    c->family = family;
    c->reason = reason;
    snprintf(c->config, sizeof c->config, "%s", config);
    return c;
}

/* The cache's pick for the key, then the runner-ups of its row (DISPATCH_CACHED_MAX in all):
 * when this build cannot plan the winner (a family it lacks, a config it refuses), the next
 * measured config comes before any space default. */
static void chain_add_cached(w8a8_context *ctx, const gemm_family *const *families,
                             const w8a8_problem *problem, const cache_device *dev,
                             dispatch_chain *chain)
{
    cache_key key;
    cache_winner ranked[DISPATCH_CACHED_MAX];
    size_t count = 0;
    cache_key_make(&key, problem, dev);
    if (cache_lookup_ranked(ctx, &key, ranked, DISPATCH_CACHED_MAX, &count) != W8A8_OK) {
        notef(chain, "cache lookup failed: %s", w8a8_errmsg(ctx));
        return;
    }
    for (size_t i = 0; i < count; i++) {
        const cache_winner *w = &ranked[i];
        const char *which = w->rank ? "cache runner-up" : "cache winner";
        const gemm_family *f = family_in(families, w->family);
        if (!f) {
            notef(chain, "%s names unknown family '%s'", which, w->family);
            continue;
        }
        if (!f->supports(ctx, problem)) {
            notef(chain, "%s %s does not support this problem on this device", which, f->name);
            continue;
        }
        dispatch_choice *c = chain_push(chain, f, DISPATCH_TUNED, w->config);
        if (c)
            c->winner = *w;
    }
}

static void chain_add_default(w8a8_context *ctx, const gemm_family *f, const w8a8_problem *problem,
                              const space_device *dev, dispatch_chain *chain)
{
    space *s = NULL;
    bool applies = false;
    char config[W8A8_CONFIG_BYTES];
    if (space_load(ctx, f->space, &s) != W8A8_OK) {
        notef(chain, "space %s: %s", f->space, w8a8_errmsg(ctx));
        return;
    }
    if (space_applies(ctx, s, problem, dev, &applies) != W8A8_OK)
        notef(chain, "space %s: applies: %s", f->space, w8a8_errmsg(ctx));
    else if (applies && space_default(ctx, s, problem, dev, config, sizeof config) != W8A8_OK)
        notef(chain, "space %s: default: %s", f->space, w8a8_errmsg(ctx));
    else if (applies) {
        dispatch_choice *c = chain_push(chain, f, DISPATCH_SPACE_DEFAULT, config);
        if (c)
            snprintf(c->space, sizeof c->space, "%s", space_name(s));
    }
    space_free(s);
}

w8a8_status dispatch_chain_build(w8a8_context *ctx, const gemm_family *const *families,
                                 const w8a8_problem *problem, const cache_device *cache_dev,
                                 const space_device *space_dev, dispatch_chain *chain)
{
    memset(chain, 0, sizeof *chain);
    /* Every M of a bucket gets the same picks: the cache and the spaces see the bucket. */
    w8a8_problem at_bucket = *problem;
    at_bucket.m = cache_m_bucket(problem->m);
    if (cache_dev)
        chain_add_cached(ctx, families, &at_bucket, cache_dev, chain);
    const gemm_family *reference = family_in(families, gemm_family_reference.name);
    if (!reference)
        reference = &gemm_family_reference;
    for (size_t i = 0; space_dev && families[i]; i++) {
        const gemm_family *f = families[i];
        if (f != reference && f->space && f->supports(ctx, &at_bucket))
            chain_add_default(ctx, f, &at_bucket, space_dev, chain);
    }
    if (chain->count == DISPATCH_MAX_CHOICES)
        chain->count--; /* the reference always fits */
    if (!reference->supports(ctx, problem)) {
        error_clear(ctx);
        return chain->count ? W8A8_OK
                            : errorf(ctx, W8A8_UNSUPPORTED, "no kernel family supports this problem");
    }
    chain_push(chain, reference, DISPATCH_REFERENCE, "");
    error_clear(ctx); /* notes keep what went wrong; the chain itself succeeded */
    return W8A8_OK;
}

const char *dispatch_reason_text(const dispatch_choice *choice)
{
    switch (choice->reason) {
    case DISPATCH_SPACE_DEFAULT: return "space default";
    case DISPATCH_REFERENCE: return "reference";
    case DISPATCH_TUNED: break;
    }
    switch (choice->winner.match) {
    case CACHE_EXACT: return "exact";
    case CACHE_PRODUCT: return "same product";
    case CACHE_ARCH: return "same arch (foreign device)";
    case CACHE_NEAR_BUCKET: return "nearest bucket";
    case CACHE_EPILOGUE: return "another epilogue";
    case CACHE_MISS: break;
    }
    return "cache";
}

/* ---- the miss path ---------------------------------------------------------------------------- */

/* The device identity the chain needs, read once per table. Lock held. */
static void identity_load(w8a8_context *ctx, dispatch_table *t)
{
    if (t->identity_done)
        return;
    t->has_cache_dev = cache_device_from_ctx(ctx, &t->cache_dev) == W8A8_OK;
    t->has_space_dev = space_device_from_ctx(ctx, &t->space_dev) == W8A8_OK;
    t->identity_done = true;
    error_clear(ctx);
}

static bool chain_has_exact(const dispatch_chain *chain)
{
    return chain->count > 0 && chain->choices[0].reason == DISPATCH_TUNED &&
           chain->choices[0].winner.match == CACHE_EXACT;
}

static bool stream_capturing(w8a8_context *ctx, CUstream stream)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (ctx->cu->cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS)
        return true; /* an invalidated capture also reports an error: do not tune then */
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* W8A8_TUNE on a key without an exact cache row: remember it, or tune it and rebuild the
 * chain. Failures of the policy never fail the call. Lock held. */
static void apply_tune_policy(w8a8_context *ctx, dispatch_table *t, const w8a8_problem *problem,
                              CUstream stream, dispatch_chain *chain)
{
    w8a8_tune_mode mode = (w8a8_tune_mode)atomic_load(&t->tune_mode);
    if (mode == W8A8_TUNE_OFF || !t->has_cache_dev || chain_has_exact(chain))
        return;
    if (mode == W8A8_TUNE_ONLINE && !stream_capturing(ctx, stream)) {
        const char *text = getenv("W8A8_TUNE_BUDGET");
        double budget = text && *text ? atof(text) : 30.0;
        w8a8_status st = tune_problem_online(ctx, problem, budget > 0 ? budget : 30.0);
        if (st == W8A8_OK || st == W8A8_BUDGET_SPENT) {
            dispatch_chain_build(ctx, gemm_families, problem, &t->cache_dev,
                                 t->has_space_dev ? &t->space_dev : NULL, chain);
            return;
        }
        notef(chain, "online tuning failed: %s", w8a8_errmsg(ctx));
    }
    cache_key key;
    cache_key_make(&key, problem, &t->cache_dev);
    if (cache_put_untuned(ctx, &key, problem->m) != W8A8_OK)
        notef(chain, "recording the untuned key failed: %s", w8a8_errmsg(ctx));
}

/* Plans the first link of the chain that plans; the others' failures become notes. */
static w8a8_status plan_chain(w8a8_context *ctx, const w8a8_problem *problem,
                              dispatch_chain *chain, dispatch_entry *e)
{
    w8a8_status st = W8A8_UNSUPPORTED;
    char why[W8A8_ERRMSG_BYTES] = "no kernel family supports this problem";
    for (int i = 0; i < chain->count; i++) {
        const dispatch_choice *c = &chain->choices[i];
        memset(&e->plan, 0, sizeof e->plan);
        st = c->family->plan(ctx, problem, c->config, &e->plan);
        if (st == W8A8_OK) {
            e->plan.family = c->family;
            e->choice = *c;
            snprintf(e->notes, sizeof e->notes, "%s", chain->notes);
            return W8A8_OK;
        }
        snprintf(why, sizeof why, "%s", w8a8_errmsg(ctx));
        notef(chain, "%s %s (%s) failed to plan: %s: %s", c->family->name, c->config,
              dispatch_reason_text(c), w8a8_status_string(st), why);
    }
    return errorf(ctx, st, "no kernel could be planned for this problem; last error: %s", why);
}

/* Builds and plans a fresh entry for problem's key. Lock held. */
static w8a8_status entry_build(w8a8_context *ctx, dispatch_table *t, const w8a8_problem *problem,
                               CUstream stream, bool apply_policy, dispatch_entry **out)
{
    identity_load(ctx, t);
    dispatch_chain *chain = malloc(sizeof *chain);
    dispatch_entry *e = calloc(1, sizeof *e);
    w8a8_status st = W8A8_OK;
    if (!chain || !e)
        st = errorf(ctx, W8A8_NO_MEMORY, "out of host memory for a dispatch entry");
    if (st == W8A8_OK)
        st = dispatch_chain_build(ctx, gemm_families, problem,
                                  t->has_cache_dev ? &t->cache_dev : NULL,
                                  t->has_space_dev ? &t->space_dev : NULL, chain);
    if (st == W8A8_OK && apply_policy)
        apply_tune_policy(ctx, t, problem, stream, chain);
    if (st == W8A8_OK)
        st = plan_chain(ctx, problem, chain, e);
    if (st == W8A8_OK) {
        key_make(&e->key, problem);
        e->hash = key_hash(&e->key);
    }
    free(chain);
    if (st != W8A8_OK) {
        free(e);
        e = NULL;
    }
    *out = e;
    return st;
}

/* The first call for a key: everything slow happens here, once, under the table's lock. */
static w8a8_status dispatch_miss(w8a8_context *ctx, dispatch_table *t, const w8a8_problem *problem,
                                 const dispatch_key *key, uint64_t hash, CUstream stream,
                                 const dispatch_entry **out)
{
    w8a8_status st = W8A8_OK;
    pthread_mutex_lock(&t->lock);
    const dispatch_entry *found = table_find(t, key, hash); /* another thread may have won */
    if (!found) {
        dispatch_entry *e = NULL;
        st = entry_build(ctx, t, problem, stream, true, &e);
        if (st == W8A8_OK)
            st = table_insert(ctx, t, e);
        if (st == W8A8_OK)
            found = e;
        else
            free(e);
    }
    pthread_mutex_unlock(&t->lock);
    *out = found;
    return st;
}

/* The ready entry of problem's key (a miss plans it). */
static w8a8_status dispatch_entry_get(w8a8_context *ctx, const w8a8_problem *problem,
                                      CUstream stream, const dispatch_entry **out)
{
    dispatch_table *t = table_get(ctx);
    if (!t)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for the dispatch table");
    dispatch_key key;
    key_make(&key, problem);
    uint64_t hash = key_hash(&key);
    const dispatch_entry *e = table_find(t, &key, hash);
    if (e) {
        *out = e;
        return W8A8_OK;
    }
    return dispatch_miss(ctx, t, problem, &key, hash, stream, out);
}

w8a8_status dispatch_refresh(w8a8_context *ctx, const w8a8_problem *problem)
{
    dispatch_table *t = __atomic_load_n(&ctx->dispatch, __ATOMIC_ACQUIRE);
    if (!t)
        return W8A8_OK;
    dispatch_key key;
    key_make(&key, problem);
    uint64_t hash = key_hash(&key);
    w8a8_status st = W8A8_OK;
    pthread_mutex_lock(&t->lock);
    if (table_find(t, &key, hash)) {
        dispatch_entry *e = NULL;
        st = entry_build(ctx, t, problem, NULL, false, &e);
        if (st == W8A8_OK)
            st = table_insert(ctx, t, e);
        if (st != W8A8_OK)
            free(e);
    }
    pthread_mutex_unlock(&t->lock);
    return st;
}

/* ---- public ----------------------------------------------------------------------------------- */

w8a8_status w8a8_scaled_mm(w8a8_context *ctx, const w8a8_problem *problem,
                           const w8a8_tensors *tensors, void *stream)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!problem || !tensors)
        return errorf(ctx, W8A8_INVALID, "%s is NULL", problem ? "tensors" : "problem");
    w8a8_status st = validate_call(ctx, problem, tensors);
    if (st == W8A8_OK)
        st = context_make_current(ctx);
    const dispatch_entry *e = NULL;
    if (st == W8A8_OK)
        st = dispatch_entry_get(ctx, problem, (CUstream)stream, &e);
    if (st != W8A8_OK)
        return st;
    st = e->plan.family->run(ctx, &e->plan, problem, tensors, (CUstream)stream);
    if (st == W8A8_OK)
        error_clear(ctx); /* thread-local: costs nothing shared on the hot path */
    return st;
}

w8a8_status w8a8_dispatch_warm(w8a8_context *ctx, const w8a8_problem *problem)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!problem)
        return errorf(ctx, W8A8_INVALID, "problem is NULL");
    w8a8_status st = validate_problem(ctx, problem);
    if (st == W8A8_OK)
        st = context_make_current(ctx);
    const dispatch_entry *e = NULL;
    if (st == W8A8_OK)
        st = dispatch_entry_get(ctx, problem, NULL, &e);
    if (st == W8A8_OK)
        error_clear(ctx);
    return st;
}

w8a8_status w8a8_dispatch_set_tune_mode(w8a8_context *ctx, w8a8_tune_mode mode)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!w8a8_tune_mode_name(mode))
        return errorf(ctx, W8A8_INVALID, "mode: %d is not a w8a8_tune_mode", (int)mode);
    dispatch_table *t = table_get(ctx);
    if (!t)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory for the dispatch table");
    atomic_store(&t->tune_mode, (int)mode);
    error_clear(ctx);
    return W8A8_OK;
}

const char *w8a8_tune_mode_name(w8a8_tune_mode mode)
{
    switch (mode) {
    case W8A8_TUNE_OFF: return "off";
    case W8A8_TUNE_RECORD: return "record";
    case W8A8_TUNE_ONLINE: return "online";
    }
    return NULL;
}

w8a8_status w8a8_tune_mode_parse(const char *text, w8a8_tune_mode *mode)
{
    static const struct {
        const char *name;
        w8a8_tune_mode mode;
    } names[] = {{"off", W8A8_TUNE_OFF},       {"", W8A8_TUNE_OFF},
                 {"0", W8A8_TUNE_OFF},         {"record", W8A8_TUNE_RECORD},
                 {"1", W8A8_TUNE_RECORD},      {"online", W8A8_TUNE_ONLINE}};
    if (!text || !mode)
        return errorf(NULL, W8A8_INVALID, "%s is NULL", text ? "mode" : "text");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(text, names[i].name) == 0) {
            *mode = names[i].mode;
            return W8A8_OK;
        }
    return errorf(NULL, W8A8_INVALID, "W8A8_TUNE: '%s' is not off, record or online", text);
}

w8a8_status dispatch_tune_mode_from_env(const char *value, w8a8_tune_mode *mode)
{
    if (!value) {
        *mode = W8A8_TUNE_OFF;
        return W8A8_OK;
    }
    return w8a8_tune_mode_parse(value, mode);
}

/* ---- explain ---------------------------------------------------------------------------------- */

static void explain_fill(const dispatch_choice *c, const char *notes, int64_t m_bucket,
                         w8a8_explain *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->family, sizeof out->family, "%s", c->family->name);
    snprintf(out->config, sizeof out->config, "%s", c->config);
    out->m_bucket = m_bucket;
    out->measured_bucket = m_bucket;
    out->median_us = -1.0;
    const cache_winner *w = &c->winner;
    if (c->reason == DISPATCH_TUNED) {
        snprintf(out->match, sizeof out->match, "%s", cache_match_name(w->match));
        snprintf(out->device_match, sizeof out->device_match, "%s",
                 cache_match_name(w->device_match));
        out->foreign = w->device_match != CACHE_EXACT;
        snprintf(out->source, sizeof out->source, "%s", w->source);
        snprintf(out->device_name, sizeof out->device_name, "%s", w->device_name);
        out->measured_bucket = w->m_bucket;
        out->median_us = w->median_us;
        char runner[48] = "";
        if (w->rank)
            snprintf(runner, sizeof runner, ", runner-up %d of that row", w->rank);
        snprintf(out->reason, sizeof out->reason,
                 "tuned: %s row at M bucket %lld measured on %s%s (%.2f us%s)",
                 dispatch_reason_text(c), (long long)w->m_bucket, w->device_name,
                 out->foreign ? " (foreign)" : "", w->median_us, runner);
    } else if (c->reason == DISPATCH_SPACE_DEFAULT) {
        snprintf(out->match, sizeof out->match, "space default");
        snprintf(out->reason, sizeof out->reason,
                 "no usable cache row: the default config of space %s", c->space);
    } else {
        snprintf(out->match, sizeof out->match, "reference");
        snprintf(out->reason, sizeof out->reason,
                 "no usable cache row and no tuning space applies: the reference kernel");
    }
    if (notes && *notes) {
        size_t used = strlen(out->reason);
        snprintf(out->reason + used, sizeof out->reason - used, " [%s]", notes);
    }
}

w8a8_status w8a8_dispatch_explain(w8a8_context *ctx, const w8a8_problem *problem,
                                  w8a8_explain *out)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!problem || !out)
        return errorf(ctx, W8A8_INVALID, "%s is NULL", problem ? "out" : "problem");
    error_clear(ctx); /* "" after success, as every call promises */
    w8a8_status st = validate_problem(ctx, problem);
    dispatch_table *t = st == W8A8_OK ? table_get(ctx) : NULL;
    if (st == W8A8_OK && !t)
        st = errorf(ctx, W8A8_NO_MEMORY, "out of host memory for the dispatch table");
    if (st != W8A8_OK)
        return st;
    dispatch_key key;
    key_make(&key, problem);
    const dispatch_entry *e = table_find(t, &key, key_hash(&key));
    if (e) {
        explain_fill(&e->choice, e->notes, key.m_bucket, out);
        return W8A8_OK;
    }
    dispatch_chain *chain = malloc(sizeof *chain);
    if (!chain)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    pthread_mutex_lock(&t->lock);
    identity_load(ctx, t);
    st = dispatch_chain_build(ctx, gemm_families, problem, t->has_cache_dev ? &t->cache_dev : NULL,
                              t->has_space_dev ? &t->space_dev : NULL, chain);
    pthread_mutex_unlock(&t->lock);
    if (st == W8A8_OK)
        explain_fill(&chain->choices[0], chain->notes, key.m_bucket, out);
    free(chain);
    return st;
}

/* For tests: the explanation of a chain built for a synthetic device or family list. */
void dispatch_chain_explain(const dispatch_chain *chain, const w8a8_problem *problem,
                            w8a8_explain *out)
{
    explain_fill(&chain->choices[0], chain->notes, cache_m_bucket(problem->m), out);
}

/* The context's hook after tuning: errors stay the tuner's business (the old plan keeps
 * working), so they are not reported. */
static void dispatch_tuned(w8a8_context *ctx, const w8a8_problem *problem)
{
    dispatch_refresh(ctx, problem);
}
