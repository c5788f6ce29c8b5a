/* The cache on a context: its layers (the user's writable database over read-only ones),
 * writes of measurements and record-mode misses, and the lookup with its fallback chain.
 *
 * Layers, in lookup order: 0 = the user's database (ctx->cache_db; created with its folders
 * on the first write), then every entry of ctx->cache_path (':'-separated; a file, or a
 * folder whose *.db and *.sql files are taken in name order), then the shipped folder
 * (W8A8_SHIPPED_CACHE_RELDIR beside the file that holds this code — libw8a8jit.so in an
 * installed tree or a Python wheel — then W8A8_SHIPPED_CACHE_DIR, the configured prefix; the
 * same folder is taken once; silently absent otherwise). A .db file
 * is opened read-only (copied into memory and migrated when it has an older schema); a .sql
 * file (exported or shipped text) is loaded into an in-memory database. A file that is
 * garbage, truncated, corrupt, foreign or newer is skipped with a line in cache_warnings().
 *
 * Lookup order (DESIGN.md: exact device → same product → same arch → heuristic, with the
 * nearest bucket for M): at the key's own M bucket, an exact device (arch, name, SM count,
 * memory) beats the same product name, which beats any device of the same arch (foreign).
 * Only when no device of the arch has the bucket does the nearest bucket count: the smallest
 * |ln(bucket / wanted)|, then the closer device, then the earlier layer, then the larger
 * bucket (its tiles cover the smaller M). At equal rank the earlier layer wins, so user rows
 * win. Rows of another arch are never used. Where the key's class has no row at all, the
 * same shape with another epilogue (cache_epilogue_siblings: per-tensor / per-row scales
 * swapped, the other 16-bit out dtype, a bias or none) is looked up the same way, nearest
 * epilogue first (CACHE_EPILOGUE), every layer in one query (epilogue_sql): those change what
 * the epilogue loads and stores, not the main loop, so a config tuned for one runs the others
 * about as well (a config the family refuses for the asked problem falls through the
 * dispatcher's chain).
 *
 * One recursive mutex per store serializes the context's connections. */
#include <dirent.h>
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cache_impl.h"

/* warnings stop growing here; the rest is summarized */
#define WARNINGS_MAX_BYTES 65536
/* two bucket distances closer than this are equal (the buckets are integers) */
#define DISTANCE_EPSILON 1e-9

static pthread_mutex_t store_create_lock = PTHREAD_MUTEX_INITIALIZER;

cache_store *cache_store_get(w8a8_context *ctx)
{
    pthread_mutex_lock(&store_create_lock);
    cache_store *store = ctx->cache;
    if (!store && (store = calloc(1, sizeof *store)) != NULL) {
        pthread_mutexattr_t attr;
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
        pthread_mutex_init(&store->mutex, &attr);
        pthread_mutexattr_destroy(&attr);
        cache_copy(store->user.path, sizeof store->user.path, ctx->cache_db);
        ctx->cache = store;
        ctx->cache_on_close = cache_close;
    }
    pthread_mutex_unlock(&store_create_lock);
    return store;
}

void cache_warn(cache_store *store, const char *fmt, ...)
{
    char line[CACHE_WHY_BYTES + W8A8_PATH_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t used = store->warnings ? strlen(store->warnings) : 0;
    if (used + strlen(line) + 2 > WARNINGS_MAX_BYTES)
        return;
    /* a file named twice (itself and in a folder of the path) is reported once */
    for (const char *at = store->warnings; at && (at = strstr(at, line)) != NULL; at++)
        if ((at == store->warnings || at[-1] == '\n') && at[strlen(line)] == '\n')
            return;
    char *grown = realloc(store->warnings, used + strlen(line) + 2);
    if (!grown)
        return;
    snprintf(grown + used, strlen(line) + 2, "%s\n", line);
    store->warnings = grown;
}

const char *cache_warnings(w8a8_context *ctx)
{
    cache_store *store = ctx ? ctx->cache : NULL;
    return store && store->warnings ? store->warnings : "";
}

void cache_close(w8a8_context *ctx)
{
    cache_store *store = ctx ? ctx->cache : NULL;
    if (!store)
        return;
    sqlite3_close(store->user.db);
    for (size_t i = 0; i < store->readonly_count; i++)
        sqlite3_close(store->readonly[i].db);
    free(store->readonly);
    free(store->warnings);
    pthread_mutex_destroy(&store->mutex);
    free(store);
    ctx->cache = NULL;
}

/* ---- opening the layers ----------------------------------------------------------------- */

int cache_open_readonly_current(const char *path, int version, sqlite3 **db, char *why,
                                 size_t why_size)
{
    sqlite3 *file = NULL;
    int rc = cache_open_readonly(path, &file);
    if (rc != SQLITE_OK) {
        snprintf(why, why_size, "cannot open it: %s", sqlite3_errstr(rc));
        sqlite3_close(file);
        return rc;
    }
    if (version == CACHE_SCHEMA_VERSION) {
        *db = file;
        return SQLITE_OK;
    }
    rc = cache_open_migrated_copy(file, db, why, why_size);
    sqlite3_close(file);
    return rc;
}

static void open_user(cache_store *store)
{
    int version = 0;
    char why[CACHE_WHY_BYTES];
    if (!store->user.path[0]) {
        store->user_unusable = true;
        cache_copy(store->user_why, sizeof store->user_why, "no user database is configured");
        return;
    }
    cache_file_kind kind = cache_probe(store->user.path, &version, why, sizeof why);
    if (kind == CACHE_FILE_ABSENT || kind == CACHE_FILE_EMPTY)
        return; /* created on the first write */
    if (kind == CACHE_FILE_OURS &&
        cache_open_writable(store->user.path, &store->user.db, why, sizeof why) == SQLITE_OK)
        return;
    store->user_unusable = true;
    cache_copy(store->user_why, sizeof store->user_why, why);
    if (kind == CACHE_FILE_OURS) {
        /* ours but not writable here (read-only file system, permissions): still read it */
        char ignored[CACHE_WHY_BYTES];
        cache_open_readonly_current(store->user.path, version, &store->user.db, ignored,
                                    sizeof ignored);
        cache_warn(store, "%s: read-only: %s", store->user.path, why);
    } else {
        cache_warn(store, "%s: skipped: %s", store->user.path, why);
    }
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static bool already_layered(const cache_store *store, const char *path)
{
    if (same_file(path, store->user.path))
        return true;
    for (size_t i = 0; i < store->readonly_count; i++)
        if (same_file(path, store->readonly[i].path))
            return true;
    return false;
}

static bool has_suffix(const char *text, const char *suffix)
{
    size_t length = strlen(text), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

/* An in-memory database holding the rows of an exported or shipped .sql file. */
static int open_sql_layer(const char *path, sqlite3 **db, char *why, size_t why_size)
{
    char *text = NULL;
    size_t size = 0;
    int err = util_read_file(path, &text, &size);
    if (err != 0) {
        snprintf(why, why_size, "cannot read it: %s", strerror(err));
        return SQLITE_CANTOPEN;
    }
    int rc = cache_open_memory(db, why, why_size);
    if (rc == SQLITE_OK && (rc = cache_begin(*db)) == SQLITE_OK) {
        rc = cache_exec_restricted(*db, text, why, why_size);
        sqlite3_exec(*db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    }
    free(text);
    if (rc != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
    }
    return rc;
}

static void add_layer_file(cache_store *store, const char *path)
{
    char why[CACHE_WHY_BYTES] = "";
    sqlite3 *db = NULL;
    int version = 0;
    if (already_layered(store, path))
        return;
    if (has_suffix(path, ".sql")) {
        if (open_sql_layer(path, &db, why, sizeof why) != SQLITE_OK) {
            cache_warn(store, "%s: skipped: %s", path, why);
            return;
        }
    } else {
        cache_file_kind kind = cache_probe(path, &version, why, sizeof why);
        if (kind == CACHE_FILE_ABSENT || kind == CACHE_FILE_EMPTY) {
            cache_warn(store, "%s: skipped: %s", path, kind ? "empty" : "no such file");
            return;
        }
        if (kind == CACHE_FILE_BAD ||
            cache_open_readonly_current(path, version, &db, why, sizeof why) != SQLITE_OK) {
            cache_warn(store, "%s: skipped: %s", path, why);
            return;
        }
    }
    cache_layer *grown = realloc(store->readonly, (store->readonly_count + 1) * sizeof *grown);
    if (!grown) {
        sqlite3_close(db);
        cache_warn(store, "%s: skipped: out of memory", path);
        return;
    }
    store->readonly = grown;
    grown[store->readonly_count].db = db;
    cache_copy(grown[store->readonly_count].path, sizeof grown->path, path);
    store->readonly_count++;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* *.db and *.sql of a folder, in name order; a missing folder is fine when quiet. */
static void add_layer_folder(cache_store *store, const char *folder, bool quiet)
{
    DIR *dir = opendir(folder);
    if (!dir) {
        if (!quiet)
            cache_warn(store, "%s: skipped: cannot open the folder", folder);
        return;
    }
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        if (!has_suffix(entry->d_name, ".db") && !has_suffix(entry->d_name, ".sql"))
            continue;
        char **grown = realloc(names, (count + 1) * sizeof *names);
        if (!grown || !(grown[count] = strdup(entry->d_name))) {
            names = grown ? grown : names;
            break;
        }
        names = grown;
        count++;
    }
    closedir(dir);
    if (count > 1) /* names is NULL for a folder without databases: qsort's is nonnull */
        qsort(names, count, sizeof *names, compare_names);
    for (size_t i = 0; i < count; i++) {
        char path[W8A8_PATH_BYTES];
        if (util_format(path, sizeof path, "%s/%s", folder, names[i]))
            add_layer_file(store, path);
        free(names[i]);
    }
    free(names);
}

static void add_layer_entry(cache_store *store, const char *entry)
{
    struct stat st;
    if (stat(entry, &st) == 0 && S_ISDIR(st.st_mode))
        add_layer_folder(store, entry, false);
    else
        add_layer_file(store, entry);
}

/* The shipped folder relative to the loaded object that holds this function (dladdr), so an
 * installed tree that was moved, or a Python wheel, finds its databases without any
 * environment variable. Writes "" when it cannot tell. */
static void shipped_folder_beside_library(char *out, size_t size)
{
    out[0] = '\0';
#ifdef W8A8_SHIPPED_CACHE_RELDIR
    Dl_info info;
    if (!dladdr((void *)&shipped_folder_beside_library, &info) || !info.dli_fname)
        return;
    char object[W8A8_PATH_BYTES], resolved[PATH_MAX];
    if (!realpath(info.dli_fname, resolved) || strlen(resolved) >= sizeof object)
        return;
    cache_copy(object, sizeof object, resolved);
    if (!util_format(out, size, "%s/%s", dirname(object), W8A8_SHIPPED_CACHE_RELDIR))
        out[0] = '\0';
#else
    (void)size;
#endif
}

static void add_shipped_layers(cache_store *store)
{
    char beside[W8A8_PATH_BYTES], beside_real[PATH_MAX] = "";
    shipped_folder_beside_library(beside, sizeof beside);
    if (beside[0] && realpath(beside, beside_real))
        add_layer_folder(store, beside_real, true);
#ifdef W8A8_SHIPPED_CACHE_DIR
    char prefix_real[PATH_MAX];
    /* an absent prefix folder is skipped quietly by add_layer_folder */
    if (!realpath(W8A8_SHIPPED_CACHE_DIR, prefix_real) || strcmp(prefix_real, beside_real) != 0)
        add_layer_folder(store, W8A8_SHIPPED_CACHE_DIR, true);
#endif
}

static void open_layers(w8a8_context *ctx, cache_store *store)
{
    open_user(store);
    char paths[sizeof ctx->cache_path];
    cache_copy(paths, sizeof paths, ctx->cache_path);
    char *save = NULL;
    for (char *entry = strtok_r(paths, ":", &save); entry; entry = strtok_r(NULL, ":", &save))
        add_layer_entry(store, entry);
    add_shipped_layers(store);
    store->opened = true;
}

cache_store *cache_store_lock(w8a8_context *ctx, w8a8_status *st)
{
    cache_store *store = cache_store_get(ctx);
    if (!store) {
        *st = errorf(ctx, W8A8_NO_MEMORY, "out of host memory for the tuning cache");
        return NULL;
    }
    pthread_mutex_lock(&store->mutex);
    if (!store->opened)
        open_layers(ctx, store);
    *st = W8A8_OK;
    return store;
}

w8a8_status cache_open(w8a8_context *ctx)
{
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (store)
        pthread_mutex_unlock(&store->mutex);
    return st;
}

w8a8_status cache_user_writable(w8a8_context *ctx, cache_store *store)
{
    char why[CACHE_WHY_BYTES];
    int version = 0;
    if (store->user_unusable)
        return errorf(ctx, W8A8_CACHE_ERROR, "the tuning database %s cannot be written: %s",
                      store->user.path, store->user_why);
    if (store->user.db)
        return W8A8_OK;
    /* another process may have created it since the layers were opened: probe again */
    cache_file_kind kind = cache_probe(store->user.path, &version, why, sizeof why);
    if (kind != CACHE_FILE_BAD &&
        cache_open_writable(store->user.path, &store->user.db, why, sizeof why) == SQLITE_OK)
        return W8A8_OK;
    return errorf(ctx, W8A8_CACHE_ERROR, "cannot create the tuning database %s: %s",
                  store->user.path, why);
}

/* ---- writes --------------------------------------------------------------------------------- */

typedef int (*write_step)(sqlite3 *db, const cache_key *key, const void *arg);

/* Runs step in one IMMEDIATE transaction on the user database (created if needed). */
static w8a8_status write_transaction(w8a8_context *ctx, const cache_key *key, write_step step,
                                     const void *arg)
{
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    st = cache_user_writable(ctx, store);
    if (st == W8A8_OK) {
        sqlite3 *db = store->user.db;
        int rc = cache_begin(db);
        if (rc == SQLITE_OK && (rc = step(db, key, arg)) == SQLITE_OK)
            rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            st = errorf(ctx, W8A8_CACHE_ERROR, "cannot write to the tuning database %s: %s",
                        store->user.path, sqlite3_errmsg(db));
            if (!sqlite3_get_autocommit(db))
                sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
    }
    pthread_mutex_unlock(&store->mutex);
    return st;
}

static int step_statement(sqlite3_stmt *stmt)
{
    int rc = sqlite3_step(stmt);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

typedef struct measurement_batch {
    const cache_measurement *rows;
    size_t count;
} measurement_batch;

/* The batch's rows under one problem id, through one prepared statement. */
static int insert_measurements(sqlite3 *db, const cache_key *key, const void *arg)
{
    const measurement_batch *batch = arg;
    int64_t problem = 0;
    int rc = cache_problem_id(db, key, &problem);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_stmt *stmt = NULL;
    rc = sqlite3_prepare_v2(db,
                            "INSERT INTO measurements (problem_id, " CACHE_MEASUREMENT_COLUMNS ")"
                            " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
                            " ?14, ?15, ?16, ?17)",
                            -1, &stmt, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < batch->count; i++) {
        sqlite3_reset(stmt);
        sqlite3_bind_int64(stmt, 1, problem);
        cache_bind_measurement(stmt, 2, &batch->rows[i]);
        rc = step_statement(stmt);
    }
    sqlite3_finalize(stmt);
    return rc;
}

w8a8_status cache_put_measurement(w8a8_context *ctx, const cache_key *key,
                                  const cache_measurement *m)
{
    return cache_put_measurements(ctx, key, m, 1);
}

w8a8_status cache_put_measurements(w8a8_context *ctx, const cache_key *key,
                                   const cache_measurement *rows, size_t count)
{
    if (count == 0)
        return W8A8_OK;
    if (!rows)
        return errorf(ctx, W8A8_INVALID, "no measurements to write");
    measurement_batch batch = {.rows = rows, .count = count};
    return write_transaction(ctx, key, insert_measurements, &batch);
}

static int insert_untuned(sqlite3 *db, const cache_key *key, const void *arg)
{
    int64_t problem = 0;
    int rc = cache_problem_id(db, key, &problem);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_stmt *stmt = NULL;
    rc = sqlite3_prepare_v2(db,
                            "INSERT INTO untuned (problem_id, count, last_m, first_seen, last_seen)"
                            " VALUES (?1, 1, ?2, ?3, ?3) ON CONFLICT (problem_id) DO UPDATE SET"
                            " count = count + 1, last_m = excluded.last_m,"
                            " last_seen = excluded.last_seen",
                            -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(stmt, 1, problem);
        sqlite3_bind_int64(stmt, 2, *(const int64_t *)arg);
        sqlite3_bind_int64(stmt, 3, (int64_t)time(NULL));
        rc = step_statement(stmt);
    }
    sqlite3_finalize(stmt);
    return rc;
}

w8a8_status cache_put_untuned(w8a8_context *ctx, const cache_key *key, int64_t m)
{
    return write_transaction(ctx, key, insert_untuned, &m);
}

/* ---- reads of the user database ------------------------------------------------------------- */

/* One layer's "ok" and "hung" rows of key's product (arch and name: any SM count or memory
 * size), through the indexes (devices, problems, measurements_by_key): the listing's view and
 * its winners column cost a scan of every measurement per call. SQLite code. */
static int history_layer(const cache_layer *layer, bool user_layer, const cache_key *key,
                         cache_history_visit visit, void *user, bool *stop)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(layer->db,
                                "SELECT m.family, m.config, m.status, m.template_hash,"
                                " d.sm_count = ?3 AND d.memory_bytes = ?4"
                                " FROM devices d JOIN problems p ON p.device_id = d.id"
                                " JOIN measurements m ON m.problem_id = p.id"
                                " WHERE d.arch = ?1 AND d.name = ?2 AND "
                                CACHE_PROBLEM_MATCH("p") " AND m.status IN ('ok', 'hung')",
                                -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return rc;
    cache_bind_key(stmt, 1, key);
    while (!*stop && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *text[4];
        for (int i = 0; i < 4; i++) {
            text[i] = (const char *)sqlite3_column_text(stmt, i);
            text[i] = text[i] ? text[i] : "";
        }
        cache_history_row row = {.family = text[0], .config = text[1], .status = text[2],
                                 .template_hash = text[3], .user_layer = user_layer,
                                 .exact_device = sqlite3_column_int(stmt, 4) != 0};
        *stop = visit(user, &row) != 0;
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

w8a8_status cache_key_history(w8a8_context *ctx, const cache_key *key,
                              cache_history_visit visit, void *user)
{
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    bool stop = false;
    for (size_t i = 0; i <= store->readonly_count && !stop && st == W8A8_OK; i++) {
        const cache_layer *layer = i == 0 ? &store->user : &store->readonly[i - 1];
        if (layer->db && history_layer(layer, i == 0, key, visit, user, &stop) != SQLITE_OK)
            st = errorf(ctx, W8A8_CACHE_ERROR, "cannot read the tuning history in %s: %s",
                        layer->path, sqlite3_errmsg(layer->db));
    }
    pthread_mutex_unlock(&store->mutex);
    return st;
}

w8a8_status cache_untuned_list(w8a8_context *ctx, cache_untuned_visit visit, void *user)
{
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    sqlite3 *db = store->user.db;
    sqlite3_stmt *stmt = NULL;
    int rc = !db ? SQLITE_OK
                 : sqlite3_prepare_v2(db,
                                      "SELECT " CACHE_KEY_SELECT("d", "p") ", u.count, u.last_m"
                                      " FROM untuned u JOIN problems p ON p.id = u.problem_id"
                                      " JOIN devices d ON d.id = p.device_id"
                                      " ORDER BY u.count DESC, u.last_seen DESC, p.id",
                                      -1, &stmt, NULL);
    while (stmt && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        cache_key key;
        if (cache_read_key(stmt, 0, &key) &&
            visit(user, &key, sqlite3_column_int64(stmt, CACHE_KEY_COUNT),
                  sqlite3_column_int64(stmt, CACHE_KEY_COUNT + 1)) != 0)
            break;
    }
    if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
        st = errorf(ctx, W8A8_CACHE_ERROR, "cannot read the untuned keys of %s: %s",
                    store->user.path, sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    pthread_mutex_unlock(&store->mutex);
    return st;
}

/* ---- lookup ------------------------------------------------------------------------------- */

/* A winner found in one layer, with what ranks it (see the file comment). */
typedef struct candidate {
    bool valid;
    int level;        /* 0 exact, 1 product, 2 arch (all at the key's bucket), 3 other bucket */
    double distance;  /* |ln(bucket / wanted)|, 0 at the key's bucket */
    int device_rank;  /* 0 exact, 1 product, 2 arch */
    size_t layer;
    int64_t problem_id; /* the row, in its layer */
    cache_winner winner;
} candidate;

static bool better(const candidate *a, const candidate *b)
{
    if (!b->valid)
        return true;
    if (a->level != b->level)
        return a->level < b->level;
    if (fabs(a->distance - b->distance) > DISTANCE_EPSILON)
        return a->distance < b->distance;
    if (a->device_rank != b->device_rank)
        return a->device_rank < b->device_rank;
    if (a->layer != b->layer)
        return a->layer < b->layer;
    if (a->winner.m_bucket != b->winner.m_bucket)
        return a->winner.m_bucket > b->winner.m_bucket;
    if (a->winner.median_us != b->winner.median_us)
        return a->winner.median_us < b->winner.median_us;
    int order = strcmp(a->winner.device_name, b->winner.device_name);
    return order != 0 ? order < 0 : strcmp(a->winner.config, b->winner.config) < 0;
}

/* The winner of every key matching WHERE (a CACHE_*_MATCH of problems p) on devices of the
 * key's arch, any bucket: 10 columns (class_row reads them), then EXTRA's. */
#define WINNERS_SQL(EXTRA, WHERE)                                                              \
    "SELECT d.name, d.sm_count, p.m_bucket, m.family, m.config, m.median_us,"                 \
    " d.name = ?2 AND d.sm_count = ?3 AND d.memory_bytes = ?4, d.name = ?2, p.m_bucket = ?19," \
    " p.id" EXTRA " FROM problems p JOIN devices d ON d.id = p.device_id"                      \
    " JOIN measurements m ON m.id = (SELECT id FROM measurements w WHERE w.problem_id = p.id"  \
    " AND " CACHE_WINNER_FILTER " AND " CACHE_NEVER_HUNG("w") " AND " CACHE_MOST_SAMPLED("w")  \
    " ORDER BY " CACHE_WINNER_ORDER " LIMIT 1)"                                                \
    " WHERE d.arch = ?1 AND " WHERE

/* The winner of every key of this problem class on devices of the key's arch, any bucket. */
static const char lookup_sql[] = WINNERS_SQL("", CACHE_CLASS_MATCH("p"));

/* One row of lookup_sql as a candidate of layer `index` for key. */
static candidate class_row(sqlite3_stmt *stmt, const cache_layer *layer, size_t index,
                           const cache_key *key)
{
    candidate c = {.valid = true, .layer = index};
    c.device_rank = sqlite3_column_int(stmt, 6) ? 0 : sqlite3_column_int(stmt, 7) ? 1 : 2;
    bool same_bucket = sqlite3_column_int(stmt, 8) != 0;
    c.winner.m_bucket = sqlite3_column_int64(stmt, 2);
    c.level = same_bucket ? c.device_rank : 3;
    c.distance = same_bucket || c.winner.m_bucket < 1
                     ? 0.0
                     : fabs(log((double)c.winner.m_bucket / (double)key->m_bucket));
    cache_copy(c.winner.device_name, sizeof c.winner.device_name,
               (const char *)sqlite3_column_text(stmt, 0));
    c.winner.sm_count = sqlite3_column_int(stmt, 1);
    cache_copy(c.winner.family, sizeof c.winner.family, (const char *)sqlite3_column_text(stmt, 3));
    cache_copy(c.winner.config, sizeof c.winner.config, (const char *)sqlite3_column_text(stmt, 4));
    c.winner.median_us = sqlite3_column_double(stmt, 5);
    static const cache_match by_rank[] = {CACHE_EXACT, CACHE_PRODUCT, CACHE_ARCH};
    c.winner.device_match = by_rank[c.device_rank];
    c.winner.match = same_bucket ? by_rank[c.device_rank] : CACHE_NEAR_BUCKET;
    cache_copy(c.winner.source, sizeof c.winner.source, layer->path);
    c.problem_id = sqlite3_column_int64(stmt, 9);
    c.winner.a_scale = key->a_scale;
    c.winner.b_scale = key->b_scale;
    c.winner.out_type = key->out_type;
    c.winner.bias_type = key->bias_type;
    return c;
}

/* A row of a WINNERS_SQL query as a candidate, with the statement for its EXTRA columns. */
typedef int (*winner_visit)(void *user, const candidate *c, sqlite3_stmt *stmt);

/* Every row of sql (a WINNERS_SQL bound to key) in every layer, in layer order, to visit
 * until it returns non-zero. Lock held. */
static w8a8_status every_layer(w8a8_context *ctx, const cache_store *store, const char *sql,
                               const cache_key *key, winner_visit visit, void *user)
{
    bool stop = false;
    for (size_t i = 0; i <= store->readonly_count && !stop; i++) {
        const cache_layer *layer = i == 0 ? &store->user : &store->readonly[i - 1];
        sqlite3_stmt *stmt = NULL;
        if (!layer->db)
            continue;
        int rc = sqlite3_prepare_v2(layer->db, sql, -1, &stmt, NULL);
        if (rc == SQLITE_OK)
            cache_bind_key(stmt, 1, key);
        while (rc == SQLITE_OK && !stop && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            candidate c = class_row(stmt, layer, i, key);
            stop = visit(user, &c, stmt) != 0;
            rc = SQLITE_OK;
        }
        sqlite3_finalize(stmt);
        if (rc != SQLITE_OK && rc != SQLITE_DONE)
            return errorf(ctx, W8A8_CACHE_ERROR, "cannot read the tuning database %s: %s",
                          layer->path, sqlite3_errmsg(layer->db));
    }
    return W8A8_OK;
}

static int keep_better(void *user, const candidate *c, sqlite3_stmt *stmt)
{
    (void)stmt;
    candidate *best = user;
    if (better(c, best))
        *best = *c;
    return 0;
}

/* The distinct verified configs of one row that never hung there, each at the best median of
 * its best-sampled rows, fastest first (ties as the winner's order): the winner, then its
 * runner-ups. */
static const char runners_sql[] =
    "SELECT family, config, MIN(median_us) AS best FROM measurements w"
    " WHERE w.problem_id = ?1 AND " CACHE_WINNER_FILTER " AND " CACHE_NEVER_HUNG("w")
    " AND " CACHE_MOST_SAMPLED("w")
    " GROUP BY family, config ORDER BY best, family, config LIMIT ?2";

/* Appends best's runner-ups (rank 1, 2, …) to winners[1 …] until max. */
static int runners_up(const cache_layer *layer, const candidate *best, cache_winner *winners,
                      size_t max, size_t *count)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(layer->db, runners_sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(stmt, 1, best->problem_id);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)max + 1); /* the winner is among them */
    while (*count < max && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *family = (const char *)sqlite3_column_text(stmt, 0);
        const char *config = (const char *)sqlite3_column_text(stmt, 1);
        if (family && config && strcmp(family, best->winner.family) == 0 &&
            strcmp(config, best->winner.config) == 0)
            continue;
        cache_winner *w = &winners[*count];
        *w = best->winner;
        cache_copy(w->family, sizeof w->family, family);
        cache_copy(w->config, sizeof w->config, config);
        w->median_us = sqlite3_column_double(stmt, 2);
        w->rank = (int)*count;
        ++*count;
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The winner of every key of the key's shape on devices of its arch, whatever its epilogue:
 * lookup_sql's columns, then the row's a_scale, b_scale, out_type and bias_type (10…13). */
static const char epilogue_sql[] =
    WINNERS_SQL(", p.a_scale, p.b_scale, p.out_type, p.bias_type", CACHE_SHAPE_MATCH("p"));

static bool same_text(const unsigned char *column, const char *name)
{
    return column && name && strcmp((const char *)column, name) == 0;
}

typedef struct epilogue_search {
    cache_key siblings[CACHE_EPILOGUES];
    size_t count, nearest; /* nearest: the index of best's sibling, count before one */
    candidate best;
} epilogue_search;

/* Keeps the row if it is the nearest sibling so far, or the better one of the nearest. */
static int keep_nearest_epilogue(void *user, const candidate *c, sqlite3_stmt *stmt)
{
    epilogue_search *e = user;
    size_t i = 0; /* the sibling the row is: count when none */
    for (; i < e->count; i++) {
        const cache_key *k = &e->siblings[i];
        if (same_text(sqlite3_column_text(stmt, 10), w8a8_scale_kind_name(k->a_scale)) &&
            same_text(sqlite3_column_text(stmt, 11), w8a8_scale_kind_name(k->b_scale)) &&
            same_text(sqlite3_column_text(stmt, 12), w8a8_dtype_name(k->out_type)) &&
            same_text(sqlite3_column_text(stmt, 13), w8a8_dtype_name(k->bias_type)))
            break;
    }
    if (i == e->count || i > e->nearest || (i == e->nearest && !better(c, &e->best)))
        return 0;
    e->best = *c;
    e->best.winner.match = CACHE_EPILOGUE;
    e->best.winner.a_scale = e->siblings[i].a_scale;
    e->best.winner.b_scale = e->siblings[i].b_scale;
    e->best.winner.out_type = e->siblings[i].out_type;
    e->best.winner.bias_type = e->siblings[i].bias_type;
    e->nearest = i;
    return 0;
}

/* On a miss: the best winner of the nearest epilogue sibling that has one (the file comment),
 * from one query a layer for all of them. Lock held. */
static w8a8_status best_of_epilogues(w8a8_context *ctx, const cache_store *store,
                                     const cache_key *key, candidate *best)
{
    epilogue_search e = {.best = {.valid = false}};
    e.count = e.nearest = cache_epilogue_siblings(key, e.siblings);
    w8a8_status st =
        e.count ? every_layer(ctx, store, epilogue_sql, key, keep_nearest_epilogue, &e) : W8A8_OK;
    if (st == W8A8_OK && e.best.valid)
        *best = e.best;
    return st;
}

w8a8_status cache_lookup_ranked(w8a8_context *ctx, const cache_key *key, cache_winner *winners,
                                size_t max, size_t *count)
{
    if (!winners || !count || max < 1)
        return errorf(ctx, W8A8_INVALID, "cache_lookup_ranked: no room for a winner");
    *count = 0;
    memset(&winners[0], 0, sizeof winners[0]);
    winners[0].match = CACHE_MISS;
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    candidate best = {.valid = false};
    st = every_layer(ctx, store, lookup_sql, key, keep_better, &best);
    if (st == W8A8_OK && !best.valid)
        st = best_of_epilogues(ctx, store, key, &best);
    if (st == W8A8_OK && best.valid) {
        winners[0] = best.winner;
        *count = 1;
        const cache_layer *layer = best.layer == 0 ? &store->user
                                                   : &store->readonly[best.layer - 1];
        if (max > 1 && runners_up(layer, &best, winners, max, count) != SQLITE_OK)
            st = errorf(ctx, W8A8_CACHE_ERROR, "cannot read the tuning database %s: %s",
                        layer->path, sqlite3_errmsg(layer->db));
    }
    pthread_mutex_unlock(&store->mutex);
    return st;
}

w8a8_status cache_lookup(w8a8_context *ctx, const cache_key *key, cache_winner *winner)
{
    size_t count = 0;
    return cache_lookup_ranked(ctx, key, winner, 1, &count);
}

typedef struct class_visit {
    cache_winner_visit visit;
    void *user;
} class_visit;

static int visit_winner(void *user, const candidate *c, sqlite3_stmt *stmt)
{
    (void)stmt;
    const class_visit *v = user;
    return v->visit(v->user, &c->winner);
}

w8a8_status cache_class_winners(w8a8_context *ctx, const cache_key *key, cache_winner_visit visit,
                                void *user)
{
    if (!key || !visit)
        return errorf(ctx, W8A8_INVALID, "cache_class_winners: no key or no visitor");
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    class_visit v = {visit, user};
    st = every_layer(ctx, store, lookup_sql, key, visit_winner, &v);
    pthread_mutex_unlock(&store->mutex);
    return st;
}
