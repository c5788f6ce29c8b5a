/* Moving rows between databases: export (reviewable .sql, or .csv for analysis), import
 * into the user database, merge into any database, and prune.
 *
 * Every row crosses as the 35 columns of the measurement_rows view (key + measurement);
 * inserting into that view runs the trigger of schema.c, which creates device and problem
 * rows as needed and skips duplicates. So an exported .sql file is just INSERT statements,
 * one per row, and importing it is running them under an authorizer that allows nothing
 * else. Imports and merges run in one transaction: all or nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache_impl.h"

static const char select_rows_sql[] =
    "SELECT " CACHE_KEY_COLUMNS ", " CACHE_MEASUREMENT_COLUMNS " FROM measurement_rows";
static const char rows_order[] = " ORDER BY problem_id, timestamp, measurement_id";
static const char winners_only[] = " WHERE measurement_id IN (SELECT id FROM winners)";

static bool has_suffix(const char *text, const char *suffix)
{
    size_t length = strlen(text), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(text + length - suffix_length, suffix) == 0;
}

static int count_measurements(sqlite3 *db, int64_t *count)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM measurements", -1, &stmt, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        *count = sqlite3_column_int64(stmt, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    return rc;
}

/* ---- export --------------------------------------------------------------------------------- */

/* One value as an SQL literal (format "sql") or a CSV field. Reals keep 17 significant
 * digits so a round trip is exact. */
static void append_value(sqlite3_str *out, sqlite3_stmt *stmt, int column, bool csv)
{
    switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_NULL:
        sqlite3_str_appendall(out, csv ? "" : "NULL");
        break;
    case SQLITE_INTEGER:
        sqlite3_str_appendf(out, "%lld", (long long)sqlite3_column_int64(stmt, column));
        break;
    case SQLITE_FLOAT: {
        double value = sqlite3_column_double(stmt, column);
        if (isinf(value))
            sqlite3_str_appendall(out, value > 0 ? "9e999" : "-9e999");
        else
            sqlite3_str_appendf(out, "%!.17g", value);
        break;
    }
    default: {
        const char *text = (const char *)sqlite3_column_text(stmt, column);
        if (!csv)
            sqlite3_str_appendf(out, "%Q", text);
        else if (strpbrk(text, ",\"\n\r")) {
            sqlite3_str_appendchar(out, 1, '"');
            for (const char *c = text; *c; c++)
                sqlite3_str_appendf(out, *c == '"' ? "\"\"" : "%c", *c);
            sqlite3_str_appendchar(out, 1, '"');
        } else {
            sqlite3_str_appendall(out, text);
        }
    }
    }
}

static void append_header(sqlite3_str *out, bool csv, bool winners)
{
    if (csv) {
        sqlite3_str_appendall(out, CACHE_KEY_COLUMNS "," CACHE_MEASUREMENT_COLUMNS "\n");
        return;
    }
    sqlite3_str_appendf(out,
                        "-- w8a8jit tuning cache: %s, schema %d, library %s.\n"
                        "-- Load with `w8a8 cache import FILE`, or put the file in a folder of\n"
                        "-- W8A8_CACHE_PATH. Only INSERTs into measurement_rows are allowed.\n",
                        winners ? "winners only" : "every measurement", CACHE_SCHEMA_VERSION,
                        W8A8JIT_VERSION_STRING);
}

/* The export text of db's rows in *text (sqlite3_free); SQLite code. */
static int export_text(sqlite3 *db, bool csv, bool winners, char **text, int64_t *rows)
{
    char sql[sizeof select_rows_sql + sizeof winners_only + sizeof rows_order];
    snprintf(sql, sizeof sql, "%s%s%s", select_rows_sql, winners ? winners_only : "", rows_order);
    sqlite3_str *out = sqlite3_str_new(NULL);
    append_header(out, csv, winners);
    *rows = 0;
    sqlite3_stmt *stmt = NULL;
    int rc = db ? sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) : SQLITE_OK;
    while (stmt && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!csv)
            sqlite3_str_appendall(out, "INSERT INTO measurement_rows (" CACHE_KEY_COLUMNS ", "
                                       CACHE_MEASUREMENT_COLUMNS ") VALUES (");
        for (int i = 0; i < CACHE_ROW_COUNT; i++) {
            if (i > 0)
                sqlite3_str_appendall(out, csv ? "," : ", ");
            append_value(out, stmt, i, csv);
        }
        sqlite3_str_appendall(out, csv ? "\n" : ");\n");
        (*rows)++;
    }
    sqlite3_finalize(stmt);
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    if (rc == SQLITE_OK)
        rc = sqlite3_str_errcode(out);
    *text = sqlite3_str_finish(out);
    return rc;
}

w8a8_status w8a8_cache_export(w8a8_context *ctx, const char *path, uint32_t flags, int64_t *rows)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!path || !(has_suffix(path, ".sql") || has_suffix(path, ".csv")))
        return errorf(ctx, W8A8_INVALID, "path: '%s' must end in .sql or .csv",
                      path ? path : "(null)");
    error_clear(ctx);
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    char *text = NULL;
    int64_t count = 0;
    sqlite3 *db = store->user.db;
    if (!db && store->user_unusable)
        st = errorf(ctx, W8A8_CACHE_ERROR, "the tuning database %s cannot be read: %s",
                    store->user.path, store->user_why);
    int rc = st == W8A8_OK ? export_text(db, has_suffix(path, ".csv"),
                                         flags & W8A8_CACHE_WINNERS, &text, &count)
                           : SQLITE_OK;
    if (st == W8A8_OK && rc != SQLITE_OK)
        st = rc == SQLITE_NOMEM ? errorf(ctx, W8A8_NO_MEMORY, "out of memory exporting %s", path)
                                : errorf(ctx, W8A8_CACHE_ERROR, "cannot read %s: %s",
                                         store->user.path, db ? sqlite3_errmsg(db) : "?");
    pthread_mutex_unlock(&store->mutex);
    int err = st == W8A8_OK ? util_write_file_atomic(path, text, text ? strlen(text) : 0) : 0;
    if (err != 0)
        st = errorf(ctx, W8A8_IO_ERROR, "cannot write %s: %s", path, strerror(err));
    sqlite3_free(text);
    if (rows)
        *rows = st == W8A8_OK ? count : 0;
    return st;
}

/* ---- import and merge ----------------------------------------------------------------------- */

/* Inserts every row of src into dst through the deduplicating view. */
static int copy_rows(sqlite3 *src, sqlite3 *dst, char *why, size_t why_size)
{
    char insert[512 + sizeof CACHE_KEY_COLUMNS + sizeof CACHE_MEASUREMENT_COLUMNS];
    size_t used = (size_t)snprintf(insert, sizeof insert,
                                   "INSERT INTO measurement_rows (" CACHE_KEY_COLUMNS ", "
                                   CACHE_MEASUREMENT_COLUMNS ") VALUES (?");
    for (int i = 1; i < CACHE_ROW_COUNT; i++)
        used += (size_t)snprintf(insert + used, sizeof insert - used, ", ?");
    snprintf(insert + used, sizeof insert - used, ")");
    sqlite3_stmt *select = NULL, *add = NULL;
    int rc = sqlite3_prepare_v2(src, select_rows_sql, -1, &select, NULL);
    sqlite3 *failed = src;
    if (rc == SQLITE_OK) {
        failed = dst;
        rc = sqlite3_prepare_v2(dst, insert, -1, &add, NULL);
    }
    while (rc == SQLITE_OK && (rc = sqlite3_step(select)) == SQLITE_ROW) {
        for (int i = 0; i < CACHE_ROW_COUNT; i++)
            sqlite3_bind_value(add, i + 1, sqlite3_column_value(select, i));
        rc = sqlite3_step(add);
        rc = rc == SQLITE_DONE ? sqlite3_reset(add) : rc;
    }
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    else if (rc != SQLITE_OK)
        snprintf(why, why_size, "%s", sqlite3_errmsg(failed));
    sqlite3_finalize(select);
    sqlite3_finalize(add);
    return rc;
}

/* Adds one source file's rows to dst (inside dst's transaction). W8A8 status. */
static w8a8_status add_source(w8a8_context *ctx, sqlite3 *dst, const char *dst_path,
                              const char *path)
{
    char why[CACHE_WHY_BYTES] = "";
    if (has_suffix(path, ".sql")) {
        char *text = NULL;
        size_t size = 0;
        int err = util_read_file(path, &text, &size);
        if (err != 0)
            return errorf(ctx, W8A8_IO_ERROR, "cannot read %s: %s", path, strerror(err));
        int rc = cache_exec_restricted(dst, text, why, sizeof why);
        free(text);
        return rc == SQLITE_OK ? W8A8_OK
                               : errorf(ctx, W8A8_CACHE_ERROR, "cannot import %s: %s", path, why);
    }
    int version = 0;
    switch (cache_probe(path, &version, why, sizeof why)) {
    case CACHE_FILE_ABSENT:
        return errorf(ctx, W8A8_IO_ERROR, "cannot read %s: no such file", path);
    case CACHE_FILE_EMPTY:
        return W8A8_OK;
    case CACHE_FILE_BAD:
        return errorf(ctx, W8A8_CACHE_ERROR, "%s: %s", path, why);
    case CACHE_FILE_OURS:
        break;
    }
    sqlite3 *src = NULL;
    int rc = cache_open_readonly_current(path, version, &src, why, sizeof why);
    if (rc == SQLITE_OK)
        rc = copy_rows(src, dst, why, sizeof why);
    sqlite3_close(src);
    return rc == SQLITE_OK ? W8A8_OK
                           : errorf(ctx, W8A8_CACHE_ERROR, "cannot merge %s into %s: %s", path,
                                    dst_path, why);
}

/* All sources into dst in one transaction; *added = new measurements. */
static w8a8_status merge_sources(w8a8_context *ctx, sqlite3 *dst, const char *dst_path,
                                 const char *const *srcs, size_t count, int64_t *added)
{
    int64_t before = 0, after = 0;
    int rc = cache_begin(dst);
    if (rc == SQLITE_OK)
        rc = count_measurements(dst, &before);
    if (rc != SQLITE_OK) {
        if (!sqlite3_get_autocommit(dst))
            sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
        return errorf(ctx, W8A8_CACHE_ERROR, "cannot write %s: %s", dst_path,
                      sqlite3_errmsg(dst));
    }
    w8a8_status st = W8A8_OK;
    for (size_t i = 0; i < count && st == W8A8_OK; i++)
        st = srcs[i] ? add_source(ctx, dst, dst_path, srcs[i])
                     : errorf(ctx, W8A8_INVALID, "srcs[%zu] is NULL", i);
    if (st == W8A8_OK && ((rc = count_measurements(dst, &after)) != SQLITE_OK ||
                          (rc = sqlite3_exec(dst, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK))
        st = errorf(ctx, W8A8_CACHE_ERROR, "cannot commit to %s: %s", dst_path,
                    sqlite3_errmsg(dst));
    if (st != W8A8_OK && !sqlite3_get_autocommit(dst))
        sqlite3_exec(dst, "ROLLBACK", NULL, NULL, NULL);
    if (added)
        *added = st == W8A8_OK ? after - before : 0;
    return st;
}

w8a8_status w8a8_cache_import(w8a8_context *ctx, const char *path, int64_t *added)
{
    if (added)
        *added = 0;
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!path || !*path)
        return errorf(ctx, W8A8_INVALID, "path is NULL or empty");
    error_clear(ctx);
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    st = cache_user_writable(ctx, store);
    if (st == W8A8_OK)
        st = merge_sources(ctx, store->user.db, store->user.path, &path, 1, added);
    pthread_mutex_unlock(&store->mutex);
    return st;
}

w8a8_status w8a8_cache_merge(w8a8_context *ctx, const char *dst, const char *const *srcs,
                             size_t count, int64_t *added)
{
    if (added)
        *added = 0;
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!dst || !*dst || (count > 0 && !srcs))
        return errorf(ctx, W8A8_INVALID, "%s is NULL", !dst || !*dst ? "dst" : "srcs");
    if (has_suffix(dst, ".sql") || has_suffix(dst, ".csv"))
        return errorf(ctx, W8A8_INVALID, "dst: '%s' must be a database, not a text file "
                      "(merge, then w8a8_cache_export)", dst);
    error_clear(ctx);
    char why[CACHE_WHY_BYTES] = "";
    int version = 0;
    if (cache_probe(dst, &version, why, sizeof why) == CACHE_FILE_BAD)
        return errorf(ctx, W8A8_CACHE_ERROR, "%s: %s; not writing to it", dst, why);
    sqlite3 *db = NULL;
    if (cache_open_writable(dst, &db, why, sizeof why) != SQLITE_OK)
        return errorf(ctx, W8A8_CACHE_ERROR, "%s: %s", dst, why);
    w8a8_status st = merge_sources(ctx, db, dst, srcs, count, added);
    /* A merged file is usually shipped or put on W8A8_CACHE_PATH: leave it self-contained
     * (no -wal), so read-only readers need no side files. Fails harmlessly (busy) while
     * another process has it open; writers of ours switch it back to WAL. */
    sqlite3_exec(db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
    sqlite3_close(db);
    return st;
}

/* ---- prune ---------------------------------------------------------------------------------- */

/* Runs sql with ?1 bound to text, or to number when text is NULL. */
static int run_bound(sqlite3 *db, const char *sql, const char *text, int64_t number)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return rc;
    if (text)
        sqlite3_bind_text(stmt, 1, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_int64(stmt, 1, number);
    rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The distinct families of db's measurements, malloc'ed, in *families (each malloc'ed). */
static int list_families(sqlite3 *db, char ***families, size_t *count)
{
    *families = NULL;
    *count = 0;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT DISTINCT family FROM measurements", -1, &stmt, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        char **grown = realloc(*families, (*count + 1) * sizeof *grown);
        if (!grown) {
            rc = SQLITE_NOMEM;
            break;
        }
        *families = grown;
        if (!(grown[*count] = strdup((const char *)sqlite3_column_text(stmt, 0)))) {
            rc = SQLITE_NOMEM;
            break;
        }
        (*count)++;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Rows of a family whose template hash differs from the template the context sees now;
 * every hashed row of a family that has no template any more. */
static int prune_template_hashes(w8a8_context *ctx, sqlite3 *db)
{
    char **families = NULL;
    size_t count = 0;
    sqlite3_stmt *remove = NULL;
    int rc = list_families(db, &families, &count);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db,
                                "DELETE FROM measurements WHERE family = ?1 AND template_hash <> ''"
                                " AND (?2 IS NULL OR template_hash <> ?2)",
                                -1, &remove, NULL);
    for (size_t i = 0; i < count && rc == SQLITE_OK; i++) {
        char hash[65];
        sqlite3_bind_text(remove, 1, families[i], -1, SQLITE_TRANSIENT);
        if (cache_template_hash(ctx, families[i], hash) == W8A8_OK)
            sqlite3_bind_text(remove, 2, hash, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(remove, 2);
        rc = sqlite3_step(remove);
        rc = rc == SQLITE_DONE ? sqlite3_reset(remove) : rc;
    }
    for (size_t i = 0; i < count; i++)
        free(families[i]);
    free(families);
    sqlite3_finalize(remove);
    error_clear(ctx); /* a family without a template is an answer here, not an error */
    return rc;
}

static int prune_rows(w8a8_context *ctx, sqlite3 *db, const w8a8_cache_prune_options *o)
{
    int rc = SQLITE_OK;
    int nvrtc = cache_nvrtc_version();
    if (o->stale) {
        rc = prune_template_hashes(ctx, db);
        if (rc == SQLITE_OK && nvrtc != 0)
            rc = run_bound(db, "DELETE FROM measurements WHERE nvrtc_version <> 0"
                               " AND nvrtc_version <> ?1", NULL, nvrtc);
        if (rc == SQLITE_OK)
            rc = run_bound(db, "DELETE FROM measurements WHERE lib_version <> ''"
                               " AND lib_version <> ?1",
                           W8A8JIT_VERSION_STRING, 0);
    }
    if (rc == SQLITE_OK && o->older_than > 0)
        rc = run_bound(db, "DELETE FROM measurements WHERE timestamp < ?1", NULL, o->older_than);
    if (rc == SQLITE_OK && o->keep_winners)
        rc = cache_exec(db, "DELETE FROM measurements WHERE id NOT IN (SELECT id FROM winners)",
                        NULL, 0);
    if (rc == SQLITE_OK)
        rc = cache_exec(db,
                        "DELETE FROM problems WHERE id NOT IN (SELECT problem_id FROM measurements)"
                        " AND id NOT IN (SELECT problem_id FROM untuned);"
                        "DELETE FROM devices WHERE id NOT IN (SELECT device_id FROM problems);",
                        NULL, 0);
    return rc;
}

w8a8_status w8a8_cache_prune(w8a8_context *ctx, const w8a8_cache_prune_options *options,
                             int64_t *removed)
{
    if (removed)
        *removed = 0;
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!options || !(options->keep_winners || options->stale || options->older_than > 0))
        return errorf(ctx, W8A8_INVALID, "options: set keep_winners, stale or older_than");
    error_clear(ctx);
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    sqlite3 *db = store->user.db;
    if (db && !store->user_unusable) {
        int64_t before = 0, after = 0;
        int rc = cache_begin(db);
        if (rc == SQLITE_OK && (rc = count_measurements(db, &before)) == SQLITE_OK &&
            (rc = prune_rows(ctx, db, options)) == SQLITE_OK &&
            (rc = count_measurements(db, &after)) == SQLITE_OK)
            rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) {
            st = errorf(ctx, W8A8_CACHE_ERROR, "cannot prune %s: %s", store->user.path,
                        sqlite3_errmsg(db));
            if (!sqlite3_get_autocommit(db))
                sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        } else if (removed) {
            *removed = before - after;
        }
    } else if (store->user_unusable) {
        st = errorf(ctx, W8A8_CACHE_ERROR, "the tuning database %s cannot be written: %s",
                    store->user.path, store->user_why);
    }
    pthread_mutex_unlock(&store->mutex);
    return st;
}
