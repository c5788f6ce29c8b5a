/* The w8a8 command as a user meets it: usage errors exit 2, hostile tuning spaces given to
 * `w8a8 compile --space FILE` fail cleanly with file:line, and the commands that need a GPU
 * say so and exit 0 on a machine without one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if __has_include(<lua.h>)
#include <lauxlib.h>
#include <lua.h>
#else
#include <lua5.4/lauxlib.h>
#include <lua5.4/lua.h>
#endif

#include "cache.h"
#include "gemm.h"
#include "testutil.h"

#define SPACES W8A8_SOURCE_DIR "/tests/spaces/"

/* Runs `w8a8 <args>` with stderr merged; output (truncated) into out; returns the exit code. */
static int run_cli(const char *args, char *out, size_t size)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", W8A8_CLI, args);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t used = 0;
    out[0] = '\0';
    for (;;) {
        size_t got = fread(out + used, 1, size - 1 - used, p);
        used += got;
        if (got == 0 || used == size - 1)
            break;
    }
    out[used] = '\0';
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int status = pclose(p);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void expect(const char *args, int code, const char *needle)
{
    char out[16384];
    int got = run_cli(args, out, sizeof out);
    ck_assert_msg(got == code, "w8a8 %s: exit %d, expected %d; output:\n%s", args, got, code, out);
    ck_assert_msg(strstr(out, needle), "w8a8 %s: no '%s' in:\n%s", args, needle, out);
}

/* A --db that names no file: the reading subcommands list nothing, exit 0 and say why. */
START_TEST(missing_db_is_reported)
{
    expect("cache --db /nonexistent-w8a8-dir/user.db list", 0,
           "/nonexistent-w8a8-dir/user.db: no such file; the user database reads as empty");
    expect("cache --db /nonexistent-w8a8-dir/user.db --json show 16,4096,4096", 0,
           "no such file");
}
END_TEST

START_TEST(usage_errors_exit_2)
{
    expect("", 2, "usage: w8a8");
    expect("frobnicate", 2, "unknown command 'frobnicate'");
    expect("compile --all", 2, "--arch is required");
    expect("compile --arch sm_90a --winners --rank 1,2,3", 2, "--rank goes with --space alone");
    expect("compile --arch sm_90a --bogus", 2, "unknown option");
    /* refused before any kernel is tried (each used to fail alone, hundreds of lines) */
    expect("compile --arch sm_70 --all", 2, "--arch sm_70 is not one of sm_80");
    expect("compile --arch sm_90a --all --max-configs x", 2,
           "--max-configs wants a positive count, got 'x'");
    expect("compile --arch sm_90a --all --jobs 0", 2, "--jobs wants a positive count, got '0'");
    expect("info --bogus", 2, "unknown option");
    expect("--help", 0, "compile");
    expect("--version", 0, W8A8JIT_VERSION_STRING);
    expect("tune --model llama3-8b --devices 0,0", 2, "--devices: bad value '0,0'");
    expect("tune --model llama3-8b --devices -1", 2, "--devices: bad value");
    expect("tune --model llama3-8b --devices 0,x", 2, "--devices: bad value");
    expect("tune --model llama3-8b --shard 2/2", 2, "--shard: bad value '2/2'");
    expect("tune --model llama3-8b --shard 1", 2, "--shard: bad value");
    expect("tune --model llama3-8b --explore 0", 2, "--explore: bad value");
    expect("tune --model llama3-8b --settle 0", 2, "--settle: bad value '0'");
    expect("tune --model llama3-8b --settle 1001", 2, "--settle: bad value");
    expect("tune --model llama3-8b --settle 5ms", 2, "--settle: bad value");
    expect("tune --model llama3-8b --seed", 2, "--seed goes with --space");
    expect("tune --help", 0, "--shard I/N");
    /* every cache subcommand's --help is the cache usage (it was "unknown option", exit 2) */
    expect("cache --help", 0, "explain M,N,K");
    expect("cache explain --help", 0, "explain M,N,K");
    expect("cache export -h", 0, "export FILE.sql");
    expect("cache --db /nonexistent-w8a8-dir/user.db prune --help", 0, "prune [--stale]");
    expect("cache frobnicate", 2, "unknown subcommand");
}
END_TEST

/* A shape the library refuses is reported, the others still run, and the exit code says a
 * shape failed (with or without a GPU: the problem is validated before the device). */
START_TEST(bench_reports_a_bad_shape_and_exits_1)
{
    expect("bench --no-cublaslt --shape 1,2,3", 1, "problem.k: 3 is not a multiple of 16");
    expect("bench --no-cublaslt --json --shape 1,2,3", 1, "\"error\": \"W8A8_INVALID");
    expect("bench --graph --batch 0 --shape 16,64,64", 2, "--batch: bad value '0'");
    expect("bench --batch 1001 --shape 16,64,64", 2, "--batch: bad value '1001'");
    expect("bench --help", 0, "--batch N");
}
END_TEST

START_TEST(hostile_spaces_fail_with_file_and_line)
{
    static const struct {
        const char *file, *where, *what;
    } cases[] = {
        {"endless_chunk.lua", "endless_chunk.lua:3:", "instruction budget"},
        {"endless_valid.lua", "endless_valid.lua:7:", "instruction budget"},
        {"memory_string.lua", "memory_string.lua:4:", "memory cap"},
        {"memory_table.lua", "memory_table.lua:9:", "memory cap"},
        {"io_open.lua", "io_open.lua:2:", "global 'io'"},
        {"os_execute.lua", "os_execute.lua:2:", "global 'os'"},
        {"require.lua", "require.lua:2:", "global 'require'"},
        {"string_dump.lua", "string_dump.lua:2:", "field 'dump'"},
        {"valid_error.lua", "valid_error.lua:8:", "no_such_field"},
        {"syntax_error.lua", "syntax_error.lua:3:", "'}' expected"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1024];
        snprintf(args, sizeof args, "compile --arch sm_90a --space '%s%s'", SPACES, cases[i].file);
        expect(args, 1, cases[i].where);
        expect(args, 1, cases[i].what);
        expect(args, 1, "W8A8_SCRIPT_ERROR");
    }
    /* not files: refused at once instead of read without end */
    expect("compile --arch sm_80 --space /dev/zero", 1, "W8A8_IO_ERROR");
    expect("compile --arch sm_80 --space /tmp/", 1, "Is a directory");
}
END_TEST

static int dump_writer(lua_State *L, const void *p, size_t size, void *user)
{
    (void)L;
    return fwrite(p, 1, size, user) == size ? 0 : 1;
}

START_TEST(bytecode_space_is_refused)
{
    char dir[512], path[600], args[800];
    test_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/compiled.lua", dir);
    lua_State *L = luaL_newstate();
    ck_assert_int_eq(luaL_loadstring(L, "return {template = 'reference_gemm', arch = 'sm_80'}"), LUA_OK);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(lua_dump(L, dump_writer, f, 0), 0);
    fclose(f);
    lua_close(L);
    snprintf(args, sizeof args, "compile --arch sm_80 --space '%s'", path);
    expect(args, 1, "precompiled Lua bytecode is not accepted");
    remove(path);
    rmdir(dir);
}
END_TEST

START_TEST(a_space_file_compiles)
{
    char args[512];
    snprintf(args, sizeof args, "compile --arch sm_80 --space '%s' --max-configs 2 --json",
             W8A8_SOURCE_DIR "/scripts/reference_gemm.lua");
    expect(args, 0, "\"template\": \"reference_gemm\"");
}
END_TEST

/* compile --winners builds each cached winner whose kernel targets --arch with the defines
 * its family plans with (tests/caches/winners.sql: two sm90_gemm winners, N and K compiled
 * into the specialized ones; an sm80_gemm winner, built for sm_90 and not sm_90a; a row of an
 * unknown family, skipped and counted), each kernel once. */
START_TEST(compile_winners_builds_the_cached_kernels)
{
    char dir[512], db[600], args[1024];
    test_mkdtemp(dir, sizeof dir);
    snprintf(db, sizeof db, "%s/tuning.db", dir);
    snprintf(args, sizeof args, "cache --db '%s' import '%s'", db,
             W8A8_SOURCE_DIR "/tests/caches/winners.sql");
    expect(args, 0, "4 new measurements");
    /* this test's database alone (the kernels go to the test's W8A8_KERNEL_DIR) */
    const char *had_db = getenv("W8A8_CACHE_DB");
    char saved_db[1024] = "";
    if (had_db)
        snprintf(saved_db, sizeof saved_db, "%s", had_db);
    setenv("W8A8_CACHE_DB", db, 1);
    setenv("W8A8_CACHE_PATH", "", 1);
    static char out[1 << 15];
    ck_assert_int_eq(run_cli("compile --arch sm_90a --winners --json", out, sizeof out), 0);
    int kernels = 0;
    for (const char *at = out; (at = strstr(at, "\"template\": \"sm90_gemm\"")) != NULL; at++)
        kernels++;
    ck_assert_msg(kernels == 2, "%d sm90_gemm kernels in:\n%s", kernels, out);
    ck_assert_msg(strstr(out, ",N=4096,K=7168,") && strstr(out, ",N=6144,K=4096,"), "%s", out);
    ck_assert_msg(!strstr(out, "sm80_gemm") && strstr(out, "1 winner of families this build"),
                  "%s", out);
    expect("compile --arch sm_90 --winners", 0, "sm80_gemm");
    expect("compile --arch sm_80 --winners", 1, "nothing to compile for sm_80");
    /* --check: the same kernels' defines and nothing compiled; a row whose config this build
     * refuses (an item it does not have) is listed, and the exit status is 1 */
    expect("compile --arch sm_90a --winners --check", 0,
           "checked 2 kernels for sm_90a (nothing compiled): 0 refused");
    char layer[600], bad[700];
    snprintf(layer, sizeof layer, "%s/layer", dir);
    ck_assert_int_eq(mkdir(layer, 0700), 0);
    snprintf(bad, sizeof bad, "%s/bad.sql", layer);
    FILE *in = fopen(W8A8_SOURCE_DIR "/tests/caches/winners.sql", "r"), *out_sql = fopen(bad, "w");
    ck_assert(in && out_sql);
    char line[4096];
    int marked = 0;
    while (fgets(line, sizeof line, in)) {
        const char *item = "overlap=0,stagger=0,wave=0";
        char *at = strstr(line, item);
        if (at && !marked) { /* the per-tensor winner with an item this build does not have */
            fprintf(out_sql, "%.*s%s,fill=1%s", (int)(at - line), line, item, at + strlen(item));
            marked = 1;
        } else if (strncmp(line, "INSERT", 6) == 0) {
            fputs(line, out_sql);
        }
    }
    fclose(in);
    fclose(out_sql);
    ck_assert_int_eq(marked, 1);
    /* bad.sql alone, as a shipped layer */
    setenv("W8A8_CACHE_DB", "/nonexistent/dir/tuning.db", 1);
    setenv("W8A8_CACHE_PATH", layer, 1);
    expect("compile --arch sm_90a --winners --check", 1, "unknown item at 'fill=1'");
    expect("compile --arch sm_90a --winners --check", 1, "1 refused");
    remove(bad);
    rmdir(layer);
    if (had_db)
        setenv("W8A8_CACHE_DB", saved_db, 1);
    else
        unsetenv("W8A8_CACHE_DB");
    unsetenv("W8A8_CACHE_PATH");
    remove(db);
    rmdir(dir);
}
END_TEST

/* The tuned caches shipped in cache/ load as read-only layers and answer for an H200 and an
 * H100 80GB HBM3 exactly, and for another sm_90 part as a foreign device. */
START_TEST(shipped_cache_answers)
{
    char args[1024];
    snprintf(args, sizeof args,
             "cache --db /nonexistent/dir/tuning.db explain 4096,4096,4096 "
             "--on 'sm_90:NVIDIA H200:132:150109880320'");
    setenv("W8A8_CACHE_PATH", W8A8_SOURCE_DIR "/cache", 1);
    expect(args, 0, "exact");
    expect(args, 0, "h200-sm90.sql");
    snprintf(args, sizeof args,
             "cache --db /nonexistent/dir/tuning.db explain 4096,4096,4096 "
             "--on 'sm_90:NVIDIA H100 80GB HBM3:132:85017493504'");
    expect(args, 0, "exact");
    expect(args, 0, "h100-llama3-8b.sql");
    snprintf(args, sizeof args,
             "cache --db /nonexistent/dir/tuning.db explain 4096,4096,4096 "
             "--on 'sm_90:NVIDIA H800:132:85520809984'");
    expect(args, 0, "foreign sm_90 device");
    /* any number of shapes: 100, each answered (the last one too) */
    char many[4096] = "cache --db /nonexistent/dir/tuning.db explain --on "
                      "'sm_90:NVIDIA H200:132:150109880320'";
    for (int m = 1; m <= 100; m++) {
        size_t used = strlen(many);
        snprintf(many + used, sizeof many - used, " %d,4096,4096", m);
    }
    static char out[1 << 16];
    ck_assert_int_eq(run_cli(many, out, sizeof out), 0);
    int answered = 0;
    for (const char *at = out; (at = strstr(at, ",4096,4096  exact ")) != NULL; at++)
        answered++;
    ck_assert_int_eq(answered, 100);
    unsetenv("W8A8_CACHE_PATH");
}
END_TEST

/* Every row of the caches shipped in cache/ names a family of this build and a config that
 * family takes for the row's problem (parsed and checked as a plan does, no compile): a row
 * whose config a later build refuses (an item taken back out) is otherwise skipped by the
 * dispatcher at run time, which then runs a slower link of its chain. A row's config is also
 * one the family takes for the same shape's other epilogues, which the lookup lends it to. */
typedef struct shipped_walk {
    w8a8_context *ctx;
    int rows, bad, lent, lent_bad;
    char first[2048], first_lent[2048];
} shipped_walk;

/* A row lends its config to the same shape's other epilogues (the cache lookup's
 * CACHE_EPILOGUE: scale kinds, out dtype, bias): the family takes it for each of them too. */
static void check_lent(shipped_walk *w, const gemm_family *family, const w8a8_cache_entry *e)
{
    cache_key key, siblings[CACHE_EPILOGUES];
    cache_key_make(&key, &e->problem, NULL);
    size_t count = cache_epilogue_siblings(&key, siblings);
    for (size_t i = 0; i < count; i++) {
        w8a8_problem p = e->problem;
        p.a_scale.kind = siblings[i].a_scale;
        p.b_scale.kind = siblings[i].b_scale;
        p.out_type = siblings[i].out_type;
        p.bias_type = siblings[i].bias_type;
        char defines[2 * W8A8_CONFIG_BYTES];
        w->lent++;
        if (gemm_family_defines(family, w->ctx, &p, e->config, defines, sizeof defines) == W8A8_OK)
            continue;
        size_t used = strlen(w->first_lent);
        if (++w->lent_bad <= 5)
            snprintf(w->first_lent + used, sizeof w->first_lent - used,
                     "\n  %s %s (%lld,%lld,%lld) as %s x %s, %s out, %s bias: %s", e->family,
                     e->config, (long long)p.m, (long long)p.n, (long long)p.k,
                     w8a8_scale_kind_name(p.a_scale.kind), w8a8_scale_kind_name(p.b_scale.kind),
                     w8a8_dtype_name(p.out_type), w8a8_dtype_name(p.bias_type),
                     w8a8_errmsg(w->ctx));
    }
}

static int check_shipped_row(void *user, const w8a8_cache_entry *e)
{
    shipped_walk *w = user;
    w->rows++;
    const gemm_family *family = gemm_family_find(e->family);
    char defines[2 * W8A8_CONFIG_BYTES];
    w8a8_status st = family ? gemm_family_defines(family, w->ctx, &e->problem, e->config,
                                                  defines, sizeof defines)
                            : W8A8_UNSUPPORTED;
    if (st != W8A8_OK) {
        w->bad++;
        size_t used = strlen(w->first);
        if (w->bad <= 5)
            snprintf(w->first + used, sizeof w->first - used, "\n  %s %s (%lld,%lld,%lld) in %s: %s",
                     e->family, e->config, (long long)e->problem.m, (long long)e->problem.n,
                     (long long)e->problem.k, e->source,
                     family ? w8a8_errmsg(w->ctx) : "no such family");
    }
    if (st == W8A8_OK)
        check_lent(w, family, e);
    return 0;
}

START_TEST(shipped_rows_have_kernels)
{
    w8a8_context_options o = {.cache_db = "/nonexistent/dir/tuning.db",
                              .cache_path = W8A8_SOURCE_DIR "/cache",
                              .flags = W8A8_CONTEXT_CPU_ONLY};
    shipped_walk w = {.rows = 0};
    ck_assert_int_eq(w8a8_context_open(&w.ctx, &o), W8A8_OK);
    ck_assert_int_eq(w8a8_cache_list(w.ctx, NULL, check_shipped_row, &w), W8A8_OK);
    w8a8_context_close(w.ctx);
    ck_assert_msg(w.rows > 1000, "%d shipped rows", w.rows);
    ck_assert_msg(w.bad == 0, "%d of %d shipped rows have no kernel:%s", w.bad, w.rows, w.first);
    printf("shipped rows: %d; their configs lent to other epilogues: %d, %d refused\n", w.rows,
           w.lent, w.lent_bad);
    ck_assert_msg(w.lent > 1000, "%d lent configs", w.lent);
    ck_assert_msg(w.lent_bad == 0, "%d of %d configs lent to other epilogues refused:%s",
                  w.lent_bad, w.lent, w.first_lent);
}
END_TEST

START_TEST(gpu_commands_without_a_device)
{
    char out[16384];
    if (run_cli("info --json", out, sizeof out) == 0 && strstr(out, "\"has_device\": true"))
        return; /* this machine has a GPU: the GPU suites cover these commands */
    expect("info", 0, "no CUDA device");
    expect("check --count 3", 0, "no CUDA device");
    /* the shards of a key list partition it: 100 keys in 34 + 33 + 33 */
    expect("tune --model llama3-8b --shard 0/3", 1, "shard 0/3: 34 of 100 keys");
    expect("tune --model llama3-8b --shard 2/3", 1, "shard 2/3: 33 of 100 keys");
    expect("tune --model llama3-8b --shard 2/3", 1, "W8A8_NO_DEVICE");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, usage_errors_exit_2);
    tcase_add_test(tc, missing_db_is_reported);
    tcase_add_test(tc, bench_reports_a_bad_shape_and_exits_1);
    tcase_add_test(tc, hostile_spaces_fail_with_file_and_line);
    tcase_add_test(tc, bytecode_space_is_refused);
    tcase_add_test(tc, a_space_file_compiles);
    tcase_add_test(tc, shipped_cache_answers);
    tcase_add_test(tc, shipped_rows_have_kernels);
    tcase_add_test(tc, compile_winners_builds_the_cached_kernels);
    tcase_add_test(tc, gpu_commands_without_a_device);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
