/* What the files of cache/ share: the store hung on the context, file probing, the schema,
 * and the column lists that every query and the SQL export agree on. Not for other modules. */
#ifndef W8A8_CACHE_IMPL_H
#define W8A8_CACHE_IMPL_H

#include <sqlite3.h>

#include "cache.h"

/* How long a writer waits for another process's transaction before SQLITE_BUSY, and how
 * often BEGIN IMMEDIATE is retried after that (so a long tuning run in another process
 * delays a write, it does not lose it). */
#define CACHE_BUSY_TIMEOUT_MS 10000
#define CACHE_BEGIN_RETRIES 6

#define CACHE_WHY_BYTES 512

/* The 20 key columns and 16 measurement columns of the measurement_rows view, in the order
 * cache_bind_key / cache_bind_measurement bind them (?1..?20, then ?21..?36). accum came with
 * schema version 3 and is last so that the older columns keep their places. */
#define CACHE_KEY_COLUMNS                                                                     \
    "arch, device_name, sm_count, memory_bytes, a_type, b_type, out_type, bias_type, "       \
    "a_scale, b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp, "   \
    "n, k, m_bucket, accum"
#define CACHE_MEASUREMENT_COLUMNS                                                             \
    "family, config, median_us, spread_us, samples, verify_error, verified, status, "        \
    "registers, spills, compile_ms, template_hash, driver_version, nvrtc_version, "          \
    "lib_version, timestamp"
#define CACHE_KEY_COUNT 20
#define CACHE_MEASUREMENT_COUNT 16
#define CACHE_ROW_COUNT (CACHE_KEY_COUNT + CACHE_MEASUREMENT_COUNT)

/* The winner of a key: the fastest verified "ok" measurement; equal medians are broken by
 * the smaller spread, then family, config, the older timestamp and the row id, so every copy
 * of the same rows elects the same winner. Used by the winners view and by the lookup. */
#define CACHE_WINNER_FILTER "status = 'ok' AND verified = 1"
/* Nor is a config that hung on the key (a kernel that never finished; the tuner's watchdog
 * recorded it) ever a winner, even with "ok" rows from before the hang (a hang that depends
 * on timing can strike in the final pass): unless the hung row is of another template
 * version, which may have fixed it. M names the measurements row at hand. Not part of
 * CACHE_WINNER_FILTER, which a partial index uses, and an index cannot hold a subquery. */
#define CACHE_NEVER_HUNG(M)                                                                   \
    "NOT EXISTS (SELECT 1 FROM measurements h WHERE h.problem_id = " M ".problem_id"          \
    " AND h.family = " M ".family AND h.config = " M ".config AND h.status = 'hung'"          \
    " AND h.template_hash = " M ".template_hash)"
/* Only a key's well-sampled rows compete: a row with fewer than half the samples of another
 * verified "ok" row of the key (of a config that never hung there) gives way. The tuner's quick
 * pass (a few samples, short bursts of launches) thus gives way to its final pass (10 a round,
 * graph replays of at least 20 calls) for every config of the key, not only for the
 * finalists: a config measured only in the quick pass is not compared with final rounds
 * taken another way. On an H200 a quick-pass median 20 % under the same config's final ones
 * made a config the winner of 16x10240x8192 that ran 1.2x the runner-up's time in every later
 * measurement (session 25, D1); with 20-call final replays, every finalist of
 * 512x8192x28672 block ran 212-217 us and a config seen only in the quick pass won at its
 * 186.6 us (session 44, D1). Half, so that a finalist the budget left one round short still
 * counts. */
#define CACHE_MOST_SAMPLED(M)                                                                 \
    "NOT EXISTS (SELECT 1 FROM measurements s WHERE s.problem_id = " M ".problem_id"          \
    " AND s.status = 'ok' AND s.verified = 1 AND s.samples > 2 * " M ".samples"              \
    " AND " CACHE_NEVER_HUNG("s") ")"
#define CACHE_WINNER_ORDER "median_us, spread_us, family, config, timestamp, id"

/* WHERE terms matching a key bound with cache_bind_key at ?1: the device (devices D), the
 * problem class without its bucket, and the whole problem (problems P). */
#define CACHE_DEVICE_MATCH(D)                                                                  \
    D ".arch = ?1 AND " D ".name = ?2 AND " D ".sm_count = ?3 AND " D ".memory_bytes = ?4"
#define CACHE_CLASS_MATCH(P)                                                                   \
    P ".a_type = ?5 AND " P ".b_type = ?6 AND " P ".out_type = ?7 AND " P ".bias_type = ?8"    \
      " AND " P ".a_scale = ?9 AND " P ".b_scale = ?10 AND " P ".a_group_rows = ?11"           \
      " AND " P ".a_group_k = ?12 AND " P ".b_group_rows = ?13 AND " P ".b_group_k = ?14"      \
      " AND " P ".a_k_major = ?15 AND " P ".azp = ?16 AND " P ".n = ?17 AND " P ".k = ?18"     \
      " AND " P ".accum = ?20"
#define CACHE_PROBLEM_MATCH(P) CACHE_CLASS_MATCH(P) " AND " P ".m_bucket = ?19"
/* The class without its epilogue (out dtype, bias, scale kinds; block group sizes stay). */
#define CACHE_SHAPE_MATCH(P)                                                                   \
    P ".a_type = ?5 AND " P ".b_type = ?6 AND " P ".a_group_rows = ?11"                        \
      " AND " P ".a_group_k = ?12 AND " P ".b_group_rows = ?13 AND " P ".b_group_k = ?14"      \
      " AND " P ".a_k_major = ?15 AND " P ".azp = ?16 AND " P ".n = ?17 AND " P ".k = ?18"     \
      " AND " P ".accum = ?20"
/* The key columns of devices D and problems P in CACHE_KEY_COLUMNS order. */
#define CACHE_KEY_SELECT(D, P)                                                                 \
    D ".arch, " D ".name, " D ".sm_count, " D ".memory_bytes, " P ".a_type, " P ".b_type, "    \
    P ".out_type, " P ".bias_type, " P ".a_scale, " P ".b_scale, " P ".a_group_rows, "         \
    P ".a_group_k, " P ".b_group_rows, " P ".b_group_k, " P ".a_k_major, " P ".azp, "          \
    P ".n, " P ".k, " P ".m_bucket, " P ".accum"

/* One database file. */
typedef struct cache_layer {
    sqlite3 *db;                  /* NULL: not open (user layer before its first write) */
    char path[W8A8_PATH_BYTES];   /* as given, for messages and `source` */
} cache_layer;

struct cache_store {
    pthread_mutex_t mutex;        /* recursive: list callbacks may call back into the cache */
    cache_layer user;             /* layer 0: the user's writable database */
    bool user_unusable;           /* it exists but is corrupt, foreign or too new: never written */
    char user_why[CACHE_WHY_BYTES];
    cache_layer *readonly;        /* layers 1..n in lookup order */
    size_t readonly_count;
    char *warnings;               /* malloc'ed, one line per skipped file; NULL when none */
    bool opened;                  /* the layers have been looked at (cache_open) */
};

/* ---- schema.c: probing, opening, the schema and its migrations ---------------------------- */

typedef enum cache_file_kind {
    CACHE_FILE_ABSENT = 0, /* no such file */
    CACHE_FILE_EMPTY,      /* zero bytes, or an SQLite database with no tables and no marks */
    CACHE_FILE_OURS,       /* our application_id and a schema version we can read */
    CACHE_FILE_BAD         /* garbage, truncated, corrupt, foreign or newer: *why says which */
} cache_file_kind;

/* Looks at a file without changing it (read-only open, application_id, user_version,
 * quick_check). *version gets the schema version for CACHE_FILE_OURS. */
cache_file_kind cache_probe(const char *path, int *version, char *why, size_t why_size);
/* Opens a file read-only (no -wal/-shm creation where avoidable); SQLite code. */
int cache_open_readonly(const char *path, sqlite3 **db);
/* Opens (creating it and its folders) a writable database, sets WAL, the busy timeout and
 * brings the schema to CACHE_SCHEMA_VERSION. The caller has probed it: ABSENT, EMPTY or OURS. */
int cache_open_writable(const char *path, sqlite3 **db, char *why, size_t why_size);
/* Copies a read-only database into memory and migrates it to the current schema (for
 * read-only layers written by an older version). */
int cache_open_migrated_copy(sqlite3 *src, sqlite3 **db, char *why, size_t why_size);
/* An in-memory database with the current schema (for .sql layers). */
int cache_open_memory(sqlite3 **db, char *why, size_t why_size);
/* BEGIN IMMEDIATE, retried while another process holds the write lock. */
int cache_begin(sqlite3 *db);
/* Runs one or more statements with sqlite3_exec; *why gets the message on failure. */
int cache_exec(sqlite3 *db, const char *sql, char *why, size_t why_size);
/* Runs the text of an exported / shipped .sql file: only INSERTs into measurement_rows are
 * allowed (an authorizer refuses everything else: no ATTACH, PRAGMA, DDL, transactions). */
int cache_exec_restricted(sqlite3 *db, const char *sql, char *why, size_t why_size);
/* PRAGMA user_version of db; SQLite code. */
int cache_schema_version(sqlite3 *db, int *version);

/* ---- store.c: the layers, keys and rows ---------------------------------------------------- */

/* The context's store, created (not opened) on first use; NULL only when out of memory. */
cache_store *cache_store_get(w8a8_context *ctx);
/* Locks the store (recursive), opening its layers on first use; unlock store->mutex after.
 * NULL, with *st set, when out of memory. */
cache_store *cache_store_lock(w8a8_context *ctx, w8a8_status *st);
/* A read-only connection to a probed database of `version`; an older one is migrated in a
 * private in-memory copy (the file is never changed). *why on failure. */
int cache_open_readonly_current(const char *path, int version, sqlite3 **db, char *why,
                                size_t why_size);
/* Opens the user database for writing (creating it) if it is not open yet; under the lock. */
w8a8_status cache_user_writable(w8a8_context *ctx, cache_store *store);
/* Appends a warning line to the store. */
void cache_warn(cache_store *store, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text names of enum values as stored in the database. */
const char *cache_azp_name(w8a8_azp_kind azp);
bool cache_azp_parse(const char *name, w8a8_azp_kind *azp);
bool cache_scale_parse(const char *name, w8a8_scale_kind *kind);

/* Binds the 19 key values at ?first.. and the 16 measurement values at ?first.. */
void cache_bind_key(sqlite3_stmt *stmt, int first, const cache_key *key);
void cache_bind_measurement(sqlite3_stmt *stmt, int first, const cache_measurement *m);
/* Reads them back from result columns first..; false when a name is unknown. */
bool cache_read_key(sqlite3_stmt *stmt, int first, cache_key *key);
void cache_read_measurement(sqlite3_stmt *stmt, int first, cache_measurement *m);
/* The problem's id in db (inserting the device and problem rows); inside a transaction. */
int cache_problem_id(sqlite3 *db, const cache_key *key, int64_t *id);

/* Copies text with truncation (always NUL-terminated). */
void cache_copy(char *dst, size_t size, const char *src);

#endif
