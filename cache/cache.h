/* The tuning cache: SQLite databases of measurements (cache/store.c and friends).
 * Layers: the user's writable database over read-only shipped ones; user rows win.
 * Every measurement is kept; the winner per problem key is derived. */
#ifndef W8A8_CACHE_H
#define W8A8_CACHE_H

#include "internal.h"

/* The problem key of DESIGN.md: device identity + problem class + M bucket. */
typedef struct cache_device {
    char arch[16];   /* "sm_90" */
    char name[128];  /* product name */
    int sm_count;
    uint64_t memory_bytes;
} cache_device;

typedef struct cache_key {
    cache_device device;
    w8a8_dtype a_type, b_type, out_type, bias_type;
    w8a8_scale_kind a_scale, b_scale;
    int32_t a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major; /* block only, else 0 */
    w8a8_azp_kind azp;
    int64_t n, k;
    int64_t m_bucket;
    w8a8_accum accum; /* W8A8_ACCUM_PROMOTED only where gemm_promotes: else FAST */
} cache_key;

/* One timed candidate. */
typedef struct cache_measurement {
    char family[64];      /* template stem, e.g. "sm90_gemm" */
    char config[256];     /* canonical config string */
    double median_us;
    double spread_us;     /* (p90 - p10) or similar, documented in store.c */
    int samples;
    double verify_error;  /* max relative error against the reference; <0: not verified */
    int verified;         /* 1 passed, 0 failed */
    char status[32];      /* "ok", "compile_error", "rejected", "verify_failed", "launch_error" */
    int registers, spills;
    double compile_ms;
    char template_hash[65];
    int driver_version, nvrtc_version; /* major*1000 + minor*10 like CUDA */
    char lib_version[16];
    int64_t timestamp;    /* unix seconds */
} cache_measurement;

/* How a lookup was satisfied, for `explain`. */
typedef enum cache_match {
    CACHE_MISS = 0,
    CACHE_EXACT,        /* same device, same key */
    CACHE_PRODUCT,      /* same product name, other SM count/memory */
    CACHE_ARCH,         /* same arch only: a foreign device */
    CACHE_NEAR_BUCKET,  /* same device class, nearest M bucket */
    CACHE_EPILOGUE      /* the same shape's row with another epilogue: scale kinds, out, bias */
} cache_match;

typedef struct cache_winner {
    char family[64];
    char config[256];
    double median_us;
    cache_match match;
    int64_t m_bucket;     /* the bucket the row was measured at */
    char source[W8A8_PATH_BYTES]; /* the database file it came from */
    char device_name[128];
    /* Added by cache/: how close the measuring device is (CACHE_EXACT, CACHE_PRODUCT or
     * CACHE_ARCH), also for CACHE_NEAR_BUCKET rows; CACHE_MISS on a miss. */
    cache_match device_match;
    int sm_count;
    /* The epilogue of the row's key: the key's own, another one for CACHE_EPILOGUE. */
    w8a8_scale_kind a_scale, b_scale;
    w8a8_dtype out_type, bias_type;
    /* Added by cache/: 0 for the row's winner; n for its n-th runner-up (cache_lookup_ranked):
     * the next-fastest verified config measured in the same row, same device and bucket. */
    int rank;
} cache_winner;

/* The M bucket of DESIGN.md for m ≥ 1. */
int64_t cache_m_bucket(int64_t m);
/* The key of a problem on a device. */
void cache_key_make(cache_key *key, const w8a8_problem *problem, const cache_device *device);
/* The keys a key borrows rows from where its own class has none (CACHE_EPILOGUE): the same
 * shape, dtypes, zero point and accumulation with another epilogue — per-tensor / per-row
 * scales swapped on a side that has one of them (block scales stay), a bias or none (of the
 * out dtype or fp32), the other 16-bit out dtype (bf16 / fp16; fp32 out only from fp32
 * out) — nearest first: a scale side counts 1 (B's kind kept before A's at
 * equal count), a bias's dtype 1, a bias added or dropped 2, the out dtype 3. Returns their
 * count (at most CACHE_EPILOGUES). */
#define CACHE_EPILOGUES 32
size_t cache_epilogue_siblings(const cache_key *key, cache_key siblings[CACHE_EPILOGUES]);
/* The context's device as a cache_device (W8A8_NO_DEVICE without one). */
w8a8_status cache_device_from_ctx(w8a8_context *ctx, cache_device *device);

/* Opens the context's layers lazily (ctx->cache): the user database (created on first write),
 * then $W8A8_CACHE_PATH and shipped ones read-only. A corrupt or foreign file is skipped with
 * a warning kept in cache_warnings(). */
w8a8_status cache_open(w8a8_context *ctx);
void cache_close(w8a8_context *ctx);
/* Warnings about skipped files ("" if none); owned by the cache. */
const char *cache_warnings(w8a8_context *ctx);

/* Appends one measurement to the user database (WAL, busy timeout; safe across processes). */
w8a8_status cache_put_measurement(w8a8_context *ctx, const cache_key *key,
                                  const cache_measurement *m);
/* Appends count measurements of one key in one transaction: all or none (a tuning run writes
 * its rows in batches; a transaction per row cost it 0.36 ms a row). */
w8a8_status cache_put_measurements(w8a8_context *ctx, const cache_key *key,
                                   const cache_measurement *rows, size_t count);
/* One "ok" or "hung" row of a key's product, for the tuner's plan (strings borrowed for the
 * call only). */
typedef struct cache_history_row {
    const char *family, *config, *status, *template_hash;
    bool user_layer;   /* from the user database, not a shipped read-only layer */
    bool exact_device; /* measured on this very device, not only the same product */
} cache_history_row;
/* Returns non-zero to stop (not an error). */
typedef int (*cache_history_visit)(void *user, const cache_history_row *row);
/* Visits key's "ok" and "hung" rows on its product (arch and name) in every layer, user layer
 * first: one indexed query per layer, however large the database. */
w8a8_status cache_key_history(w8a8_context *ctx, const cache_key *key,
                              cache_history_visit visit, void *user);
/* The best verified measurement for key, walking the fallback chain exact → same product →
 * same arch → nearest bucket; *winner->match says which. CACHE_MISS is not an error. */
w8a8_status cache_lookup(w8a8_context *ctx, const cache_key *key, cache_winner *winner);
/* Added by cache/: cache_lookup's winner in winners[0], then up to max − 1 runner-ups of its
 * row (the same layer, device and bucket): the next-fastest distinct (family, config) pairs
 * with verified "ok" measurements that never hung there, each with its best median, faster
 * first (rank 1, 2, …; match and source as the winner's). A fallback for a winner this build
 * cannot plan. *count is 0 on a miss (not an error). max ≥ 1. */
w8a8_status cache_lookup_ranked(w8a8_context *ctx, const cache_key *key, cache_winner *winners,
                                size_t max, size_t *count);
/* Added by cache/: visits the winner of every row of key's problem class (any M bucket) on
 * devices of key's arch, in every layer, user layer first; match, device_match and m_bucket
 * say how each relates to key. A non-zero return stops the walk (not an error). The callback
 * runs under the cache lock. The tuner times these first (tuner/tune_plan.c). */
typedef int (*cache_winner_visit)(void *user, const cache_winner *winner);
w8a8_status cache_class_winners(w8a8_context *ctx, const cache_key *key, cache_winner_visit visit,
                                void *user);
/* Record mode: remembers a key that missed. */
w8a8_status cache_put_untuned(w8a8_context *ctx, const cache_key *key, int64_t m);

/* ---- added by cache/ (additive) -------------------------------------------------------- */

/* Schema version written by this build (PRAGMA user_version) and the application_id that
 * marks our files ("W8A8" in ASCII). */
#define CACHE_SCHEMA_VERSION 4
#define CACHE_APPLICATION_ID 0x57384138

/* "exact", "product", "arch", "bucket", "miss". Static storage. */
const char *cache_match_name(cache_match match);

/* The content hash the tuner records in cache_measurement.template_hash, so `prune --stale`
 * can judge a row on its own: SHA-256 (hex) of templates/<family>.cuh as the context sees it
 * (embedded or W8A8_TEMPLATE_DIR). W8A8_NOT_FOUND when there is no such template. */
w8a8_status cache_template_hash(w8a8_context *ctx, const char *family, char out[65]);

/* The versions this build stamps into measurements: NVRTC as major*1000 + minor*10, the
 * library as W8A8JIT_VERSION_STRING. */
int cache_nvrtc_version(void);

/* Record mode's table for `w8a8 tune --untuned`: calls visit for every key in the user
 * database's untuned table, most frequent first; a non-zero return stops the walk. The
 * callback runs under the cache lock (it may call cache_* functions: the lock is recursive). */
typedef int (*cache_untuned_visit)(void *user, const cache_key *key, int64_t count, int64_t last_m);
w8a8_status cache_untuned_list(w8a8_context *ctx, cache_untuned_visit visit, void *user);

#endif
