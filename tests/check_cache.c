/* The tuning cache (cache/): concurrent writers, damaged and foreign files, migration,
 * the lookup's fallback chain, layers, export/import, merge, prune, record mode. CPU only. */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "testutil.h"

#define TEST_ARCH "sm_99"     /* no real device or shipped row has it */
#define GIB (1024ull * 1024 * 1024)

/* ---- helpers -------------------------------------------------------------------------------- */

static w8a8_context *open_cache_ctx(const char *db, const char *cache_path)
{
    w8a8_context_options o = {0};
    o.cache_db = db;
    o.cache_path = cache_path ? cache_path : "";
    o.flags = W8A8_CONTEXT_CPU_ONLY;
    w8a8_context *ctx = NULL;
    w8a8_status st = w8a8_context_open(&ctx, &o);
    ck_assert_msg(st == W8A8_OK, "w8a8_context_open: %s", w8a8_errmsg(ctx));
    /* an empty option falls back to $W8A8_CACHE_PATH; tests want exactly their layers */
    snprintf(ctx->cache_path, sizeof ctx->cache_path, "%s", cache_path ? cache_path : "");
    return ctx;
}

/* A context on a new user database in a fresh temporary folder (its path into db), no other
 * layer. */
static w8a8_context *open_fresh_cache(char db[640])
{
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    snprintf(db, 640, "%s/tuning.db", dir);
    return open_cache_ctx(db, NULL);
}

static cache_device device_of(const char *arch, const char *name, int sms, uint64_t memory)
{
    cache_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.arch, sizeof d.arch, "%s", arch);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.sm_count = sms;
    d.memory_bytes = memory;
    return d;
}

static const cache_device *dev_x100(void)
{
    static cache_device d;
    d = device_of(TEST_ARCH, "Test GPU X", 100, 80 * GIB);
    return &d;
}

static cache_key key_of(const cache_device *d, int64_t m, int64_t n, int64_t k)
{
    w8a8_problem p;
    w8a8_problem_init(&p, m, n, k, W8A8_E4M3, W8A8_BF16);
    cache_key key;
    cache_key_make(&key, &p, d);
    return key;
}

static cache_measurement meas_of(const char *family, const char *config, double median_us,
                                 int64_t timestamp)
{
    cache_measurement m;
    memset(&m, 0, sizeof m);
    snprintf(m.family, sizeof m.family, "%s", family);
    snprintf(m.config, sizeof m.config, "%s", config);
    m.median_us = median_us;
    m.spread_us = median_us / 3.0;
    m.samples = 25;
    m.verify_error = 1.0 / 7.0 * 1e-3;
    m.verified = 1;
    snprintf(m.status, sizeof m.status, "ok");
    m.registers = 168;
    m.compile_ms = 1234.5;
    snprintf(m.template_hash, sizeof m.template_hash, "%064d", 7);
    m.driver_version = 12080;
    m.nvrtc_version = cache_nvrtc_version();
    snprintf(m.lib_version, sizeof m.lib_version, "%s", W8A8JIT_VERSION_STRING);
    m.timestamp = timestamp;
    return m;
}

static void put(w8a8_context *ctx, const cache_key *key, const char *config, double median,
                int64_t timestamp)
{
    cache_measurement m = meas_of("fam_a", config, median, timestamp);
    w8a8_status st = cache_put_measurement(ctx, key, &m);
    ck_assert_msg(st == W8A8_OK, "cache_put_measurement: %s", w8a8_errmsg(ctx));
}

/* count(*) of a table through a separate read-only connection. */
static int64_t count_rows(const char *path, const char *table)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    sqlite3_stmt *stmt = NULL;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK, "%s",
                  sqlite3_errmsg(db));
    ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
    int64_t count = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return count;
}

static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *message = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &message);
    ck_assert_msg(rc == SQLITE_OK, "%s", message ? message : "?");
    sqlite3_close(db);
}

static char *slurp(const char *path, size_t *size)
{
    char *data = NULL;
    ck_assert_int_eq(util_read_file(path, &data, size), 0);
    return data;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    fclose(f);
}

static cache_winner lookup(w8a8_context *ctx, const cache_key *key)
{
    cache_winner w;
    w8a8_status st = cache_lookup(ctx, key, &w);
    ck_assert_msg(st == W8A8_OK, "cache_lookup: %s", w8a8_errmsg(ctx));
    return w;
}

/* ---- buckets -------------------------------------------------------------------------------- */

START_TEST(test_m_bucket)
{
    ck_assert_int_eq(cache_m_bucket(1), 1);
    ck_assert_int_eq(cache_m_bucket(3), 4);
    ck_assert_int_eq(cache_m_bucket(17), 24);
    ck_assert_int_eq(cache_m_bucket(97), 128);
    ck_assert_int_eq(cache_m_bucket(129), 192);
    ck_assert_int_eq(cache_m_bucket(6144), 6144);
    ck_assert_int_eq(cache_m_bucket(6145), 8192);
    ck_assert_int_eq(cache_m_bucket(16384), 16384);
    ck_assert_int_eq(cache_m_bucket(1000000), 16384);
}
END_TEST

/* ---- concurrency ---------------------------------------------------------------------------- */

#define WRITERS 4
#define ROWS_PER_WRITER 1000

static int writer_main(const char *db, int id, int start_fd)
{
    char go;
    if (read(start_fd, &go, 1) != 1)
        return 3;
    w8a8_context *ctx = NULL;
    w8a8_context_options o = {.cache_db = db, .flags = W8A8_CONTEXT_CPU_ONLY};
    if (w8a8_context_open(&ctx, &o) != W8A8_OK)
        return 2;
    for (int i = 0; i < ROWS_PER_WRITER; i++) {
        cache_key key = key_of(dev_x100(), 1 + i % 300, 4096, 4096);
        char config[64];
        snprintf(config, sizeof config, "writer=%d,row=%d", id, i);
        cache_measurement m = meas_of("fam_a", config, 10.0 + i, 1700000000 + i);
        if (cache_put_measurement(ctx, &key, &m) != W8A8_OK) {
            fprintf(stderr, "writer %d row %d: %s\n", id, i, w8a8_errmsg(ctx));
            w8a8_context_close(ctx);
            return 1;
        }
    }
    w8a8_context_close(ctx);
    return 0;
}

START_TEST(test_concurrent_writers)
{
    char dir[512], db[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(db, sizeof db, "%s/sub/folder/tuning.db", dir); /* folders created on write */
    int start[2];
    ck_assert_int_eq(pipe(start), 0);
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        ck_assert_int_ge(pids[w], 0);
        if (pids[w] == 0) {
            close(start[1]);
            _exit(writer_main(db, w, start[0]));
        }
    }
    close(start[0]);
    char go[WRITERS] = {0};
    ck_assert_int_eq(write(start[1], go, WRITERS), WRITERS); /* all start at once */
    close(start[1]);
    for (int w = 0; w < WRITERS; w++) {
        int status = 0;
        ck_assert_int_eq(waitpid(pids[w], &status, 0), pids[w]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed (%d)", w,
                      status);
    }
    ck_assert_int_eq(count_rows(db, "measurements"), WRITERS * ROWS_PER_WRITER);
    ck_assert_int_eq(count_rows(db, "devices"), 1);
}
END_TEST

/* ---- damaged and foreign files -------------------------------------------------------------- */

/* A real database of ours with enough rows to span many pages. */
static void make_db(const char *path, int rows)
{
    w8a8_context *ctx = open_cache_ctx(path, NULL);
    for (int i = 0; i < rows; i++) {
        cache_key key = key_of(dev_x100(), 1 + i, 4096, 4096);
        char config[200];
        snprintf(config, sizeof config, "block_m=%d,padding=%0100d", i, i);
        put(ctx, &key, config, 5.0 + i, 1700000000 + i);
    }
    w8a8_context_close(ctx);
}

typedef struct bad_file {
    char path[700];
    char *bytes;
    size_t size;
} bad_file;

static void make_bad_files(const char *dir, bad_file files[3])
{
    /* garbage */
    snprintf(files[0].path, sizeof files[0].path, "%s/garbage.db", dir);
    test_rng rng;
    test_rng_seed(&rng, 42);
    unsigned char noise[8192];
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (unsigned char)test_rng_next(&rng);
    write_bytes(files[0].path, noise, sizeof noise);
    /* truncated: a real database cut in half */
    char whole[700];
    snprintf(whole, sizeof whole, "%s/whole.db", dir);
    make_db(whole, 600);
    size_t size = 0;
    char *data = slurp(whole, &size);
    snprintf(files[1].path, sizeof files[1].path, "%s/truncated.db", dir);
    write_bytes(files[1].path, data, size / 2);
    free(data);
    unlink(whole);
    /* another application's SQLite database */
    snprintf(files[2].path, sizeof files[2].path, "%s/foreign.db", dir);
    exec_sql(files[2].path, "PRAGMA application_id = 1234; CREATE TABLE notes (text TEXT);"
                            "INSERT INTO notes VALUES ('keep me');");
    for (int i = 0; i < 3; i++)
        files[i].bytes = slurp(files[i].path, &files[i].size);
}

static void assert_unchanged(const bad_file *f)
{
    size_t size = 0;
    char *now = slurp(f->path, &size);
    ck_assert_msg(size == f->size && memcmp(now, f->bytes, size) == 0, "%s was modified",
                  f->path);
    free(now);
}

START_TEST(test_bad_files_skipped)
{
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    bad_file files[3];
    make_bad_files(dir, files);
    cache_key key = key_of(dev_x100(), 64, 4096, 4096);
    for (int i = 0; i < 3; i++) {
        /* as a read-only layer beside a good user database */
        char user[700];
        snprintf(user, sizeof user, "%s/user%d.db", dir, i);
        w8a8_context *ctx = open_cache_ctx(user, files[i].path);
        ck_assert_int_eq(cache_open(ctx), W8A8_OK);
        ck_assert_msg(strstr(w8a8_cache_warnings(ctx), files[i].path), "no warning for %s: '%s'",
                      files[i].path, w8a8_cache_warnings(ctx));
        ck_assert_int_eq(lookup(ctx, &key).match, CACHE_MISS);
        put(ctx, &key, "ok", 1.0, 1);
        ck_assert_int_eq(lookup(ctx, &key).match, CACHE_EXACT);
        ck_assert_int_eq(w8a8_cache_import(ctx, files[i].path, NULL), W8A8_CACHE_ERROR);
        w8a8_context_close(ctx);
        /* as the user database: reads miss, writes fail, nothing is touched */
        ctx = open_cache_ctx(files[i].path, NULL);
        ck_assert_int_eq(lookup(ctx, &key).match, CACHE_MISS);
        ck_assert_ptr_nonnull(strstr(w8a8_cache_warnings(ctx), files[i].path));
        cache_measurement m = meas_of("fam_a", "x", 1.0, 1);
        ck_assert_int_eq(cache_put_measurement(ctx, &key, &m), W8A8_CACHE_ERROR);
        ck_assert_int_eq(cache_put_untuned(ctx, &key, 64), W8A8_CACHE_ERROR);
        w8a8_cache_prune_options prune = {.keep_winners = 1};
        ck_assert_int_eq(w8a8_cache_prune(ctx, &prune, NULL), W8A8_CACHE_ERROR);
        const char *src = user;
        ck_assert_int_eq(w8a8_cache_merge(ctx, files[i].path, &src, 1, NULL), W8A8_CACHE_ERROR);
        w8a8_context_close(ctx);
        assert_unchanged(&files[i]);
    }
    /* a folder in the path holding all three beside good ones (the user%d.db files) */
    char user[700];
    snprintf(user, sizeof user, "%s/user-folder.db", dir);
    w8a8_context *ctx = open_cache_ctx(user, dir);
    cache_winner w = lookup(ctx, &key);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_ptr_nonnull(strstr(w.source, "/user0.db"));
    for (int i = 0; i < 3; i++) {
        ck_assert_ptr_nonnull(strstr(w8a8_cache_warnings(ctx), files[i].path));
        assert_unchanged(&files[i]);
        free(files[i].bytes);
    }
    w8a8_context_close(ctx);
}
END_TEST

/* ---- migration ------------------------------------------------------------------------------ */

/* Version 1 as it was released, written by hand (not through the library). */
static const char v1_schema[] =
    "PRAGMA application_id = 1463304504;" /* 0x57384138 */
    "PRAGMA user_version = 1;"
    "CREATE TABLE devices (id INTEGER PRIMARY KEY, arch TEXT NOT NULL, name TEXT NOT NULL,"
    " sm_count INTEGER NOT NULL, memory_bytes INTEGER NOT NULL,"
    " UNIQUE (arch, name, sm_count, memory_bytes));"
    "CREATE TABLE problems (id INTEGER PRIMARY KEY, device_id INTEGER NOT NULL,"
    " a_type TEXT NOT NULL, b_type TEXT NOT NULL, out_type TEXT NOT NULL, bias_type TEXT NOT NULL,"
    " a_scale TEXT NOT NULL, b_scale TEXT NOT NULL, a_group_rows INTEGER NOT NULL,"
    " a_group_k INTEGER NOT NULL, b_group_rows INTEGER NOT NULL, b_group_k INTEGER NOT NULL,"
    " a_k_major INTEGER NOT NULL, azp TEXT NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,"
    " m_bucket INTEGER NOT NULL, UNIQUE (device_id, a_type, b_type, out_type, bias_type,"
    " a_scale, b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp, n, k,"
    " m_bucket));"
    "CREATE TABLE measurements (id INTEGER PRIMARY KEY, problem_id INTEGER NOT NULL,"
    " family TEXT NOT NULL, config TEXT NOT NULL, median_us REAL, spread_us REAL,"
    " samples INTEGER NOT NULL DEFAULT 0, verify_error REAL, verified INTEGER NOT NULL DEFAULT 0,"
    " status TEXT NOT NULL, registers INTEGER NOT NULL DEFAULT 0,"
    " spills INTEGER NOT NULL DEFAULT 0, compile_ms REAL NOT NULL DEFAULT 0,"
    " driver_version INTEGER NOT NULL DEFAULT 0, nvrtc_version INTEGER NOT NULL DEFAULT 0,"
    " lib_version TEXT NOT NULL DEFAULT '', timestamp INTEGER NOT NULL);"
    "CREATE INDEX measurements_by_key ON measurements (problem_id, family, config, timestamp);"
    "CREATE VIEW winners AS SELECT problem_id, family, config, min(median_us) AS median_us"
    " FROM measurements WHERE status = 'ok' GROUP BY problem_id;"
    "INSERT INTO devices VALUES (1, 'sm_99', 'Test GPU X', 100, 85899345920);"
    "INSERT INTO problems VALUES (1, 1, 'e4m3', 'e4m3', 'bf16', 'none', 'tensor', 'tensor',"
    " 0, 0, 0, 0, 0, 'none', 4096, 4096, 64);"
    "INSERT INTO problems VALUES (2, 1, 'e4m3', 'e4m3', 'bf16', 'none', 'tensor', 'tensor',"
    " 0, 0, 0, 0, 0, 'none', 8192, 4096, 64);";

static void make_v1(const char *path)
{
    exec_sql(path, v1_schema);
    char sql[512];
    for (int i = 0; i < 10; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO measurements (id, problem_id, family, config, median_us, spread_us,"
                 " samples, verify_error, verified, status, registers, spills, compile_ms,"
                 " driver_version, nvrtc_version, lib_version, timestamp) VALUES (%d, %d, 'fam_a',"
                 " 'v1cfg=%d', %d.25, 0.5, 9, 0.001, %d, '%s', 128, 0, 99.5, 12040, 12040,"
                 " '0.0.9', %d)",
                 i + 1, 1 + i % 2, i, 20 - i, i != 9, i == 8 ? "verify_failed" : "ok",
                 1600000000 + i);
        exec_sql(path, sql);
    }
}

static int64_t user_version(const char *path)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *stmt = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
    int64_t version = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return version;
}

START_TEST(test_migration_v1)
{
    char dir[512], v1[640], v1_readonly[640], user[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(v1, sizeof v1, "%s/old.db", dir);
    snprintf(v1_readonly, sizeof v1_readonly, "%s/old-shipped.db", dir);
    snprintf(user, sizeof user, "%s/user.db", dir);
    make_v1(v1);
    make_v1(v1_readonly);
    ck_assert_int_eq(user_version(v1), 1);
    size_t before_size = 0;
    char *before = slurp(v1_readonly, &before_size);

    /* as the user database: migrated in place, every row kept with its values */
    w8a8_context *ctx = open_cache_ctx(v1, NULL);
    cache_key key = key_of(dev_x100(), 64, 4096, 4096);
    cache_winner w = lookup(ctx, &key);
    ck_assert_str_eq(w8a8_cache_warnings(ctx), "");
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "v1cfg=6"); /* fastest verified "ok" of problem 1: 14.25 us */
    ck_assert_int_eq(cache_put_untuned(ctx, &key, 50), W8A8_OK); /* the new table works */
    w8a8_context_close(ctx);
    ck_assert_int_eq(user_version(v1), CACHE_SCHEMA_VERSION);
    ck_assert_int_eq(count_rows(v1, "measurements"), 10);
    ck_assert_int_eq(count_rows(v1, "measurements WHERE template_hash = '' AND lib_version ="
                                    " '0.0.9' AND compile_ms = 99.5 AND samples = 9"), 10);
    ck_assert_int_eq(count_rows(v1, "measurements WHERE config = 'v1cfg=3' AND id = 4"
                                    " AND median_us = 17.25 AND timestamp = 1600000003"), 1);
    ck_assert_int_eq(count_rows(v1, "untuned"), 1);
    /* version 3 rebuilt the problems table: ids kept, every old key "fast" */
    ck_assert_int_eq(count_rows(v1, "problems WHERE accum = 'fast'"), 2);
    ck_assert_int_eq(count_rows(v1, "measurements m JOIN problems p ON p.id = m.problem_id"
                                    " WHERE p.n = 8192 AND m.id % 2 = 0"), 5);

    /* as a read-only layer: read through a migrated copy, the file left as it was */
    ctx = open_cache_ctx(user, v1_readonly);
    w = lookup(ctx, &key);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.source, v1_readonly);
    w8a8_context_close(ctx);
    size_t after_size = 0;
    char *after = slurp(v1_readonly, &after_size);
    ck_assert(after_size == before_size && memcmp(before, after, after_size) == 0);
    ck_assert_int_eq(user_version(v1_readonly), 1);
    free(before);
    free(after);
}
END_TEST

/* ---- another epilogue ---------------------------------------------------------------------- */

/* A key whose class has no row takes the same shape's row with another epilogue
 * (CACHE_EPILOGUE): per-tensor / per-row scales swapped (B's kind kept first, then A's, then
 * neither), then a bias's dtype, a bias added or dropped, then the other 16-bit out dtype
 * (fp32 out only from fp32 out); its own class
 * at another bucket comes first; block scales stay block (their out dtype and bias may
 * differ); the asked epilogue and the row's are both known to explain. */
START_TEST(test_epilogue_fallback)
{
    char dir[512], db[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(db, sizeof db, "%s/tuning.db", dir);
    w8a8_context *ctx = open_cache_ctx(db, NULL);
    cache_key tt = key_of(dev_x100(), 16, 4096, 4096); /* tensor × tensor */
    cache_key rr = tt, tr = tt, rt = tt;
    rr.a_scale = rr.b_scale = W8A8_SCALE_ROW;
    tr.b_scale = W8A8_SCALE_ROW;
    rt.a_scale = W8A8_SCALE_ROW;
    ck_assert_int_eq(lookup(ctx, &tr).match, CACHE_MISS);
    put(ctx, &tt, "tensor-tensor", 5.0, 1);
    /* tensor × row: only tensor × tensor holds the shape (A's kind kept) */
    cache_winner w = lookup(ctx, &tr);
    ck_assert_int_eq(w.match, CACHE_EPILOGUE);
    ck_assert_int_eq(w.device_match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "tensor-tensor");
    ck_assert_int_eq(w.a_scale, W8A8_SCALE_TENSOR);
    ck_assert_int_eq(w.b_scale, W8A8_SCALE_TENSOR);
    put(ctx, &rr, "row-row", 6.0, 2);
    /* now B's kind kept first: row × row for tensor × row, tensor × tensor for row × tensor */
    w = lookup(ctx, &tr);
    ck_assert_int_eq(w.match, CACHE_EPILOGUE);
    ck_assert_str_eq(w.config, "row-row");
    ck_assert_int_eq(w.a_scale, W8A8_SCALE_ROW);
    w = lookup(ctx, &rt);
    ck_assert_str_eq(w.config, "tensor-tensor");
    /* a key's own kinds win wherever they are, at any bucket */
    cache_key tr_big = tr;
    tr_big.m_bucket = 4096;
    put(ctx, &tr_big, "tensor-row-4096", 50.0, 3);
    w = lookup(ctx, &tr);
    ck_assert_int_eq(w.match, CACHE_NEAR_BUCKET);
    ck_assert_str_eq(w.config, "tensor-row-4096");
    ck_assert_int_eq(w.b_scale, W8A8_SCALE_ROW);
    /* another shape, operand dtype, zero point or accumulation: nothing to borrow */
    cache_key other = tr;
    other.n = 8192;
    ck_assert_int_eq(lookup(ctx, &other).match, CACHE_MISS);
    other = rt;
    other.a_type = other.b_type = W8A8_E5M2;
    ck_assert_int_eq(lookup(ctx, &other).match, CACHE_MISS);
    other = rt;
    other.accum = W8A8_ACCUM_PROMOTED;
    ck_assert_int_eq(lookup(ctx, &other).match, CACHE_MISS);
    /* out dtype and bias: the scale kinds first, then a bias's dtype, a bias, the out dtype */
    other = rt;
    other.out_type = W8A8_FP16;
    w = lookup(ctx, &other); /* only bf16 rows: the out dtype differs in every one */
    ck_assert_int_eq(w.match, CACHE_EPILOGUE);
    ck_assert_str_eq(w.config, "tensor-tensor");
    ck_assert_int_eq(w.out_type, W8A8_BF16);
    cache_key tt_fp16 = tt;
    tt_fp16.out_type = W8A8_FP16;
    put(ctx, &tt_fp16, "tensor-tensor-fp16", 5.0, 6);
    cache_key rr_bias = rr;
    rr_bias.bias_type = W8A8_FP32;
    put(ctx, &rr_bias, "row-row-fp32-bias", 5.0, 7);
    other = rr; /* row × row fp16: tensor × tensor fp16 (2) before the bf16 rows (3) */
    other.out_type = W8A8_FP16;
    ck_assert_str_eq(lookup(ctx, &other).config, "tensor-tensor-fp16");
    other = rr;
    other.bias_type = W8A8_BF16; /* a bf16 bias: the fp32 bias's row (1) */
    ck_assert_str_eq(lookup(ctx, &other).config, "row-row-fp32-bias");
    other = tr;
    other.bias_type = W8A8_BF16; /* tensor × row, bf16 bias: row × row with a bias (1 + 1) */
    ck_assert_str_eq(lookup(ctx, &other).config, "row-row-fp32-bias");
    other = tt; /* fp32 out borrows from fp32 out only: its staged tile is twice the size */
    other.out_type = W8A8_FP32;
    ck_assert_int_eq(lookup(ctx, &other).match, CACHE_MISS);
    /* block scales neither borrow nor lend across scale kinds */
    w8a8_problem p;
    w8a8_problem_init(&p, 16, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 128, 1, 0};
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 128, 0, 0};
    cache_key block;
    cache_key_make(&block, &p, dev_x100());
    ck_assert_int_eq(lookup(ctx, &block).match, CACHE_MISS);
    put(ctx, &block, "block-block", 9.0, 4);
    cache_key rt_only = rt;
    rt_only.n = 2048;
    block.n = 2048;
    put(ctx, &block, "block-2048", 9.0, 5);
    ck_assert_int_eq(lookup(ctx, &rt_only).match, CACHE_MISS);
    /* explain says which kinds were asked and which row answered */
    w8a8_problem q;
    w8a8_problem_init(&q, 16, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    q.a_scale.kind = W8A8_SCALE_ROW;
    w8a8_cache_device d = {.sm_count = dev_x100()->sm_count,
                           .memory_bytes = dev_x100()->memory_bytes};
    memcpy(d.arch, dev_x100()->arch, sizeof d.arch); /* both 16 and 128 bytes */
    memcpy(d.name, dev_x100()->name, sizeof d.name);
    w8a8_explain e;
    ck_assert_msg(w8a8_cache_explain_device(ctx, &q, &d, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_str_eq(e.match, "epilogue");
    ck_assert_str_eq(e.config, "tensor-tensor");
    ck_assert_msg(strstr(e.reason, "no row for row × tensor scales, bf16 out, no bias") &&
                      strstr(e.reason, "with tensor × tensor scales, bf16 out, no bias"),
                  "%s", e.reason);
    /* block keys borrow across out dtypes and biases, from block rows only */
    cache_key block_fp16 = block;
    block_fp16.n = 4096;
    block_fp16.out_type = W8A8_FP16;
    w = lookup(ctx, &block_fp16);
    ck_assert_int_eq(w.match, CACHE_EPILOGUE);
    ck_assert_str_eq(w.config, "block-block");
    ck_assert_int_eq(w.a_scale, W8A8_SCALE_BLOCK);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- accumulation in the key ---------------------------------------------------------------- */

/* accum is part of the key where it changes the kernel (FP8 per-tensor / per-row) and
 * normalized to "fast" where it does not (INT8, block scales); rows of files written before
 * the column existed (no accum in their INSERTs) are "fast". */
START_TEST(test_accum_keys)
{
    char dir[512], db[640], old_sql[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(db, sizeof db, "%s/tuning.db", dir);
    snprintf(old_sql, sizeof old_sql, "%s/old.sql", dir);
    w8a8_problem p;
    w8a8_problem_init(&p, 64, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    p.accum = W8A8_ACCUM_PROMOTED;
    cache_key promoted, fast = key_of(dev_x100(), 64, 4096, 4096);
    cache_key_make(&promoted, &p, dev_x100());
    ck_assert_int_eq(promoted.accum, W8A8_ACCUM_PROMOTED);
    ck_assert_int_eq(fast.accum, W8A8_ACCUM_FAST);
    w8a8_problem_init(&p, 64, 4096, 4096, W8A8_INT8, W8A8_BF16);
    p.accum = W8A8_ACCUM_PROMOTED;
    cache_key int8;
    cache_key_make(&int8, &p, dev_x100());
    ck_assert_int_eq(int8.accum, W8A8_ACCUM_FAST);
    w8a8_problem_init(&p, 64, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 128, 1, 0};
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 128, 0, 0};
    p.accum = W8A8_ACCUM_PROMOTED;
    cache_key block;
    cache_key_make(&block, &p, dev_x100());
    ck_assert_int_eq(block.accum, W8A8_ACCUM_FAST);

    w8a8_context *ctx = open_cache_ctx(db, NULL);
    put(ctx, &fast, "fast-winner", 5.0, 1);
    put(ctx, &promoted, "promoted-winner", 7.0, 2);
    cache_winner w = lookup(ctx, &fast);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "fast-winner");
    w = lookup(ctx, &promoted);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "promoted-winner");
    /* a promoted key never falls back to a fast row, not even from another bucket */
    cache_key promoted_big = promoted;
    promoted_big.m_bucket = 4096;
    put(ctx, &promoted_big, "promoted-4096", 70.0, 3);
    cache_key fast_128 = fast;
    fast_128.m_bucket = 128;
    w = lookup(ctx, &fast_128);
    ck_assert_int_eq(w.match, CACHE_NEAR_BUCKET);
    ck_assert_str_eq(w.config, "fast-winner");
    w8a8_context_close(ctx);
    ck_assert_int_eq(count_rows(db, "problems WHERE accum = 'promoted'"), 2);

    /* an export from before the column: its rows arrive as "fast" */
    FILE *f = fopen(old_sql, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "INSERT INTO measurement_rows (arch, device_name, sm_count, memory_bytes, a_type,"
               " b_type, out_type, bias_type, a_scale, b_scale, a_group_rows, a_group_k,"
               " b_group_rows, b_group_k, a_k_major, azp, n, k, m_bucket, family, config,"
               " median_us, spread_us, samples, verify_error, verified, status, timestamp)"
               " VALUES ('%s', 'Test GPU X', 100, %llu, 'e4m3', 'e4m3', 'bf16', 'none', 'tensor',"
               " 'tensor', 0, 0, 0, 0, 0, 'none', 1024, 1024, 16, 'fam_a', 'old-row', 2.0, 0.1,"
               " 9, 0.0001, 1, 'ok', 1600000000);\n",
            TEST_ARCH, (unsigned long long)(80 * GIB));
    fclose(f);
    ctx = open_cache_ctx(db, NULL);
    int64_t added = 0;
    ck_assert_msg(w8a8_cache_import(ctx, old_sql, &added) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(added, 1);
    cache_key old = key_of(dev_x100(), 16, 1024, 1024);
    w = lookup(ctx, &old);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "old-row");
    old.accum = W8A8_ACCUM_PROMOTED;
    w = lookup(ctx, &old);
    ck_assert_int_eq(w.match, CACHE_MISS);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- lookup --------------------------------------------------------------------------------- */

START_TEST(test_lookup_fallbacks)
{
    char db[640];
    w8a8_context *ctx = open_fresh_cache(db);
    cache_device x80 = device_of(TEST_ARCH, "Test GPU X", 80, 80 * GIB);
    cache_device y = device_of(TEST_ARCH, "Test GPU Y", 120, 96 * GIB);
    cache_device other_arch = device_of("sm_98", "Test GPU X", 100, 80 * GIB);

    cache_key exact = key_of(dev_x100(), 100, 4096, 4096);
    put(ctx, &exact, "slow", 10.0, 1);
    put(ctx, &exact, "fast", 8.0, 2);
    cache_measurement bad = meas_of("fam_a", "wrong", 5.0, 3);
    bad.verified = 0;
    snprintf(bad.status, sizeof bad.status, "verify_failed");
    ck_assert_int_eq(cache_put_measurement(ctx, &exact, &bad), W8A8_OK);
    cache_key product = key_of(&x80, 128, 1024, 1024);
    put(ctx, &product, "product", 3.0, 4);
    cache_key foreign = key_of(&y, 64, 2048, 2048);
    put(ctx, &foreign, "foreign", 4.0, 5);
    cache_key at64 = key_of(dev_x100(), 64, 8192, 8192), at4096 = key_of(dev_x100(), 4096, 8192, 8192);
    put(ctx, &at64, "bucket64", 6.0, 6);
    put(ctx, &at4096, "bucket4096", 60.0, 7);
    cache_key other = key_of(&other_arch, 100, 512, 512);
    put(ctx, &other, "other-arch", 1.0, 8);

    cache_winner w = lookup(ctx, &exact);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "fast");
    ck_assert_int_eq(w.m_bucket, 128);
    ck_assert_str_eq(w.source, db);
    cache_key q = key_of(dev_x100(), 128, 1024, 1024);
    w = lookup(ctx, &q);
    ck_assert_int_eq(w.match, CACHE_PRODUCT);
    ck_assert_str_eq(w.config, "product");
    ck_assert_int_eq(w.sm_count, 80);
    q = key_of(dev_x100(), 60, 2048, 2048);
    w = lookup(ctx, &q);
    ck_assert_int_eq(w.match, CACHE_ARCH);
    ck_assert_str_eq(w.device_name, "Test GPU Y");
    q = key_of(dev_x100(), 100, 8192, 8192); /* bucket 128: 64 is nearer than 4096 */
    w = lookup(ctx, &q);
    ck_assert_int_eq(w.match, CACHE_NEAR_BUCKET);
    ck_assert_int_eq(w.device_match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "bucket64");
    ck_assert_int_eq(w.m_bucket, 64);
    q = key_of(dev_x100(), 3000, 8192, 8192); /* bucket 3072: 4096 is nearer */
    ck_assert_str_eq(lookup(ctx, &q).config, "bucket4096");
    q = key_of(dev_x100(), 100, 512, 512); /* only another arch has it */
    ck_assert_int_eq(lookup(ctx, &q).match, CACHE_MISS);
    w8a8_problem p;
    w8a8_problem_init(&p, 100, 4096, 4096, W8A8_INT8, W8A8_BF16); /* other dtype */
    cache_key_make(&q, &p, dev_x100());
    ck_assert_int_eq(lookup(ctx, &q).match, CACHE_MISS);

    /* the public explain */
    w8a8_cache_device pub = {.sm_count = 100, .memory_bytes = 80 * GIB};
    snprintf(pub.arch, sizeof pub.arch, TEST_ARCH);
    snprintf(pub.name, sizeof pub.name, "Test GPU X");
    w8a8_problem_init(&p, 50, 2048, 2048, W8A8_E4M3, W8A8_BF16);
    w8a8_explain e;
    ck_assert_int_eq(w8a8_cache_explain_device(ctx, &p, &pub, &e), W8A8_OK);
    ck_assert_str_eq(e.match, "arch");
    ck_assert_int_eq(e.foreign, 1);
    ck_assert_str_eq(e.config, "foreign");
    ck_assert_int_eq(e.m_bucket, 64);
    ck_assert_ptr_nonnull(strstr(e.reason, "foreign"));
    ck_assert_int_eq(w8a8_cache_explain(ctx, &p, &e), W8A8_NO_DEVICE); /* CPU-only context */
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(test_user_layer_wins)
{
    char dir[512], shipped[640], user[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(shipped, sizeof shipped, "%s/shipped.db", dir);
    snprintf(user, sizeof user, "%s/user.db", dir);
    cache_key key = key_of(dev_x100(), 32, 4096, 4096);
    cache_key only_shipped = key_of(dev_x100(), 32, 1024, 4096);
    cache_device y = device_of(TEST_ARCH, "Test GPU Y", 120, 96 * GIB);
    cache_key user_foreign = key_of(&y, 32, 2048, 4096), shipped_exact = key_of(dev_x100(), 32, 2048, 4096);
    w8a8_context *ctx = open_cache_ctx(shipped, NULL);
    put(ctx, &key, "shipped", 1.0, 1); /* faster, but not the user's */
    put(ctx, &only_shipped, "shipped-only", 2.0, 1);
    put(ctx, &shipped_exact, "shipped-exact", 9.0, 1);
    w8a8_context_close(ctx);

    ctx = open_cache_ctx(user, shipped);
    put(ctx, &key, "user", 10.0, 2);
    put(ctx, &user_foreign, "user-foreign", 1.0, 2);
    cache_winner w = lookup(ctx, &key);
    ck_assert_str_eq(w.config, "user");
    ck_assert_str_eq(w.source, user);
    w = lookup(ctx, &only_shipped);
    ck_assert_str_eq(w.config, "shipped-only");
    ck_assert_str_eq(w.source, shipped);
    /* a better match in a lower layer beats a worse one in the user's */
    w = lookup(ctx, &shipped_exact);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.config, "shipped-exact");
    w8a8_context_close(ctx);
}
END_TEST

typedef struct class_seen {
    cache_winner rows[16];
    int count, stop_after;
} class_seen;

static int see_class(void *user, const cache_winner *w)
{
    class_seen *c = user;
    if (c->count < 16)
        c->rows[c->count++] = *w;
    return c->stop_after && c->count >= c->stop_after;
}

static const cache_winner *seen_config(const class_seen *c, const char *config)
{
    for (int i = 0; i < c->count; i++)
        if (strcmp(c->rows[i].config, config) == 0)
            return &c->rows[i];
    return NULL;
}

/* cache_class_winners (the tuner's seeds): every row's winner of the class, any bucket, any
 * device of the arch, every layer, with how each relates to the key; nothing of another
 * class or arch; a visitor can stop the walk. */
START_TEST(test_class_winners)
{
    char dir[512], shipped[640], user[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(shipped, sizeof shipped, "%s/shipped.db", dir);
    snprintf(user, sizeof user, "%s/user.db", dir);
    cache_device y = device_of(TEST_ARCH, "Test GPU Y", 120, 96 * GIB);
    cache_device other_arch = device_of("sm_98", "Test GPU X", 100, 80 * GIB);
    w8a8_context *ctx = open_cache_ctx(shipped, NULL);
    cache_key at16 = key_of(dev_x100(), 16, 4096, 4096), at64 = key_of(dev_x100(), 64, 4096, 4096);
    put(ctx, &at16, "shipped16-slow", 9.0, 1);
    put(ctx, &at16, "shipped16", 8.0, 1); /* the row's winner */
    put(ctx, &at64, "shipped64", 7.0, 1);
    cache_key y16 = key_of(&y, 16, 4096, 4096);
    put(ctx, &y16, "y16", 5.0, 1);
    cache_key other_n = key_of(dev_x100(), 16, 8192, 4096), other = key_of(&other_arch, 16, 4096, 4096);
    put(ctx, &other_n, "other-class", 1.0, 1);
    put(ctx, &other, "other-arch", 1.0, 1);
    w8a8_context_close(ctx);

    ctx = open_cache_ctx(user, shipped);
    cache_key at32 = key_of(dev_x100(), 32, 4096, 4096);
    put(ctx, &at32, "user32", 6.0, 2);
    class_seen seen = {0};
    cache_key q = key_of(dev_x100(), 16, 4096, 4096);
    ck_assert_msg(cache_class_winners(ctx, &q, see_class, &seen) == W8A8_OK, "%s",
                  w8a8_errmsg(ctx));
    ck_assert_int_eq(seen.count, 4);
    ck_assert_str_eq(seen.rows[0].config, "user32"); /* the user layer first */
    ck_assert_str_eq(seen.rows[0].source, user);
    ck_assert_int_eq(seen.rows[0].match, CACHE_NEAR_BUCKET);
    ck_assert_int_eq(seen.rows[0].m_bucket, 32);
    const cache_winner *w = seen_config(&seen, "shipped16");
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(w->match, CACHE_EXACT);
    ck_assert_str_eq(w->source, shipped);
    ck_assert(w->median_us == 8.0);
    w = seen_config(&seen, "y16");
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(w->match, CACHE_ARCH);
    w = seen_config(&seen, "shipped64");
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(w->match, CACHE_NEAR_BUCKET);
    ck_assert_int_eq(w->device_match, CACHE_EXACT);
    ck_assert_ptr_null(seen_config(&seen, "shipped16-slow"));
    ck_assert_ptr_null(seen_config(&seen, "other-class"));
    ck_assert_ptr_null(seen_config(&seen, "other-arch"));

    class_seen first = {.stop_after = 1};
    ck_assert_int_eq(cache_class_winners(ctx, &q, see_class, &first), W8A8_OK);
    ck_assert_int_eq(first.count, 1);
    ck_assert_int_eq(cache_class_winners(ctx, &q, NULL, NULL), W8A8_INVALID);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- export, import, merge, prune ----------------------------------------------------------- */

typedef struct collected {
    w8a8_cache_entry rows[64];
    int count;
} collected;

static int collect(void *user, const w8a8_cache_entry *entry)
{
    collected *c = user;
    if (c->count < 64)
        memcpy(&c->rows[c->count++], entry, sizeof *entry); /* padding too: rows are memcmp'ed */
    return 0;
}

static void list_user(w8a8_context *ctx, uint32_t flags, collected *out)
{
    memset(out, 0, sizeof *out);
    w8a8_cache_filter filter = {.flags = flags | W8A8_CACHE_USER_ONLY};
    ck_assert_msg(w8a8_cache_list(ctx, &filter, collect, out) == W8A8_OK, "%s", w8a8_errmsg(ctx));
}

/* Fills a database with several keys and varied values. */
static void fill_varied(w8a8_context *ctx)
{
    cache_device y = device_of(TEST_ARCH, "Test GPU 'quoted', \"Y\"", 120, 96 * GIB);
    for (int i = 0; i < 12; i++) {
        cache_key key = key_of(i % 2 ? &y : dev_x100(), 1 << (i % 5), 4096, 1024 * (1 + i % 3));
        if (i % 4 == 3)
            key.accum = W8A8_ACCUM_PROMOTED; /* the round trip keeps the column */
        char config[64];
        snprintf(config, sizeof config, "block_m=%d,stages=%d", 64 << (i % 2), i);
        cache_measurement m = meas_of(i % 3 ? "fam_a" : "fam_b", config, 1.0 / (i + 3.0),
                                      1700000000 + i);
        if (i == 5) {
            m.verified = 0;
            m.verify_error = 0.5;
            snprintf(m.status, sizeof m.status, "verify_failed");
        }
        ck_assert_int_eq(cache_put_measurement(ctx, &key, &m), W8A8_OK);
    }
}

/* Only a key's well-sampled rows compete: a quick-pass row (5 samples) faster than the same
 * config's final-pass rows (30) does not make it the winner, nor does a config only ever
 * quick-measured (the final pass times its finalists another way); a finalist with 20 samples
 * (a round short) still competes; a config that hung on the key does not make the others
 * give way, however many samples it has. The runner-ups follow the same rule, and so does the
 * winners view (cache list). */
START_TEST(test_most_sampled_rows_count)
{
    char db[640];
    w8a8_context *ctx = open_fresh_cache(db);
    cache_key key = key_of(dev_x100(), 16, 10240, 8192);
    const struct {
        const char *config, *status;
        double us;
        int samples;
    } rows[] = {{"lucky", "ok", 8.0, 5},      {"lucky", "ok", 10.0, 30},
                {"lucky", "ok", 10.2, 30},    {"steady", "ok", 9.0, 5},
                {"steady", "ok", 9.1, 30},    {"quick-only", "ok", 8.5, 5},
                {"short", "ok", 9.6, 20},     {"hung-later", "ok", 7.0, 200},
                {"hung-later", "hung", -1.0, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cache_measurement m = meas_of("fam_a", rows[i].config, rows[i].us, 10 + (int64_t)i);
        m.samples = rows[i].samples;
        snprintf(m.status, sizeof m.status, "%s", rows[i].status);
        ck_assert_int_eq(cache_put_measurement(ctx, &key, &m), W8A8_OK);
    }
    cache_winner w[4];
    size_t count = 0;
    ck_assert_int_eq(cache_lookup_ranked(ctx, &key, w, 4, &count), W8A8_OK);
    ck_assert_uint_eq(count, 3);
    ck_assert_str_eq(w[0].config, "steady");
    ck_assert(w[0].median_us == 9.1);
    ck_assert_str_eq(w[1].config, "short");
    ck_assert_str_eq(w[2].config, "lucky");
    ck_assert(w[2].median_us == 10.0);
    collected c;
    memset(&c, 0, sizeof c);
    w8a8_cache_filter filter = {.flags = W8A8_CACHE_USER_ONLY | W8A8_CACHE_WINNERS};
    ck_assert_int_eq(w8a8_cache_list(ctx, &filter, collect, &c), W8A8_OK);
    ck_assert_int_eq(c.count, 1);
    ck_assert_str_eq(c.rows[0].config, "steady");
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(test_export_import_roundtrip)
{
    char dir[512], a[640], b[640], sql[640], csv[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.db", dir);
    snprintf(b, sizeof b, "%s/b.db", dir);
    snprintf(sql, sizeof sql, "%s/out/export.sql", dir);
    snprintf(csv, sizeof csv, "%s/export.csv", dir);
    w8a8_context *ctx = open_cache_ctx(a, NULL);
    fill_varied(ctx);
    int64_t rows = 0;
    char out[700];
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(util_mkdirs(out), 0);
    ck_assert_msg(w8a8_cache_export(ctx, sql, 0, &rows) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(rows, 12);
    ck_assert_int_eq(w8a8_cache_export(ctx, csv, 0, &rows), W8A8_OK);
    ck_assert_int_eq(w8a8_cache_export(ctx, "/tmp/x.json", 0, &rows), W8A8_INVALID);
    static collected original, imported;
    list_user(ctx, 0, &original);
    w8a8_context_close(ctx);

    ctx = open_cache_ctx(b, NULL);
    int64_t added = 0;
    ck_assert_msg(w8a8_cache_import(ctx, sql, &added) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(added, 12);
    ck_assert_int_eq(w8a8_cache_import(ctx, sql, &added), W8A8_OK);
    ck_assert_int_eq(added, 0); /* duplicates skipped */
    list_user(ctx, 0, &imported);
    ck_assert_int_eq(imported.count, original.count);
    for (int i = 0; i < original.count; i++) {
        w8a8_cache_entry *x = &original.rows[i], *y = &imported.rows[i];
        snprintf(y->source, sizeof y->source, "%s", x->source);
        ck_assert_msg(memcmp(x, y, sizeof *x) == 0, "row %d differs after the round trip", i);
    }
    /* the same .sql as a read-only layer */
    w8a8_context_close(ctx);
    snprintf(b, sizeof b, "%s/c.db", dir);
    ctx = open_cache_ctx(b, sql);
    cache_key key = key_of(dev_x100(), 1, 4096, 1024);
    cache_winner w = lookup(ctx, &key);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.source, sql);
    w8a8_context_close(ctx);
    /* csv: a header and one line per row (a device name with a comma and quotes is quoted) */
    size_t size = 0;
    char *text = slurp(csv, &size);
    int lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    ck_assert_int_eq(lines, 13);
    ck_assert_ptr_nonnull(strstr(text, "\"Test GPU 'quoted', \"\"Y\"\"\""));
    free(text);
}
END_TEST

START_TEST(test_import_refuses_other_sql)
{
    char dir[512], db[640], evil[640], victim[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(db, sizeof db, "%s/user.db", dir);
    snprintf(evil, sizeof evil, "%s/evil.sql", dir);
    snprintf(victim, sizeof victim, "%s/victim.db", dir);
    w8a8_context *ctx = open_cache_ctx(db, NULL);
    cache_key key = key_of(dev_x100(), 8, 4096, 4096);
    put(ctx, &key, "keep", 1.0, 1);
    const char *attempts[] = {
        "DELETE FROM measurements;",
        "DROP TABLE measurements;",
        "PRAGMA user_version = 7;",
        "ATTACH 'VICTIM' AS v; CREATE TABLE v.t (x);",
        "INSERT INTO devices (arch, name, sm_count, memory_bytes) VALUES ('a', 'b', 1, 1);",
    };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "%s", attempts[i]);
        char *at = strstr(text, "VICTIM");
        if (at) {
            char tail[256];
            snprintf(tail, sizeof tail, "%s", at + strlen("VICTIM"));
            snprintf(at, sizeof text - (size_t)(at - text), "%s%s", victim, tail);
        }
        write_bytes(evil, text, strlen(text));
        ck_assert_msg(w8a8_cache_import(ctx, evil, NULL) == W8A8_CACHE_ERROR, "accepted: %s",
                      attempts[i]);
    }
    ck_assert_int_eq(lookup(ctx, &key).match, CACHE_EXACT);
    w8a8_context_close(ctx);
    ck_assert_int_eq(count_rows(db, "measurements"), 1);
    ck_assert_int_eq(count_rows(db, "devices"), 1);
    ck_assert_int_eq(access(victim, F_OK), -1);
}
END_TEST

START_TEST(test_merge_union)
{
    char dir[512], a[640], b[640], dst[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a.db", dir);
    snprintf(b, sizeof b, "%s/b.db", dir);
    snprintf(dst, sizeof dst, "%s/merged/all.db", dir);
    cache_key k1 = key_of(dev_x100(), 16, 4096, 4096), k2 = key_of(dev_x100(), 16, 8192, 4096);
    w8a8_context *ctx = open_cache_ctx(a, NULL);
    put(ctx, &k1, "a1", 1.0, 100);
    put(ctx, &k1, "a2", 2.0, 101);
    put(ctx, &k2, "shared", 3.0, 102);
    w8a8_context_close(ctx);
    ctx = open_cache_ctx(b, NULL);
    put(ctx, &k2, "shared", 3.0, 102); /* the same measurement, in both files */
    put(ctx, &k2, "b1", 4.0, 103);
    put(ctx, &k2, "shared", 3.5, 104); /* same config, measured again later */
    w8a8_context_close(ctx);

    ctx = open_cache_ctx(a, NULL);
    const char *srcs[] = {a, b};
    int64_t added = 0;
    ck_assert_msg(w8a8_cache_merge(ctx, dst, srcs, 2, &added) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(added, 5);
    ck_assert_int_eq(count_rows(dst, "measurements"), 5);
    ck_assert_int_eq(count_rows(dst, "devices"), 1);
    ck_assert_int_eq(count_rows(dst, "problems"), 2);
    ck_assert_int_eq(w8a8_cache_merge(ctx, dst, srcs, 2, &added), W8A8_OK);
    ck_assert_int_eq(added, 0);
    const char *missing[] = {b, "/nonexistent/x.db"};
    ck_assert_int_eq(w8a8_cache_merge(ctx, dst, missing, 2, &added), W8A8_IO_ERROR);
    w8a8_context_close(ctx);
    ck_assert_int_eq(count_rows(dst, "measurements"), 5);
}
END_TEST

START_TEST(test_prune)
{
    char db[640];
    w8a8_context *ctx = open_fresh_cache(db);
    fill_varied(ctx);
    cache_key key = key_of(dev_x100(), 1, 4096, 1024);
    put(ctx, &key, "old", 0.01, 1000); /* fastest, but old */
    cache_measurement stale = meas_of("fam_a", "stale-lib", 0.02, 1700000100);
    snprintf(stale.lib_version, sizeof stale.lib_version, "0.0.1");
    ck_assert_int_eq(cache_put_measurement(ctx, &key, &stale), W8A8_OK);
    cache_measurement unhashed = meas_of("fam_a", "unhashed", 0.03, 1700000101);
    unhashed.template_hash[0] = '\0';
    ck_assert_int_eq(cache_put_measurement(ctx, &key, &unhashed), W8A8_OK);
    int64_t total = count_rows(db, "measurements"), removed = 0;
    ck_assert_int_eq(total, 15);

    w8a8_cache_prune_options o = {.older_than = 1600000000};
    ck_assert_int_eq(w8a8_cache_prune(ctx, &o, &removed), W8A8_OK);
    ck_assert_int_eq(removed, 1);
    /* stale: fam_a/fam_b have no template, so every hashed row goes; the lib version too */
    o = (w8a8_cache_prune_options){.stale = 1};
    w8a8_status pst = w8a8_cache_prune(ctx, &o, &removed);
    ck_assert_msg(pst == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(removed, 13);
    ck_assert_int_eq(count_rows(db, "measurements WHERE config = 'unhashed'"), 1);
    w8a8_context_close(ctx);

    /* keep winners: one row per key that has a verified row */
    unlink(db);
    ctx = open_cache_ctx(db, NULL);
    fill_varied(ctx);
    put(ctx, &key, "slower", 100.0, 5);
    static collected winners;
    list_user(ctx, W8A8_CACHE_WINNERS, &winners);
    o = (w8a8_cache_prune_options){.keep_winners = 1};
    ck_assert_int_eq(w8a8_cache_prune(ctx, &o, &removed), W8A8_OK);
    static collected left;
    list_user(ctx, 0, &left);
    ck_assert_int_eq(left.count, winners.count);
    ck_assert_int_eq(removed, 13 - winners.count);
    for (int i = 0; i < left.count; i++) {
        ck_assert_int_eq(left.rows[i].is_winner, 1);
        ck_assert_str_eq(left.rows[i].config, winners.rows[i].config);
        ck_assert_str_ne(left.rows[i].config, "slower");
        ck_assert_str_eq(left.rows[i].status, "ok");
    }
    ck_assert_int_eq(w8a8_cache_prune(ctx, NULL, NULL), W8A8_INVALID);
    w8a8_context_close(ctx);
    ck_assert_int_eq(count_rows(db, "problems"), winners.count);
}
END_TEST

/* ---- record mode ---------------------------------------------------------------------------- */

static int count_untuned(void *user, const cache_key *key, int64_t count, int64_t last_m)
{
    int64_t *seen = user;
    seen[0]++;
    seen[1] += count;
    seen[2] = last_m;
    ck_assert_int_eq(key->n, 4096);
    return 0;
}

START_TEST(test_untuned)
{
    char db[640];
    w8a8_context *ctx = open_fresh_cache(db);
    cache_key key = key_of(dev_x100(), 100, 4096, 4096);
    ck_assert_int_eq(cache_put_untuned(ctx, &key, 100), W8A8_OK);
    ck_assert_int_eq(cache_put_untuned(ctx, &key, 97), W8A8_OK);
    int64_t seen[3] = {0};
    ck_assert_int_eq(cache_untuned_list(ctx, count_untuned, seen), W8A8_OK);
    ck_assert_int_eq(seen[0], 1);
    ck_assert_int_eq(seen[1], 2);
    ck_assert_int_eq(seen[2], 97);
    static collected rows;
    list_user(ctx, W8A8_CACHE_UNTUNED, &rows);
    ck_assert_int_eq(rows.count, 1);
    ck_assert_int_eq(rows.rows[0].untuned_count, 2);
    ck_assert_int_eq(rows.rows[0].problem.m, 128);
    ck_assert_str_eq(rows.rows[0].status, "untuned");
    w8a8_context_close(ctx);
}
END_TEST

/* ---- a key's history (the tuner's plan) ----------------------------------------------------- */

typedef struct history_seen {
    char text[16][96]; /* "config status user exact" */
    int count;
    int stop_after;    /* 0: never stop */
} history_seen;

static int collect_history(void *user, const cache_history_row *row)
{
    history_seen *h = user;
    ck_assert_str_eq(row->family, "fam_a");
    ck_assert_str_eq(row->template_hash, meas_of("f", "c", 1, 1).template_hash);
    if (h->count < 16)
        snprintf(h->text[h->count], sizeof h->text[0], "%s %s %d %d", row->config, row->status,
                 row->user_layer, row->exact_device);
    h->count++;
    return h->stop_after && h->count >= h->stop_after;
}

/* Whether rows [from, to) of h hold text. */
static bool history_has(const history_seen *h, const char *text, int from, int to)
{
    for (int i = from; i < to; i++)
        if (strcmp(h->text[i], text) == 0)
            return true;
    return false;
}

static void put_status(w8a8_context *ctx, const cache_key *key, const char *config,
                       const char *status)
{
    cache_measurement m = meas_of("fam_a", config, 2.0, 5);
    snprintf(m.status, sizeof m.status, "%s", status);
    m.verified = strcmp(status, "ok") == 0;
    ck_assert_int_eq(cache_put_measurement(ctx, key, &m), W8A8_OK);
}

START_TEST(test_key_history)
{
    char dir[512], user[640], shipped[640];
    test_mkdtemp(dir, sizeof dir);
    snprintf(user, sizeof user, "%s/user.db", dir);
    snprintf(shipped, sizeof shipped, "%s/shipped.db", dir);
    cache_key key = key_of(dev_x100(), 100, 4096, 4096);
    w8a8_context *ctx = open_cache_ctx(shipped, NULL);
    put_status(ctx, &key, "ship-ok", "ok");
    put_status(ctx, &key, "ship-hung", "hung");
    w8a8_context_close(ctx);

    ctx = open_cache_ctx(user, shipped);
    history_seen h = {0};
    ck_assert_int_eq(cache_key_history(ctx, &key, collect_history, &h), W8A8_OK);
    ck_assert_int_eq(h.count, 2); /* the user database does not exist yet */
    ck_assert(history_has(&h, "ship-ok ok 0 1", 0, 2));
    ck_assert(history_has(&h, "ship-hung hung 0 1", 0, 2));

    put_status(ctx, &key, "u-ok", "ok");
    put_status(ctx, &key, "u-hung", "hung");
    put_status(ctx, &key, "u-rejected", "rejected");
    put_status(ctx, &key, "u-failed", "verify_failed");
    cache_device fewer_sms = device_of(TEST_ARCH, "Test GPU X", 98, 80 * GIB);
    cache_device other_name = device_of(TEST_ARCH, "Test GPU Y", 100, 80 * GIB);
    cache_key product = key_of(&fewer_sms, 100, 4096, 4096);
    cache_key bucket = key_of(dev_x100(), 4096, 4096, 4096);
    cache_key name = key_of(&other_name, 100, 4096, 4096);
    put_status(ctx, &product, "same-product", "ok");
    put_status(ctx, &bucket, "other-bucket", "ok");
    put_status(ctx, &name, "other-name", "ok");
    memset(&h, 0, sizeof h);
    ck_assert_int_eq(cache_key_history(ctx, &key, collect_history, &h), W8A8_OK);
    ck_assert_int_eq(h.count, 5);
    const char *want[] = {"u-ok ok 1 1", "u-hung hung 1 1", "same-product ok 1 0",
                          "ship-ok ok 0 1", "ship-hung hung 0 1"};
    for (int i = 0; i < 5; i++) /* user layer first; within a layer any order */
        ck_assert_msg(history_has(&h, want[i], i < 3 ? 0 : 3, i < 3 ? 3 : 5), "no %s", want[i]);
    memset(&h, 0, sizeof h);
    h.stop_after = 2;
    ck_assert_int_eq(cache_key_history(ctx, &key, collect_history, &h), W8A8_OK);
    ck_assert_int_eq(h.count, 2);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- batched writes (the tuner's) ----------------------------------------------------------- */

START_TEST(test_put_batch)
{
    char db[640];
    w8a8_context *ctx = open_fresh_cache(db);
    cache_key key = key_of(dev_x100(), 256, 4096, 4096);
    ck_assert_int_eq(cache_put_measurements(ctx, &key, NULL, 0), W8A8_OK);
    struct stat st;
    ck_assert_int_ne(stat(db, &st), 0); /* nothing to write: no database made */
    ck_assert_int_eq(cache_put_measurements(ctx, &key, NULL, 2), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "no measurements"));

    enum { ROWS = 600 };
    static cache_measurement rows[ROWS];
    for (int i = 0; i < ROWS; i++) {
        char config[32];
        snprintf(config, sizeof config, "c%d", i);
        rows[i] = meas_of("fam_a", config, 10.0 + (i * 37 % ROWS), 100 + i);
        if (i % 5 == 4)
            snprintf(rows[i].status, sizeof rows[i].status, "verify_failed");
    }
    rows[ROWS - 1].median_us = 1.0; /* the fastest, but not "ok" */
    rows[ROWS - 2].median_us = 2.0;
    ck_assert_msg(cache_put_measurements(ctx, &key, rows, ROWS) == W8A8_OK, "%s",
                  w8a8_errmsg(ctx));
    ck_assert_int_eq(count_rows(db, "measurements"), ROWS);
    ck_assert_int_eq(count_rows(db, "problems"), 1);
    cache_winner w = lookup(ctx, &key);
    ck_assert_int_eq(w.match, CACHE_EXACT);
    ck_assert_str_eq(w.config, rows[ROWS - 2].config);

    /* all or none: a row the database refuses leaves the batch unwritten */
    exec_sql(db, "CREATE TRIGGER refuse BEFORE INSERT ON measurements WHEN NEW.config = 'bad'"
                 " BEGIN SELECT RAISE(ABORT, 'refused'); END;");
    cache_measurement three[3] = {meas_of("fam_a", "x1", 0.5, 1), meas_of("fam_a", "bad", 0.5, 1),
                                  meas_of("fam_a", "x2", 0.5, 1)};
    ck_assert_int_eq(cache_put_measurements(ctx, &key, three, 3), W8A8_CACHE_ERROR);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "refused"));
    ck_assert_int_eq(count_rows(db, "measurements"), ROWS);
    ck_assert_str_eq(lookup(ctx, &key).config, rows[ROWS - 2].config);
    w8a8_context_close(ctx);
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("cache");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_m_bucket);
    tcase_add_test(tc, test_concurrent_writers);
    tcase_add_test(tc, test_bad_files_skipped);
    tcase_add_test(tc, test_migration_v1);
    tcase_add_test(tc, test_accum_keys);
    tcase_add_test(tc, test_epilogue_fallback);
    tcase_add_test(tc, test_lookup_fallbacks);
    tcase_add_test(tc, test_user_layer_wins);
    tcase_add_test(tc, test_class_winners);
    tcase_add_test(tc, test_most_sampled_rows_count);
    tcase_add_test(tc, test_export_import_roundtrip);
    tcase_add_test(tc, test_import_refuses_other_sql);
    tcase_add_test(tc, test_merge_union);
    tcase_add_test(tc, test_prune);
    tcase_add_test(tc, test_untuned);
    tcase_add_test(tc, test_key_history);
    tcase_add_test(tc, test_put_batch);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(cache_suite());
}
