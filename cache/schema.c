/* The tuning database's schema, its migrations, and how files are looked at and opened.
 *
 * Tables: devices (arch, product name, SM count, memory), problems (the key columns of
 * DESIGN.md, one row per device × problem class × M bucket), measurements (every timed
 * candidate), untuned (record mode's misses). Derived objects, dropped and recreated by every
 * migration: the winners view (best verified "ok" row per problem), the measurement_rows view
 * (every measurement with its key, denormalized) and its INSTEAD OF INSERT trigger, which is
 * how exported and shipped .sql files insert rows (deduplicated, see below).
 *
 * Versions (PRAGMA user_version): 1 = first release (no template_hash, no untuned table);
 * 2 = adds them, and a partial index that makes the winner of a key a short scan;
 * 3 = the problem key gains `accum` ('fast' or 'promoted', w8a8_accum; every older row is
 * 'fast', which is what it measured); 4 = current: the winners view's rule for rows of few
 * samples (cache_impl.h, CACHE_MOST_SAMPLED). A new database is created at version 1 and
 * migrated, so the migration path runs every time a database is made. application_id marks our files; a file without it is
 * foreign and never written.
 *
 * A file is probed read-only before anything opens it for writing: a garbage, truncated,
 * foreign or newer file is reported and left byte-identical. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cache_impl.h"

/* The first 16 bytes of every SQLite 3 database file. */
#define SQLITE_MAGIC "SQLite format 3"
#define SQLITE_MAGIC_BYTES 16
#define WAL_RETRIES 50
#define WAL_RETRY_NS 20000000L

/* ---- the schema ----------------------------------------------------------------------------- */

/* The problem key's columns as version 1 made them (version 3 adds accum). */
#define PROBLEM_COLUMNS_V1                                                                     \
    " id INTEGER PRIMARY KEY, device_id INTEGER NOT NULL REFERENCES devices(id),"              \
    " a_type TEXT NOT NULL, b_type TEXT NOT NULL, out_type TEXT NOT NULL,"                     \
    " bias_type TEXT NOT NULL, a_scale TEXT NOT NULL, b_scale TEXT NOT NULL,"                  \
    " a_group_rows INTEGER NOT NULL, a_group_k INTEGER NOT NULL,"                               \
    " b_group_rows INTEGER NOT NULL, b_group_k INTEGER NOT NULL, a_k_major INTEGER NOT NULL,"   \
    " azp TEXT NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL, m_bucket INTEGER NOT NULL,"

static const char schema_v1[] =
    "CREATE TABLE devices ("
    " id INTEGER PRIMARY KEY, arch TEXT NOT NULL, name TEXT NOT NULL,"
    " sm_count INTEGER NOT NULL, memory_bytes INTEGER NOT NULL,"
    " UNIQUE (arch, name, sm_count, memory_bytes));"
    "CREATE TABLE problems ("
    PROBLEM_COLUMNS_V1
    " UNIQUE (device_id, a_type, b_type, out_type, bias_type, a_scale, b_scale,"
    "  a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp, n, k, m_bucket));"
    "CREATE TABLE measurements ("
    " id INTEGER PRIMARY KEY, problem_id INTEGER NOT NULL REFERENCES problems(id),"
    " family TEXT NOT NULL, config TEXT NOT NULL, median_us REAL, spread_us REAL,"
    " samples INTEGER NOT NULL DEFAULT 0, verify_error REAL,"
    " verified INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL,"
    " registers INTEGER NOT NULL DEFAULT 0, spills INTEGER NOT NULL DEFAULT 0,"
    " compile_ms REAL NOT NULL DEFAULT 0, driver_version INTEGER NOT NULL DEFAULT 0,"
    " nvrtc_version INTEGER NOT NULL DEFAULT 0, lib_version TEXT NOT NULL DEFAULT '',"
    " timestamp INTEGER NOT NULL);"
    "CREATE INDEX measurements_by_key ON measurements (problem_id, family, config, timestamp);"
    "CREATE VIEW winners AS SELECT problem_id, family, config, min(median_us) AS median_us"
    " FROM measurements WHERE status = 'ok' GROUP BY problem_id;";

/* Migration i (1-based) takes a database from version i to i + 1. */
static const char *const migrations[] = {
    /* 1 → 2: rows record their template's content hash; record mode's table. */
    "ALTER TABLE measurements ADD COLUMN template_hash TEXT NOT NULL DEFAULT '';"
    "CREATE TABLE untuned ("
    " problem_id INTEGER PRIMARY KEY REFERENCES problems(id),"
    " count INTEGER NOT NULL DEFAULT 0, last_m INTEGER NOT NULL DEFAULT 0,"
    " first_seen INTEGER NOT NULL DEFAULT 0, last_seen INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX measurements_by_speed ON measurements (problem_id, median_us)"
    " WHERE " CACHE_WINNER_FILTER ";",
    /* 2 → 3: accum joins the key, so the problems table is rebuilt with it in its UNIQUE
     * constraint (SQLite cannot alter one); ids stay, so measurements and untuned rows keep
     * pointing at their problems. The views go first: they name the old table. */
    "DROP VIEW IF EXISTS winners;"
    "DROP VIEW IF EXISTS measurement_rows;"
    "CREATE TABLE problems_v3 ("
    PROBLEM_COLUMNS_V1
    " accum TEXT NOT NULL DEFAULT 'fast',"
    " UNIQUE (device_id, a_type, b_type, out_type, bias_type, a_scale, b_scale,"
    "  a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp, n, k, m_bucket,"
    "  accum));"
    "INSERT INTO problems_v3 SELECT *, 'fast' FROM problems;"
    "DROP TABLE problems;"
    "ALTER TABLE problems_v3 RENAME TO problems;",
    /* 3 → 4: no table changes; the winners view is made again (as after every migration)
     * with the rule that a row with fewer than half the samples of the key's best-sampled
     * one gives way (CACHE_MOST_SAMPLED; before, only to rows of its own config). */
    "SELECT 1;",
};
_Static_assert(sizeof migrations / sizeof migrations[0] == CACHE_SCHEMA_VERSION - 1,
               "one migration per schema version");

/* The key of NEW in the trigger, matched against devices d and problems p. */
#define NEW_DEVICE_MATCH(D)                                                                    \
    D ".arch = NEW.arch AND " D ".name = NEW.device_name AND " D ".sm_count = NEW.sm_count"    \
      " AND " D ".memory_bytes = NEW.memory_bytes"
#define NEW_PROBLEM_MATCH(P)                                                                   \
    P ".a_type = NEW.a_type AND " P ".b_type = NEW.b_type AND " P ".out_type = NEW.out_type"   \
      " AND " P ".bias_type = coalesce(NEW.bias_type, 'none') AND " P ".a_scale = NEW.a_scale" \
      " AND " P ".b_scale = NEW.b_scale AND " P ".a_group_rows = coalesce(NEW.a_group_rows, 0)" \
      " AND " P ".a_group_k = coalesce(NEW.a_group_k, 0)"                                      \
      " AND " P ".b_group_rows = coalesce(NEW.b_group_rows, 0)"                                \
      " AND " P ".b_group_k = coalesce(NEW.b_group_k, 0)"                                      \
      " AND " P ".a_k_major = coalesce(NEW.a_k_major, 0) AND " P ".azp = coalesce(NEW.azp, 'none')" \
      " AND " P ".n = NEW.n AND " P ".k = NEW.k AND " P ".m_bucket = NEW.m_bucket"             \
      " AND " P ".accum = coalesce(NEW.accum, 'fast')"

/* Views and triggers of the current version. An inserted row is a duplicate (and skipped)
 * when its key, family, config, timestamp, median and sample count equal an existing row's:
 * merging a file twice adds nothing, while two distinct measurements of one config in the
 * same second (a quick pass, then a longer one) both survive. */
static const char derived_objects[] =
    "DROP VIEW IF EXISTS winners;"
    "DROP VIEW IF EXISTS measurement_rows;"
    "CREATE VIEW winners AS SELECT * FROM (SELECT m.*, row_number() OVER"
    " (PARTITION BY problem_id ORDER BY " CACHE_WINNER_ORDER ") AS place"
    " FROM measurements m WHERE " CACHE_WINNER_FILTER " AND " CACHE_NEVER_HUNG("m")
    " AND " CACHE_MOST_SAMPLED("m") ") WHERE place = 1;"
    "CREATE VIEW measurement_rows AS SELECT"
    " d.arch AS arch, d.name AS device_name, d.sm_count AS sm_count,"
    " d.memory_bytes AS memory_bytes, p.a_type AS a_type, p.b_type AS b_type,"
    " p.out_type AS out_type, p.bias_type AS bias_type, p.a_scale AS a_scale,"
    " p.b_scale AS b_scale, p.a_group_rows AS a_group_rows, p.a_group_k AS a_group_k,"
    " p.b_group_rows AS b_group_rows, p.b_group_k AS b_group_k, p.a_k_major AS a_k_major,"
    " p.azp AS azp, p.n AS n, p.k AS k, p.m_bucket AS m_bucket, p.accum AS accum,"
    " m.family AS family, m.config AS config, m.median_us AS median_us,"
    " m.spread_us AS spread_us, m.samples AS samples, m.verify_error AS verify_error,"
    " m.verified AS verified, m.status AS status, m.registers AS registers,"
    " m.spills AS spills, m.compile_ms AS compile_ms, m.template_hash AS template_hash,"
    " m.driver_version AS driver_version, m.nvrtc_version AS nvrtc_version,"
    " m.lib_version AS lib_version, m.timestamp AS timestamp,"
    " m.id AS measurement_id, p.id AS problem_id"
    " FROM measurements m JOIN problems p ON p.id = m.problem_id"
    " JOIN devices d ON d.id = p.device_id;"
    "CREATE TRIGGER measurement_rows_insert INSTEAD OF INSERT ON measurement_rows BEGIN"
    " INSERT OR IGNORE INTO devices (arch, name, sm_count, memory_bytes)"
    "  VALUES (NEW.arch, NEW.device_name, NEW.sm_count, NEW.memory_bytes);"
    " INSERT OR IGNORE INTO problems (device_id, a_type, b_type, out_type, bias_type,"
    "  a_scale, b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp,"
    "  n, k, m_bucket, accum)"
    "  SELECT d.id, NEW.a_type, NEW.b_type, NEW.out_type, coalesce(NEW.bias_type, 'none'),"
    "  NEW.a_scale, NEW.b_scale, coalesce(NEW.a_group_rows, 0), coalesce(NEW.a_group_k, 0),"
    "  coalesce(NEW.b_group_rows, 0), coalesce(NEW.b_group_k, 0), coalesce(NEW.a_k_major, 0),"
    "  coalesce(NEW.azp, 'none'), NEW.n, NEW.k, NEW.m_bucket, coalesce(NEW.accum, 'fast')"
    "  FROM devices d WHERE " NEW_DEVICE_MATCH("d") ";"
    " INSERT INTO measurements (problem_id, family, config, median_us, spread_us, samples,"
    "  verify_error, verified, status, registers, spills, compile_ms, template_hash,"
    "  driver_version, nvrtc_version, lib_version, timestamp)"
    "  SELECT p.id, NEW.family, NEW.config, NEW.median_us, NEW.spread_us,"
    "  coalesce(NEW.samples, 0), NEW.verify_error, coalesce(NEW.verified, 0), NEW.status,"
    "  coalesce(NEW.registers, 0), coalesce(NEW.spills, 0), coalesce(NEW.compile_ms, 0),"
    "  coalesce(NEW.template_hash, ''), coalesce(NEW.driver_version, 0),"
    "  coalesce(NEW.nvrtc_version, 0), coalesce(NEW.lib_version, ''), NEW.timestamp"
    "  FROM problems p JOIN devices d ON d.id = p.device_id"
    "  WHERE " NEW_DEVICE_MATCH("d") " AND " NEW_PROBLEM_MATCH("p")
    "  AND NOT EXISTS (SELECT 1 FROM measurements x WHERE x.problem_id = p.id"
    "   AND x.family = NEW.family AND x.config = NEW.config AND x.timestamp = NEW.timestamp"
    "   AND x.median_us IS NEW.median_us AND x.samples IS coalesce(NEW.samples, 0));"
    "END;";

/* ---- small helpers -------------------------------------------------------------------------- */

int cache_exec(sqlite3 *db, const char *sql, char *why, size_t why_size)
{
    char *message = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &message);
    if (rc != SQLITE_OK && why)
        snprintf(why, why_size, "%s", message ? message : sqlite3_errstr(rc));
    sqlite3_free(message);
    return rc;
}

/* One integer from a one-row query; SQLite code. */
static int query_int(sqlite3 *db, const char *sql, int64_t *value)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW) {
            *value = sqlite3_column_int64(stmt, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_CORRUPT; /* the pragmas always answer */
        }
    }
    sqlite3_finalize(stmt);
    return rc;
}

int cache_schema_version(sqlite3 *db, int *version)
{
    int64_t value = 0;
    int rc = query_int(db, "PRAGMA user_version", &value);
    *version = (int)value;
    return rc;
}

int cache_begin(sqlite3 *db)
{
    int rc = SQLITE_OK;
    for (int attempt = 0; attempt <= CACHE_BEGIN_RETRIES; attempt++) {
        rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            return rc;
        /* the busy timeout has already waited; back off a little more, differently per pid */
        struct timespec pause = {0, (long)(1000000 * (1 + attempt * 7 % 13))};
        nanosleep(&pause, NULL);
    }
    return rc;
}

/* ---- probing -------------------------------------------------------------------------------- */

int cache_open_readonly(const char *path, sqlite3 **db)
{
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_extended_result_codes(*db, 1);
        sqlite3_busy_timeout(*db, CACHE_BUSY_TIMEOUT_MS);
    }
    return rc;
}

/* Reads the magic string without SQLite so garbage gets a clear message. */
static bool has_sqlite_magic(const char *path)
{
    char header[SQLITE_MAGIC_BYTES] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t got = fread(header, 1, sizeof header, f);
    fclose(f);
    return got == sizeof header && memcmp(header, SQLITE_MAGIC, sizeof header) == 0;
}

/* The checks that need SQLite, on a read-only connection. */
static cache_file_kind probe_open(sqlite3 *db, int *version, char *why, size_t why_size)
{
    int64_t app_id = 0, user_version = 0, objects = 0;
    int rc = query_int(db, "PRAGMA application_id", &app_id);
    if (rc == SQLITE_OK)
        rc = query_int(db, "PRAGMA user_version", &user_version);
    if (rc == SQLITE_OK)
        rc = query_int(db, "SELECT count(*) FROM sqlite_schema", &objects);
    if (rc != SQLITE_OK) {
        snprintf(why, why_size, "unreadable: %s", sqlite3_errmsg(db));
        return CACHE_FILE_BAD;
    }
    if (app_id == 0 && user_version == 0 && objects == 0)
        return CACHE_FILE_EMPTY;
    if ((uint32_t)app_id != CACHE_APPLICATION_ID) {
        snprintf(why, why_size, "a foreign SQLite database (application_id 0x%08x, not w8a8jit's)",
                 (unsigned)(uint32_t)app_id);
        return CACHE_FILE_BAD;
    }
    if (user_version < 1 || user_version > CACHE_SCHEMA_VERSION) {
        snprintf(why, why_size, "schema version %lld is %s (this build reads 1 to %d)",
                 (long long)user_version, user_version < 1 ? "invalid" : "newer than this build",
                 CACHE_SCHEMA_VERSION);
        return CACHE_FILE_BAD;
    }
    sqlite3_stmt *stmt = NULL;
    rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt);
    const char *verdict = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(stmt, 0) : NULL;
    bool ok = verdict && strcmp(verdict, "ok") == 0;
    if (!ok)
        snprintf(why, why_size, "corrupt (quick_check: %s)",
                 verdict ? verdict : sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    *version = (int)user_version;
    return ok ? CACHE_FILE_OURS : CACHE_FILE_BAD;
}

cache_file_kind cache_probe(const char *path, int *version, char *why, size_t why_size)
{
    struct stat st;
    *version = 0;
    why[0] = '\0';
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return CACHE_FILE_ABSENT;
        snprintf(why, why_size, "cannot read it: %s", strerror(errno));
        return CACHE_FILE_BAD;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "not a regular file");
        return CACHE_FILE_BAD;
    }
    if (st.st_size == 0)
        return CACHE_FILE_EMPTY;
    if (!has_sqlite_magic(path)) {
        snprintf(why, why_size, "not an SQLite database (garbage or truncated header)");
        return CACHE_FILE_BAD;
    }
    sqlite3 *db = NULL;
    int rc = cache_open_readonly(path, &db);
    cache_file_kind kind = CACHE_FILE_BAD;
    if (rc == SQLITE_OK)
        kind = probe_open(db, version, why, why_size);
    else
        snprintf(why, why_size, "cannot open it: %s", sqlite3_errstr(rc));
    sqlite3_close(db);
    return kind;
}

/* ---- schema creation and migration ---------------------------------------------------------- */

/* Inside a write transaction: creates version 1 in an empty database, then migrates. */
static int schema_upgrade(sqlite3 *db, char *why, size_t why_size)
{
    int64_t app_id = 0, objects = 0;
    int version = 0;
    int rc = query_int(db, "PRAGMA application_id", &app_id);
    if (rc == SQLITE_OK)
        rc = cache_schema_version(db, &version);
    if (rc == SQLITE_OK)
        rc = query_int(db, "SELECT count(*) FROM sqlite_schema", &objects);
    if (rc != SQLITE_OK) {
        snprintf(why, why_size, "%s", sqlite3_errmsg(db));
        return rc;
    }
    if (version == 0) {
        if (objects != 0 || (app_id != 0 && (uint32_t)app_id != CACHE_APPLICATION_ID)) {
            snprintf(why, why_size, "a foreign SQLite database; not touching it");
            return SQLITE_NOTADB;
        }
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA application_id = %d", (int)CACHE_APPLICATION_ID);
        if ((rc = cache_exec(db, sql, why, why_size)) != SQLITE_OK ||
            (rc = cache_exec(db, schema_v1, why, why_size)) != SQLITE_OK)
            return rc;
        version = 1;
    } else if ((uint32_t)app_id != CACHE_APPLICATION_ID || version > CACHE_SCHEMA_VERSION) {
        snprintf(why, why_size, "not a w8a8jit database of schema version 1 to %d",
                 CACHE_SCHEMA_VERSION);
        return SQLITE_NOTADB;
    }
    if (version == CACHE_SCHEMA_VERSION)
        return SQLITE_OK;
    for (; version < CACHE_SCHEMA_VERSION; version++)
        if ((rc = cache_exec(db, migrations[version - 1], why, why_size)) != SQLITE_OK)
            return rc;
    if ((rc = cache_exec(db, derived_objects, why, why_size)) != SQLITE_OK)
        return rc;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", CACHE_SCHEMA_VERSION);
    return cache_exec(db, sql, why, why_size);
}

/* Brings db to the current schema; a no-op without the write lock when it already is. */
static int schema_ensure(sqlite3 *db, char *why, size_t why_size)
{
    int64_t app_id = 0;
    int version = 0;
    if (query_int(db, "PRAGMA application_id", &app_id) == SQLITE_OK &&
        cache_schema_version(db, &version) == SQLITE_OK &&
        (uint32_t)app_id == CACHE_APPLICATION_ID && version == CACHE_SCHEMA_VERSION)
        return SQLITE_OK;
    int rc = cache_begin(db);
    if (rc != SQLITE_OK) {
        snprintf(why, why_size, "cannot lock it: %s", sqlite3_errmsg(db));
        return rc;
    }
    rc = schema_upgrade(db, why, why_size);
    if (rc == SQLITE_OK)
        rc = cache_exec(db, "COMMIT", why, why_size);
    if (rc != SQLITE_OK)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* WAL lets readers run beside one writer; switching needs a moment without other writers. */
static int set_wal(sqlite3 *db, char *why, size_t why_size)
{
    int rc = SQLITE_OK;
    for (int attempt = 0; attempt < WAL_RETRIES; attempt++) {
        rc = cache_exec(db, "PRAGMA journal_mode = WAL", why, why_size);
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            break;
        struct timespec pause = {0, WAL_RETRY_NS};
        nanosleep(&pause, NULL);
    }
    return rc;
}

/* The folder part of path, created if missing; 0 or an errno. */
static int make_parent(const char *path)
{
    char folder[W8A8_PATH_BYTES];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (!slash || slash == folder)
        return 0;
    *slash = '\0';
    return util_mkdirs(folder);
}

int cache_open_writable(const char *path, sqlite3 **db, char *why, size_t why_size)
{
    *db = NULL;
    int err = make_parent(path);
    if (err != 0) {
        snprintf(why, why_size, "cannot create its folder: %s", strerror(err));
        return SQLITE_CANTOPEN;
    }
    int rc = sqlite3_open_v2(path, db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(why, why_size, "cannot open it: %s", sqlite3_errstr(rc));
        sqlite3_close(*db);
        *db = NULL;
        return rc;
    }
    sqlite3_extended_result_codes(*db, 1);
    sqlite3_busy_timeout(*db, CACHE_BUSY_TIMEOUT_MS);
    rc = set_wal(*db, why, why_size);
    if (rc == SQLITE_OK)
        rc = cache_exec(*db, "PRAGMA synchronous = NORMAL", why, why_size);
    if (rc == SQLITE_OK)
        rc = schema_ensure(*db, why, why_size);
    if (rc != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
    }
    return rc;
}

int cache_open_memory(sqlite3 **db, char *why, size_t why_size)
{
    int rc = sqlite3_open_v2(":memory:", db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        rc = schema_ensure(*db, why, why_size);
    else
        snprintf(why, why_size, "%s", sqlite3_errstr(rc));
    if (rc != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
    }
    return rc;
}

int cache_open_migrated_copy(sqlite3 *src, sqlite3 **db, char *why, size_t why_size)
{
    int rc = sqlite3_open_v2(":memory:", db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *copy = sqlite3_backup_init(*db, "main", src, "main");
        if (!copy) {
            rc = sqlite3_errcode(*db);
        } else {
            sqlite3_backup_step(copy, -1);
            rc = sqlite3_backup_finish(copy);
        }
        if (rc != SQLITE_OK)
            snprintf(why, why_size, "cannot copy it: %s", sqlite3_errmsg(*db));
    }
    if (rc == SQLITE_OK)
        rc = schema_ensure(*db, why, why_size);
    if (rc != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
    }
    return rc;
}

/* ---- restricted execution of .sql files ----------------------------------------------------- */

/* Top level: INSERT into measurement_rows only. Inside our trigger: its inserts, reads and
 * coalesce(). Everything else (ATTACH, PRAGMA, DDL, DELETE, transactions, functions at the
 * top level) is refused, so a shipped or downloaded .sql file can add rows and nothing else. */
static int import_authorizer(void *user, int action, const char *a, const char *b,
                             const char *database, const char *trigger)
{
    (void)user;
    (void)b;
    (void)database;
    if (!trigger)
        return action == SQLITE_INSERT && a && strcmp(a, "measurement_rows") == 0 ? SQLITE_OK
                                                                                  : SQLITE_DENY;
    switch (action) {
    case SQLITE_INSERT:
    case SQLITE_READ:
    case SQLITE_SELECT:
        return SQLITE_OK;
    case SQLITE_FUNCTION:
        return b && strcmp(b, "coalesce") == 0 ? SQLITE_OK : SQLITE_DENY;
    default:
        return SQLITE_DENY;
    }
}

int cache_exec_restricted(sqlite3 *db, const char *sql, char *why, size_t why_size)
{
    sqlite3_set_authorizer(db, import_authorizer, NULL);
    int rc = cache_exec(db, sql, why, why_size);
    sqlite3_set_authorizer(db, NULL, NULL);
    return rc;
}
