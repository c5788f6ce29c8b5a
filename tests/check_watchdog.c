/* The tuner's watchdog for kernels that never finish, without a GPU: `w8a8 tune` (and
 * w8a8_tune in this process) run on tests/fake_cuda.c, the stand-in driver, told to make the
 * launches of one kernel never finish (FAKE_CUDA_HANG_ENTRY). The fake then blocks for good in
 * every call that waits for the device, as a real driver would, so a wait the watchdog does
 * not cover hangs: each command is killed and the test failed after RUN_LIMIT_S, and the
 * in-process cases have a tcase timeout. Also: the cache never elects a config that hung. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cli/cli.h"
#include "testutil.h"
#include "tune.h"

/* Far above what a run on the fake takes with a watchdog below a second (a few seconds,
 * compiles from the shared kernel store), far below forever. */
#define RUN_LIMIT_S 120.0
#define HANG_ENTRY "w8a8_sm90_gemm"
#define SHAPE "16,256,256"
#define OUTPUT_BYTES (1 << 20)

static char fake_path[PATH_MAX];
static char tmpdir[512];
static char db_path[600];

static void setup(void)
{
    test_mkdtemp(tmpdir, sizeof tmpdir);
    snprintf(db_path, sizeof db_path, "%s/tuning.db", tmpdir);
}

static void teardown(void) { test_remove_tree(tmpdir); }

/* The fake's settings for a tune on it: reference rows that are not zeros (so verification has
 * something to compare with), launches of HANG_ENTRY that never finish. */
static void fake_environment(void)
{
    setenv("W8A8_CUDA_DRIVER", fake_path, 1);
    setenv("W8A8_CACHE_PATH", "", 1); /* no shipped databases: only this test's rows */
    setenv("FAKE_CUDA_DTOH_BYTE", "0x3c", 1);
    setenv("FAKE_CUDA_HANG_ENTRY", HANG_ENTRY, 1);
}

/* ---- running the command -------------------------------------------------------------------- */

typedef struct run_result {
    int status;      /* exit status; -1 when killed or not exited */
    double seconds;
    char out[OUTPUT_BYTES], err[OUTPUT_BYTES];
} run_result;

static void read_file(const char *path, char *buffer, size_t size)
{
    buffer[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
    fclose(f);
}

/* Runs `w8a8 tune --db <db> --shape SHAPE <args…>` (NULL-terminated) on the fake in a process
 * group of its own; kills it and fails the test after RUN_LIMIT_S. */
static void run_tune(run_result *r, const char *const *args)
{
    char out_path[700], err_path[700];
    snprintf(out_path, sizeof out_path, "%s/out.txt", tmpdir);
    snprintf(err_path, sizeof err_path, "%s/err.txt", tmpdir);
    const char *argv[32] = {W8A8_CLI, "tune", "--db", db_path, "--shape", SHAPE};
    size_t argc = 6;
    for (size_t i = 0; args[i]; i++) {
        ck_assert_uint_lt(argc + 1, sizeof argv / sizeof argv[0]);
        argv[argc++] = args[i];
    }
    argv[argc] = NULL;
    double started = util_now();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setpgid(0, 0);
        fake_environment();
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(127);
        execv(W8A8_CLI, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && util_now() - started < RUN_LIMIT_S) {
        const struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    r->seconds = util_now() - started;
    if (done == 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    read_file(out_path, r->out, sizeof r->out);
    read_file(err_path, r->err, sizeof r->err);
    ck_assert_msg(done == pid, "w8a8 tune still ran after %.0f s: a wait the watchdog does not "
                               "cover blocked on the hung fake device\nstderr:\n%s",
                  RUN_LIMIT_S, r->err);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* ---- the database ------------------------------------------------------------------------------ */

#define MAX_ROWS 64
typedef struct db_rows {
    size_t count;
    struct {
        char family[64], config[256], status[32];
        int is_winner;
    } rows[MAX_ROWS];
} db_rows;

static int keep_row(void *user, const w8a8_cache_entry *e)
{
    db_rows *d = user;
    ck_assert_uint_lt(d->count, MAX_ROWS);
    snprintf(d->rows[d->count].family, sizeof d->rows[0].family, "%s", e->family);
    snprintf(d->rows[d->count].config, sizeof d->rows[0].config, "%s", e->config);
    snprintf(d->rows[d->count].status, sizeof d->rows[0].status, "%s", e->status);
    d->rows[d->count].is_winner = e->is_winner;
    d->count++;
    return 0;
}

/* Every row of the user database of ctx. */
static void db_list(w8a8_context *ctx, db_rows *d)
{
    memset(d, 0, sizeof *d);
    w8a8_cache_filter filter = {.flags = W8A8_CACHE_USER_ONLY};
    ck_assert_int_eq(w8a8_cache_list(ctx, &filter, keep_row, d), W8A8_OK);
}

/* Every row of the test's database, read on a context without any driver (the command ran in
 * other processes; this one has loaded no driver yet). */
static void db_read(db_rows *d)
{
    setenv("W8A8_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    w8a8_context_options o = {.cache_db = db_path, .cache_path = ""};
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    db_list(ctx, d);
    w8a8_context_close(ctx);
}

static size_t rows_with(const db_rows *d, const char *family, const char *status)
{
    size_t n = 0;
    for (size_t i = 0; i < d->count; i++)
        n += strcmp(d->rows[i].family, family) == 0 && strcmp(d->rows[i].status, status) == 0;
    return n;
}

/* A config that hung has no other row (each hangs at its first launch here, so any other row
 * means a resumed run took it up again: compiled, verified or hung twice), none that hung is a
 * winner, and the key has a winner. Returns the number of hung rows. */
static size_t check_hung_rows(const db_rows *d)
{
    size_t hung = 0, winners = 0;
    for (size_t i = 0; i < d->count; i++) {
        winners += d->rows[i].is_winner != 0;
        if (strcmp(d->rows[i].status, "hung") != 0)
            continue;
        hung++;
        ck_assert_str_eq(d->rows[i].family, "sm90_gemm");
        for (size_t j = 0; j < d->count; j++) {
            bool same = strcmp(d->rows[j].config, d->rows[i].config) == 0 &&
                        strcmp(d->rows[j].family, d->rows[i].family) == 0;
            ck_assert_msg(!same || j == i, "%s hung, and has a %s row too: a resumed run "
                          "took it up again", d->rows[i].config, d->rows[j].status);
        }
    }
    ck_assert_uint_eq(winners, 1);
    return hung;
}

/* ---- the command ------------------------------------------------------------------------------- */

START_TEST(tune_stops_at_the_watchdog)
{
    run_result *r = malloc(sizeof *r);
    ck_assert_ptr_nonnull(r);
    const char *args[] = {"--max-candidates", "2", "--watchdog", "0.5", "--restarts", "0",
                          "--json", NULL};
    run_tune(r, args);
    ck_assert_msg(r->status == CLI_EXIT_HUNG, "exit %d, stderr:\n%s", r->status, r->err);
    ck_assert_msg(r->seconds >= 0.5 && r->seconds < RUN_LIMIT_S / 2, "took %.1f s", r->seconds);
    ck_assert_msg(strstr(r->err, "W8A8_HUNG") && strstr(r->err, "had not finished after") &&
                      strstr(r->err, "watchdog's limit") &&
                      strstr(r->err, "cannot use the GPU any more") &&
                      strstr(r->err, "Recorded as \"hung\"") &&
                      strstr(r->err, "new process to resume"),
                  "stderr:\n%s", r->err);
    /* --json stays one object a line, and the hung candidate is one of them */
    int hung_lines = 0;
    for (char *line = strtok(r->out, "\n"); line; line = strtok(NULL, "\n")) {
        size_t len = strlen(line);
        ck_assert_msg(len > 1 && line[0] == '{' && line[len - 1] == '}', "not JSON: %s", line);
        hung_lines += strstr(line, "\"status\": \"hung\"") != NULL &&
                      strstr(line, "\"family\": \"sm90_gemm\"") != NULL;
    }
    ck_assert_int_eq(hung_lines, 1);
    db_rows d;
    db_read(&d);
    ck_assert_uint_eq(check_hung_rows(&d), 1);
    ck_assert_uint_eq(rows_with(&d, "sm90_gemm", "ok"), 0);
    ck_assert_uint_gt(rows_with(&d, "sm80_decode", "ok"), 0); /* measured before the hang */
    free(r);
}
END_TEST

START_TEST(tune_restarts_and_resumes)
{
    run_result *r = malloc(sizeof *r);
    ck_assert_ptr_nonnull(r);
    /* one restart is too few: every sm90_gemm candidate hangs */
    const char *first[] = {"--max-candidates", "2", "--watchdog", "0.3", "--restarts", "1", NULL};
    run_tune(r, first);
    ck_assert_msg(r->status == CLI_EXIT_HUNG, "exit %d, stderr:\n%s", r->status, r->err);
    ck_assert_int_eq(count_of(r->err, "starting again in a new process"), 1);
    ck_assert_msg(strstr(r->err, "kernels hung 2 times; run the same command again to resume"),
                  "stderr:\n%s", r->err);
    db_rows d;
    db_read(&d);
    ck_assert_uint_eq(check_hung_rows(&d), 2);
    /* a new command resumes past both, restarting as often as it needs */
    const char *again[] = {"--max-candidates", "2", "--watchdog", "0.3", NULL};
    run_tune(r, again);
    ck_assert_msg(r->status == 0, "exit %d, stderr:\n%s", r->status, r->err);
    int restarts = count_of(r->err, "starting again in a new process");
    ck_assert_msg(strstr(r->out, "sm80_decode"), "no table with the winner:\n%s", r->out);
    db_read(&d);
    ck_assert_uint_eq(check_hung_rows(&d), 2 + (size_t)restarts);
    ck_assert_uint_eq(rows_with(&d, "sm90_gemm", "ok"), 0);
    /* and a third finds nothing left to hang on */
    run_tune(r, again);
    ck_assert_msg(r->status == 0 && !strstr(r->err, "W8A8_HUNG"), "exit %d, stderr:\n%s",
                  r->status, r->err);
    db_read(&d);
    ck_assert_uint_eq(check_hung_rows(&d), 2 + (size_t)restarts);
    free(r);
}
END_TEST

/* ---- the library, in this process -------------------------------------------------------------- */

static w8a8_context *fake_context_open(void)
{
    fake_environment();
    setenv(TIMING_WATCHDOG_ENV, "0.3", 1); /* the environment's limit, this time */
    w8a8_context_options o = {.cache_db = db_path, .cache_path = ""};
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    ck_assert_msg(w8a8_context_has_device(ctx), "the fake driver did not give a device");
    return ctx;
}

static w8a8_problem problem_make(void)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 16, 256, 256, W8A8_E4M3, W8A8_BF16);
    return p;
}

/* After a hang the context refuses GPU work, and closing it returns (the fake blocks in every
 * unload, free and release once hung). */
static void context_is_dead(w8a8_context *ctx)
{
    w8a8_problem p = problem_make();
    ck_assert_int_eq(w8a8_dispatch_warm(ctx, &p), W8A8_HUNG);
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "never finished"), "%s", w8a8_errmsg(ctx));
    w8a8_context_close(ctx);
}

START_TEST(library_tune_returns_hung)
{
    w8a8_context *ctx = fake_context_open();
    w8a8_problem p = problem_make();
    w8a8_tune_options o = {.problems = &p, .problem_count = 1, .max_candidates = 1};
    w8a8_tune_report report;
    double started = util_now();
    w8a8_status st = w8a8_tune(ctx, &o, NULL, NULL, &report);
    double seconds = util_now() - started;
    ck_assert_msg(st == W8A8_HUNG, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_str_eq(w8a8_status_string(st), "W8A8_HUNG");
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "sm90_gemm") &&
                      strstr(w8a8_errmsg(ctx), "had not finished after 0.3 s") &&
                      strstr(w8a8_errmsg(ctx), "Recorded as \"hung\""),
                  "%s", w8a8_errmsg(ctx));
    ck_assert_msg(seconds >= 0.3 && seconds < RUN_LIMIT_S / 2, "took %.1f s", seconds);
    ck_assert_uint_eq(report.count, 1);
    ck_assert_int_eq(report.results[0].status, W8A8_HUNG);
    w8a8_tune_report_free(&report);
    db_rows d; /* the cache needs no GPU: the hung context still reads it */
    db_list(ctx, &d);
    ck_assert_uint_eq(check_hung_rows(&d), 1);
    context_is_dead(ctx);
}
END_TEST

START_TEST(library_bench_returns_hung)
{
    w8a8_context *ctx = fake_context_open();
    setenv("FAKE_CUDA_HANG_ENTRY", "*", 1); /* whatever the dispatcher runs */
    w8a8_problem p = problem_make();
    w8a8_bench_result result;
    w8a8_status st = w8a8_bench_time(ctx, &p, NULL, NULL, NULL, &result);
    ck_assert_msg(st == W8A8_HUNG, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "a timed batch of launches had not finished"), "%s",
                  w8a8_errmsg(ctx));
    context_is_dead(ctx);
}
END_TEST

/* ---- the cache --------------------------------------------------------------------------------- */

/* Rows of one key: "a" is the fastest but hung later (the same template); "c" hung under an
 * older template (another hash) and was measured again since; "b" is slower than both. The
 * winner is "c": not "a" (it hung), not "b" ("c"'s hang is of another template). */
static const char *const cache_rows[][4] = {
    /* config, median, status, template hash */
    {"cfg=a", "1.0", "ok", "1111"},   {"cfg=a", "-1.0", "hung", "1111"},
    {"cfg=b", "2.0", "ok", "1111"},   {"cfg=c", "1.5", "ok", "1111"},
    {"cfg=c", "-1.0", "hung", "0000"}};

static void write_cache_rows(const char *path)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < sizeof cache_rows / sizeof cache_rows[0]; i++)
        fprintf(f,
                "INSERT INTO measurement_rows (arch, device_name, sm_count, memory_bytes, "
                "a_type, b_type, out_type, bias_type, a_scale, b_scale, a_group_rows, "
                "a_group_k, b_group_rows, b_group_k, a_k_major, azp, n, k, m_bucket, family, "
                "config, median_us, spread_us, samples, verify_error, verified, status, "
                "registers, spills, compile_ms, template_hash, driver_version, nvrtc_version, "
                "lib_version, timestamp) VALUES ('sm_90', 'test GPU', 132, 85899345920, "
                "'e4m3', 'e4m3', 'bf16', 'none', 'tensor', 'tensor', 0, 0, 0, 0, 0, 'none', "
                "256, 256, 16, 'sm90_gemm', '%s', %s, 0.0, %d, 0.0, %d, '%s', 0, 0, 0.0, "
                "'%s', 12080, 12080, '0.1.0', %zu);\n",
                cache_rows[i][0], cache_rows[i][1], cache_rows[i][2][0] == 'o' ? 5 : 0,
                cache_rows[i][2][0] == 'o', cache_rows[i][2], cache_rows[i][3], 1000 + i);
    fclose(f);
}

START_TEST(cache_never_elects_a_hung_config)
{
    char sql[700];
    snprintf(sql, sizeof sql, "%s/rows.sql", tmpdir);
    write_cache_rows(sql);
    setenv("W8A8_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    w8a8_context_options o = {.cache_db = db_path, .cache_path = ""};
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    int64_t added = 0;
    ck_assert_int_eq(w8a8_cache_import(ctx, sql, &added), W8A8_OK);
    ck_assert_int_eq(added, 5);
    w8a8_problem p = problem_make();
    w8a8_cache_device device = {.arch = "sm_90", .name = "test GPU", .sm_count = 132,
                                .memory_bytes = 85899345920ull};
    w8a8_explain e;
    ck_assert_int_eq(w8a8_cache_explain_device(ctx, &p, &device, &e), W8A8_OK);
    ck_assert_str_eq(e.match, "exact");
    ck_assert_str_eq(e.config, "cfg=c"); /* the dispatcher's lookup */
    db_rows d;
    db_list(ctx, &d);
    ck_assert_uint_eq(d.count, 5);
    for (size_t i = 0; i < d.count; i++) /* the winners view, as list and export see it */
        ck_assert_msg(d.rows[i].is_winner == (strcmp(d.rows[i].config, "cfg=c") == 0 &&
                                              strcmp(d.rows[i].status, "ok") == 0),
                      "%s %s: is_winner %d", d.rows[i].config, d.rows[i].status,
                      d.rows[i].is_winner);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- a space's variants, tried on the finalists --------------------------------------------- */

#define VARIANT ",trigger=1"
#define MAX_SEEN 64

typedef struct variant_seen {
    char config[MAX_SEEN][W8A8_CONFIG_BYTES];
    int pass[MAX_SEEN];
    bool ok[MAX_SEEN];
    size_t count;
    char timed[3 * MAX_SEEN][W8A8_CONFIG_BYTES]; /* the final pass's timings, in order */
    size_t timings;
} variant_seen;

/* Whether config ends in VARIANT; base gets what precedes it. */
static bool is_variant(const char *config, char *base, size_t size)
{
    size_t len = strlen(config), tail = strlen(VARIANT);
    if (len < tail || strcmp(config + len - tail, VARIANT) != 0)
        return false;
    snprintf(base, size, "%.*s", (int)(len - tail), config);
    return true;
}

static void on_measured(const w8a8_tune_progress *p, void *user)
{
    variant_seen *s = user;
    if (p->phase == W8A8_TUNE_PHASE_FINAL && p->config) {
        ck_assert_uint_lt(s->timings, 3 * MAX_SEEN);
        snprintf(s->timed[s->timings++], sizeof s->timed[0], "%s", p->config);
    }
    if (p->phase != W8A8_TUNE_PHASE_MEASURED || strcmp(p->measurement->family, "sm90_gemm") != 0)
        return;
    ck_assert_uint_lt(s->count, MAX_SEEN);
    snprintf(s->config[s->count], sizeof s->config[0], "%s", p->measurement->config);
    char base[W8A8_CONFIG_BYTES];
    ck_assert_int_eq(p->measurement->variant, is_variant(p->measurement->config, base, sizeof base));
    s->pass[s->count] = p->measurement->pass;
    s->ok[s->count++] = strcmp(p->measurement->status, "ok") == 0;
}

/* sm90_gemm's space lists trigger=1 as a variant: each finalist of the quick pass is timed
 * again with it (same kernel), and the final pass takes those beside the finalists. */
START_TEST(library_tune_times_variants_of_the_finalists)
{
    w8a8_context *ctx = fake_context_open();
    setenv("FAKE_CUDA_HANG_ENTRY", "none", 1);
    w8a8_problem p;
    w8a8_problem_init(&p, 512, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    w8a8_tune_options o = {.problems = &p, .problem_count = 1, .space = "sm90_gemm",
                           .max_candidates = 5, .finalists = 2, .quick_samples = 3,
                           .final_samples = 6};
    w8a8_tune_report report;
    variant_seen seen = {0};
    w8a8_status st = w8a8_tune(ctx, &o, on_measured, &seen, &report);
    ck_assert_msg(st == W8A8_OK, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    size_t quick_ok = 0, variants = 0, variants_final = 0;
    for (size_t i = 0; i < seen.count; i++) {
        char base[W8A8_CONFIG_BYTES];
        if (!is_variant(seen.config[i], base, sizeof base)) {
            quick_ok += seen.pass[i] == 1 && seen.ok[i];
            ck_assert_ptr_null(strstr(seen.config[i], "trigger"));
            continue;
        }
        ck_assert_msg(seen.ok[i], "%s", seen.config[i]);
        variants += seen.pass[i] == 1;
        variants_final += seen.pass[i] == 2;
        bool parent_timed = false; /* its parent had a quick time before it */
        for (size_t j = 0; j < i; j++)
            parent_timed |= strcmp(seen.config[j], base) == 0 && seen.pass[j] == 1 && seen.ok[j];
        ck_assert_msg(parent_timed, "%s has no quick-timed parent", seen.config[i]);
    }
    ck_assert_uint_ge(quick_ok, 2);
    ck_assert_uint_eq(variants, 2); /* one per finalist */
    ck_assert_uint_ge(variants_final, 1);
    /* the final pass times a variant next to its finalist: before it in one round, after it
     * in the next */
    size_t before = 0, after = 0;
    for (size_t i = 0; i < seen.timings; i++) {
        char base[W8A8_CONFIG_BYTES];
        if (!is_variant(seen.timed[i], base, sizeof base))
            continue;
        after += i > 0 && strcmp(seen.timed[i - 1], base) == 0;
        before += i + 1 < seen.timings && strcmp(seen.timed[i + 1], base) == 0;
        ck_assert_msg((i > 0 && strcmp(seen.timed[i - 1], base) == 0) ||
                          (i + 1 < seen.timings && strcmp(seen.timed[i + 1], base) == 0),
                      "%s timed apart from its finalist", seen.timed[i]);
    }
    ck_assert_uint_ge(after, 1);
    ck_assert_uint_ge(before, 1);
    ck_assert_uint_eq(report.results[0].candidates, quick_ok + variants);
    w8a8_tune_report_free(&report);

    /* a rerun measures nothing new: it times the default again (its "vs default") but tries
     * no variant of it */
    variant_seen again = {0};
    st = w8a8_tune(ctx, &o, on_measured, &again, &report);
    ck_assert_msg(st == W8A8_OK, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_uint_ge(again.count, 1);
    for (size_t i = 0; i < again.count; i++)
        ck_assert_msg(!strstr(again.config[i], VARIANT), "%s measured again", again.config[i]);
    w8a8_tune_report_free(&report);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- seeds from another epilogue ------------------------------------------------------------- */

#define LENT_CONFIG                                                                               \
    "block_m=64,block_n=32,stages=3,consumers=1,pingpong=0,raster=1,group=2,cluster=1,"           \
    "epilogue=0,split=1,specialize=0"

typedef struct lent_seen {
    int measured, lent, lent_seed;
} lent_seen;

static void on_lent_progress(const w8a8_tune_progress *p, void *user)
{
    lent_seen *s = user;
    if (p->phase != W8A8_TUNE_PHASE_MEASURED || p->measurement->pass != 1)
        return;
    s->measured++;
    if (strcmp(p->measurement->config, LENT_CONFIG) == 0) {
        s->lent++;
        s->lent_seed += p->measurement->cache_seed != 0;
    }
}

/* A key whose class has no row runs, through the lookup, the row of another epilogue
 * (CACHE_EPILOGUE; here other scale kinds): a plain tune of it times that row's config as a
 * cache seed, so its winner is not slower than what ran before it; a key with its own row is
 * not seeded so. */
START_TEST(library_tune_seeds_from_other_scale_kinds)
{
    w8a8_context *ctx = fake_context_open();
    setenv("FAKE_CUDA_HANG_ENTRY", "none", 1);
    cache_device dev;
    ck_assert_int_eq(cache_device_from_ctx(ctx, &dev), W8A8_OK);
    w8a8_problem p = problem_make(); /* tensor × tensor: the lender */
    cache_key key;
    cache_key_make(&key, &p, &dev);
    cache_measurement m;
    memset(&m, 0, sizeof m);
    snprintf(m.family, sizeof m.family, "sm90_gemm");
    snprintf(m.config, sizeof m.config, "%s", LENT_CONFIG);
    snprintf(m.status, sizeof m.status, "ok");
    m.median_us = 1.0;
    m.samples = 5;
    m.verified = 1;
    ck_assert_msg(cache_put_measurement(ctx, &key, &m) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    w8a8_problem q = p;
    q.b_scale.kind = W8A8_SCALE_ROW; /* tensor × row: no row of its own */
    cache_key asked;
    cache_winner answer;
    cache_key_make(&asked, &q, &dev);
    ck_assert_int_eq(cache_lookup(ctx, &asked, &answer), W8A8_OK);
    ck_assert_int_eq(answer.match, CACHE_EPILOGUE);
    w8a8_tune_options o = {.problems = &q, .problem_count = 1, .max_candidates = 1,
                           .finalists = 1, .quick_samples = 3, .final_samples = 3};
    w8a8_tune_report report;
    lent_seen seen = {0};
    w8a8_status st = w8a8_tune(ctx, &o, on_lent_progress, &seen, &report);
    ck_assert_msg(st == W8A8_OK, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_int_eq(seen.lent, 1);
    ck_assert_int_eq(seen.lent_seed, 1);
    w8a8_tune_report_free(&report);
    /* the key now has its own row: a retune seeds from it, not from the lender */
    ck_assert_int_eq(cache_lookup(ctx, &asked, &answer), W8A8_OK);
    ck_assert_int_eq(answer.match, CACHE_EXACT);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- the plan: progress, and a budget spent before any key is timed --------------------------- */

typedef struct plan_seen {
    int phases[W8A8_TUNE_PHASE_COUNT];
    w8a8_tune_phase first;
    size_t plan_done_max, plan_total, plan_reports;
    bool plan_after_keys; /* a PLAN report after a key's phases began */
} plan_seen;

static void on_plan_progress(const w8a8_tune_progress *p, void *user)
{
    plan_seen *s = user;
    int seen = 0;
    for (int i = 0; i < W8A8_TUNE_PHASE_COUNT; i++)
        seen += s->phases[i];
    if (!seen)
        s->first = p->phase;
    ck_assert_int_ge((int)p->phase, 0);
    ck_assert_int_lt((int)p->phase, W8A8_TUNE_PHASE_COUNT);
    s->phases[p->phase]++;
    if (p->phase != W8A8_TUNE_PHASE_PLAN)
        return;
    s->plan_after_keys |= seen > s->phases[W8A8_TUNE_PHASE_PLAN] - 1;
    ck_assert_ptr_nonnull(p->problem);
    ck_assert_uint_ge(p->done, 1);
    ck_assert_uint_eq(p->problem_index, p->done - 1);
    s->plan_done_max = p->done > s->plan_done_max ? p->done : s->plan_done_max;
    s->plan_total = p->total;
    s->plan_reports++;
}

START_TEST(library_plan_stops_at_the_budget)
{
    w8a8_context *ctx = fake_context_open();
    enum { KEYS = 40 };
    w8a8_problem p[KEYS];
    for (int i = 0; i < KEYS; i++) /* distinct keys: N from 256 up */
        w8a8_problem_init(&p[i], 4096, 256 + 128 * i, 4096, W8A8_E4M3, W8A8_BF16);
    /* one compile thread: rounds of two keys; the budget ends during the first */
    w8a8_tune_options o = {.problems = p, .problem_count = KEYS, .threads = 1,
                           .budget_seconds = 0.001};
    w8a8_tune_report report;
    plan_seen seen = {0};
    double started = util_now();
    w8a8_status st = w8a8_tune(ctx, &o, on_plan_progress, &seen, &report);
    double seconds = util_now() - started;
    ck_assert_msg(st == W8A8_BUDGET_SPENT, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_int_eq(seen.first, W8A8_TUNE_PHASE_PLAN);
    ck_assert_uint_eq(seen.plan_total, KEYS);
    ck_assert_uint_eq(seen.plan_reports, 1); /* planning stopped after its first round */
    ck_assert_uint_eq(seen.plan_done_max, 2);
    ck_assert_int_eq(seen.phases[W8A8_TUNE_PHASE_QUICK] + seen.phases[W8A8_TUNE_PHASE_MEASURED], 0);
    ck_assert_uint_eq(report.count, KEYS);
    for (size_t i = 0; i < report.count; i++)
        ck_assert_int_eq(report.results[i].status, W8A8_BUDGET_SPENT);
    ck_assert_msg(report.profile.plan_seconds < seconds + 1e-9 && seconds < RUN_LIMIT_S / 4,
                  "plan %.2f s of %.2f s", report.profile.plan_seconds, seconds);
    w8a8_tune_report_free(&report);

    /* without a budget every key is planned, and the plan is reported before any key starts */
    setenv("FAKE_CUDA_HANG_ENTRY", "none", 1);
    plan_seen all = {0};
    w8a8_tune_options three = {.problems = p, .problem_count = 3, .threads = 1,
                               .max_candidates = 1};
    st = w8a8_tune(ctx, &three, on_plan_progress, &all, &report);
    ck_assert_msg(st == W8A8_OK, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_int_eq(all.first, W8A8_TUNE_PHASE_PLAN);
    ck_assert_uint_eq(all.plan_done_max, 3);
    ck_assert_uint_eq(all.plan_reports, 2); /* rounds of two keys: 2, then 3 */
    ck_assert(!all.plan_after_keys);
    ck_assert_int_eq(all.phases[W8A8_TUNE_PHASE_DONE], 3);
    w8a8_tune_report_free(&report);
    w8a8_context_close(ctx);
}
END_TEST

/* The verification bound (timing_tolerance): the fast FP8 accumulator's error grows about like K
 * (an H100 measured 1.9e-2 of max |ref| at K = 28672 for every config of a 70B key, which the
 * earlier sqrt(K) bound of 1.3e-2 refused); promoted sums keep the sqrt bound; INT8 is exact. */
START_TEST(verification_bound_by_accumulation)
{
    w8a8_problem p;
    double ulp, acc;
    w8a8_problem_init(&p, 16384, 8192, 4096, W8A8_E4M3, W8A8_BF16);
    timing_tolerance(&p, &ulp, &acc);
    ck_assert_double_eq_tol(ulp, 0x1.0p-7, 1e-12);
    ck_assert_double_eq_tol(acc, 5e-3, 1e-12);
    p.k = 28672;
    timing_tolerance(&p, &ulp, &acc);
    ck_assert_double_eq_tol(acc, 3.5e-2, 1e-12);
    ck_assert(acc > 1.9e-2 * 1.5); /* room over what the H100 measured */
    p.k = 1 << 20;
    timing_tolerance(&p, &ulp, &acc);
    ck_assert_double_eq_tol(acc, 5e-2, 1e-12);
    p.k = 28672;
    p.accum = W8A8_ACCUM_PROMOTED;
    timing_tolerance(&p, &ulp, &acc);
    ck_assert_double_eq_tol(acc, 5e-3 * sqrt(7.0), 1e-12);
    p.accum = W8A8_ACCUM_FAST;
    p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_BLOCK;
    timing_tolerance(&p, &ulp, &acc);
    ck_assert_double_eq_tol(acc, 5e-3 * sqrt(7.0), 1e-12);
    w8a8_problem_init(&p, 64, 8192, 28672, W8A8_INT8, W8A8_FP16);
    timing_tolerance(&p, &ulp, &acc);
    ck_assert_double_eq_tol(ulp, 0x1.0p-10, 1e-12);
    ck_assert_double_eq_tol(acc, 1e-5, 1e-12);
}
END_TEST

static Suite *watchdog_suite(void)
{
    Suite *s = suite_create("watchdog");
    TCase *command = tcase_create("command");
    tcase_add_checked_fixture(command, setup, teardown);
    tcase_set_timeout(command, 600);
    tcase_add_test(command, tune_stops_at_the_watchdog);
    tcase_add_test(command, tune_restarts_and_resumes);
    suite_add_tcase(s, command);
    TCase *library = tcase_create("library");
    tcase_add_checked_fixture(library, setup, teardown);
    tcase_set_timeout(library, 300);
    tcase_add_test(library, library_tune_returns_hung);
    tcase_add_test(library, library_bench_returns_hung);
    tcase_add_test(library, library_plan_stops_at_the_budget);
    tcase_add_test(library, library_tune_times_variants_of_the_finalists);
    tcase_add_test(library, library_tune_seeds_from_other_scale_kinds);
    suite_add_tcase(s, library);
    TCase *cache = tcase_create("cache");
    tcase_add_checked_fixture(cache, setup, teardown);
    tcase_add_test(cache, cache_never_elects_a_hung_config);
    suite_add_tcase(s, cache);
    TCase *bound = tcase_create("bound");
    tcase_add_test(bound, verification_bound_by_accumulation);
    suite_add_tcase(s, bound);
    return s;
}

int main(void)
{
    if (!test_fake_cuda_locate(fake_path, sizeof fake_path)) {
        printf("check_watchdog: skipped: no libfake_cuda.so beside the executable\n");
        return TEST_SKIP_CODE;
    }
    return test_run_suite(watchdog_suite());
}
