/* Robustness of the public API (CPU only): every function of w8a8jit.h that makes sense
 * without a GPU, called with NULL pointers, a NULL context, garbage enums, negative and huge
 * sizes, garbage strides and scale layouts, bad strings (NULL, "", very long, not UTF-8),
 * missing, unreadable and garbage files and folders passed as files. Each call must return a
 * w8a8_status (a message and the code kept on the context when it is not W8A8_OK), must not
 * print and must not crash; the suite runs under the sanitize build too, where an overflow or
 * undefined behaviour prints (UBSan) or aborts (ASan) and so fails the test.
 * A seeded random loop then fills w8a8_problem / w8a8_quant_problem / w8a8_linear_problem with
 * random bytes or random small values and checks the validators against the entry points:
 * the CPU entry points run (on buffers sized from the documented layouts, so ASan catches a
 * write past them) exactly when validation says OK, and the GPU entry points of a CPU-only
 * context answer W8A8_NO_DEVICE for good input and the validator's status for bad input. */
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define LONG_TEXT_BYTES 5000            /* longer than every path and name buffer */
#define RANDOM_ITERATIONS 3000          /* per random test */
#define RANDOM_MAX_BYTES (2u << 20)     /* skip random problems whose buffers exceed this */
#define FAKE_DEVICE_BYTES 4096          /* stands in for device memory never touched here */

/* Host memory passed where device pointers go: a CPU-only context must never read it. */
static _Alignas(256) unsigned char fake_device[FAKE_DEVICE_BYTES];

/* ---- helpers ------------------------------------------------------------------------------ */

/* Checks what every call promises: a status of the enum, and on failure a message and the
 * code kept on the context. Returns the status. */
static w8a8_status check_call(const w8a8_context *ctx, w8a8_status st, const char *what, int line)
{
    ck_assert_msg((unsigned)st <= (unsigned)W8A8_INTERNAL, "line %d: %s returned %d", line, what,
                  (int)st);
    const char *msg = w8a8_errmsg(ctx);
    ck_assert_msg(msg != NULL, "line %d: %s: w8a8_errmsg is NULL", line, what);
    if (st != W8A8_OK) {
        ck_assert_msg(msg[0] != '\0', "line %d: %s returned %s without a message", line, what,
                      w8a8_status_string(st));
        if (ctx)
            ck_assert_msg(w8a8_errcode(ctx) == st, "line %d: %s returned %s, w8a8_errcode %s",
                          line, what, w8a8_status_string(st),
                          w8a8_status_string(w8a8_errcode(ctx)));
    }
    return st;
}
#define CALL(ctx, expr) check_call((ctx), (expr), #expr, __LINE__)

/* The call fails (any status but OK). */
#define FAILS(ctx, expr)                                                                        \
    do {                                                                                       \
        w8a8_status st_ = CALL(ctx, expr);                                                     \
        ck_assert_msg(st_ != W8A8_OK, "line %d: %s succeeded", __LINE__, #expr);              \
    } while (0)

/* The call returns exactly `code`. */
#define EXPECT(ctx, expr, code)                                                                 \
    do {                                                                                       \
        w8a8_status st_ = CALL(ctx, expr);                                                     \
        ck_assert_msg(st_ == (code), "line %d: %s: want %s, got %s (%s)", __LINE__, #expr,     \
                      w8a8_status_string(code), w8a8_status_string(st_), w8a8_errmsg(ctx));    \
    } while (0)

/* Success leaves "" as the message. */
#define EXPECT_OK_CLEAN(ctx, expr)                                                              \
    do {                                                                                       \
        EXPECT(ctx, expr, W8A8_OK);                                                            \
        ck_assert_msg(w8a8_errmsg(ctx)[0] == '\0' && w8a8_errcode(ctx) == W8A8_OK,             \
                      "line %d: %s succeeded but left '%s'", __LINE__, #expr, w8a8_errmsg(ctx)); \
    } while (0)

/* The library never prints: stdout and stderr go to a file while a test runs, which must stay
 * empty (under the sanitize build UBSan reports land there too). The file,
 * $TMPDIR/w8a8-robustness-<pid>.txt, is removed at the end of a passing test and left behind
 * when the test fails or dies (an ASan report is there then); W8A8_TEST_NO_CAPTURE=1 turns
 * capturing off. */
typedef struct quiet {
    bool on;
    char path[512];
    int saved_out, saved_err;
} quiet;

static void quiet_begin(quiet *q)
{
    const char *off = getenv("W8A8_TEST_NO_CAPTURE"), *tmp = getenv("TMPDIR");
    q->on = !(off && *off && strcmp(off, "0") != 0);
    if (!q->on)
        return;
    fflush(stdout);
    fflush(stderr);
    snprintf(q->path, sizeof q->path, "%s/w8a8-robustness-%ld.txt", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    int fd = open(q->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ck_assert_msg(fd >= 0, "cannot create %s", q->path);
    q->saved_out = dup(STDOUT_FILENO);
    q->saved_err = dup(STDERR_FILENO);
    ck_assert(q->saved_out >= 0 && q->saved_err >= 0);
    ck_assert(dup2(fd, STDOUT_FILENO) >= 0 && dup2(fd, STDERR_FILENO) >= 0);
    close(fd);
}

static void quiet_end(quiet *q)
{
    if (!q->on)
        return;
    fflush(stdout);
    fflush(stderr);
    dup2(q->saved_out, STDOUT_FILENO);
    dup2(q->saved_err, STDERR_FILENO);
    close(q->saved_out);
    close(q->saved_err);
    char text[512] = "";
    FILE *f = fopen(q->path, "rb");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f)
        fclose(f);
    unlink(q->path);
    ck_assert_msg(got == 0, "the library printed: %s", text);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    chmod(path, 0700); /* the unreadable file */
    remove(path);
    return 0;
}

static void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void write_bytes(const char *dir, const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    fclose(f);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    write_bytes(dir, name, text, strlen(text));
}

/* A folder of hostile files: garbage databases and spaces, a Lua bytecode header, scripts that
 * fail, folders with file names, a file nobody may read, a name that is not UTF-8. */
static void make_hostile_files(const char *dir)
{
    unsigned char garbage[4096];
    test_rng r;
    test_rng_seed(&r, 7);
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (unsigned char)test_rng_next(&r);
    write_bytes(dir, "garbage.db", garbage, sizeof garbage);
    write_bytes(dir, "garbage.lua", garbage, sizeof garbage);
    write_bytes(dir, "garbage.sql", garbage, sizeof garbage);
    write_text(dir, "truncated.db", "SQLite format 3");
    write_text(dir, "empty.lua", "");
    write_text(dir, "drop.sql", "DROP TABLE measurements; DELETE FROM devices;");
    write_text(dir, "syntax.lua", "return {");
    write_text(dir, "number.lua", "return 42");
    write_text(dir, "error.lua", "error('\\xff\\xfe not utf-8')");
    write_text(dir, "badfields.lua", "return {name = 7, template = '../../etc', arch = 'sm_\\xff',"
                                     " params = {x = {}}}");
    write_bytes(dir, "bytecode.lua", "\x1bLua\x54\x00\x19\x93\r\n\x1a\n\x04\x08\x08", 15);
    write_bytes(dir, "\xff\xfe.lua", garbage, 64);
    write_text(dir, "unreadable.lua", "return {}");
    char path[1024];
    snprintf(path, sizeof path, "%s/unreadable.lua", dir);
    ck_assert_int_eq(chmod(path, 0), 0);
    static const char *const folders[] = {"folder.lua", "folder.db", "folder.sql"};
    for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, folders[i]);
        ck_assert_int_eq(mkdir(path, 0755), 0);
    }
}

/* A CPU-only context whose kernel store and tuning database live in dir. */
static w8a8_context *open_in(const char *dir)
{
    char kernels[1024], db[1024];
    snprintf(kernels, sizeof kernels, "%s/kernels", dir);
    snprintf(db, sizeof db, "%s/tuning.db", dir);
    w8a8_context_options o = {0};
    o.kernel_dir = kernels;
    o.cache_db = db;
    o.flags = W8A8_CONTEXT_CPU_ONLY;
    w8a8_context *ctx = NULL;
    w8a8_status st = w8a8_context_open(&ctx, &o);
    ck_assert_msg(st == W8A8_OK, "w8a8_context_open: %s", w8a8_errmsg(ctx));
    return ctx;
}

static char long_text[LONG_TEXT_BYTES + 1];

static void fill_long_text(void)
{
    memset(long_text, 'a', LONG_TEXT_BYTES);
    long_text[0] = '/';
    long_text[LONG_TEXT_BYTES] = '\0';
}

/* Bad strings for names, paths, defines and arches. */
static const char *bad_string(int i)
{
    switch (i) {
    case 0: return NULL;
    case 1: return "";
    case 2: return long_text;
    case 3: return long_text + 1; /* no slash: a name, not a path */
    case 4: return "\xff\xfe\xc3\x28";
    case 5: return "../../../../etc/passwd";
    case 6: return "/nonexistent/w8a8/x.lua";
    case 7: return " ";
    case 8: return "sm_90\n#include </dev/zero>";
    case 9: return "%s%s%s%n";
    }
    return (const char *)-1; /* past the end */
}
#define BAD_STRING_END ((const char *)-1)

static w8a8_problem good_problem(void)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 4, 16, 32, W8A8_E4M3, W8A8_BF16);
    return p;
}

/* ---- names, enums and NULL everywhere ------------------------------------------------------- */

START_TEST(enums_and_names)
{
    quiet q;
    quiet_begin(&q);
    ck_assert_int_eq(w8a8_version_number(), W8A8JIT_VERSION_NUMBER);
    ck_assert_str_eq(w8a8_version_string(), W8A8JIT_VERSION_STRING);
    static const int garbage[] = {-1, 77, 14, 255, 0x7FFFFFFF, (int)0x80000000};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        int v = garbage[i];
        ck_assert_str_eq(w8a8_status_string((w8a8_status)v), "W8A8_UNKNOWN");
        ck_assert_ptr_null(w8a8_dtype_name((w8a8_dtype)v));
        ck_assert_uint_eq(w8a8_dtype_size((w8a8_dtype)v), 0);
        ck_assert_ptr_null(w8a8_scale_kind_name((w8a8_scale_kind)v));
        ck_assert_ptr_null(w8a8_quant_mode_name((w8a8_quant_mode)v));
        ck_assert_ptr_null(w8a8_tune_mode_name((w8a8_tune_mode)v));
    }
    w8a8_dtype dtype = W8A8_E4M3;
    w8a8_tune_mode mode = W8A8_TUNE_OFF;
    for (int i = 0; bad_string(i) != BAD_STRING_END; i++) {
        const char *s = bad_string(i);
        ck_assert_int_eq(w8a8_dtype_parse(s, &dtype), W8A8_INVALID);
        if (s && !*s) /* "" is a documented spelling of off */
            ck_assert_int_eq(w8a8_tune_mode_parse(s, &mode), W8A8_OK);
        else
            FAILS(NULL, w8a8_tune_mode_parse(s, &mode));
    }
    ck_assert_int_eq(w8a8_dtype_parse("e4m3", NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_dtype_parse("E4M3 ", &dtype), W8A8_INVALID);
    FAILS(NULL, w8a8_tune_mode_parse("online", NULL));
    FAILS(NULL, w8a8_tune_mode_parse("onlinex", &mode));
    w8a8_problem_init(NULL, -1, -1, -1, (w8a8_dtype)77, (w8a8_dtype)77);
    w8a8_free(NULL);
    w8a8_context_close(NULL);
    w8a8_space_result_free(NULL);
    w8a8_space_plan_free(NULL);
    w8a8_tune_report_free(NULL);
    w8a8_space_result zero_result = {0};
    w8a8_space_result_free(&zero_result);
    w8a8_space_plan zero_plan = {0};
    w8a8_space_plan_free(&zero_plan);
    w8a8_tune_report zero_report = {0};
    w8a8_tune_report_free(&zero_report);
    const char *const *names = w8a8_space_names();
    ck_assert_ptr_nonnull(names);
    ck_assert_ptr_nonnull(w8a8_template_names(NULL));
    quiet_end(&q);
}
END_TEST

/* Every function that takes a context, with none. */
START_TEST(null_context)
{
    quiet q;
    quiet_begin(&q);
    w8a8_problem p = good_problem();
    static _Alignas(16) unsigned char host[4096];
    w8a8_tensors t = {host, host, host, (float *)host, (float *)host, NULL, NULL, NULL};
    w8a8_quant_problem qp = {.m = 4, .k = 32, .in_type = W8A8_BF16, .out_type = W8A8_E4M3,
                             .mode = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_quant_tensors qt = {host, host + 1024, (float *)(host + 2048), NULL, NULL};
    w8a8_linear_problem lp = {.m = 4, .n = 16, .k = 32, .x_type = W8A8_BF16, .w_type = W8A8_E4M3,
                              .out_type = W8A8_BF16, .x_quant = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_linear_tensors lt = {host, host, host, (float *)host, NULL, NULL, NULL, NULL, NULL};
    int64_t rows[2] = {1, 1}, count = 0;
    float scales[2] = {1, 1}, scale = 0;
    size_t bytes = 0;
    double us = 0;
    w8a8_explain explain;
    w8a8_device_info info;
    w8a8_context_stats stats;
    w8a8_kernel_info kinfo;
    char *log = (char *)1, config[W8A8_SPACE_CONFIG_BYTES];
    w8a8_space_result result;
    w8a8_space_plan plan;
    w8a8_bench_result bench;
    w8a8_tune_options topts = {.problems = &p, .problem_count = 1};
    w8a8_tune_report report;
    w8a8_cache_prune_options prune = {.keep_winners = 1};
    const char *srcs[1] = {"x.db"};

    EXPECT(NULL, w8a8_context_open(NULL, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_context_has_device(NULL), 0);
    ck_assert_int_eq(w8a8_error_cuda(NULL), 0);
    ck_assert_int_eq(w8a8_error_nvrtc(NULL), 0);
    ck_assert_ptr_nonnull(w8a8_errmsg(NULL));
    ck_assert_ptr_nonnull(w8a8_cache_warnings(NULL));
    EXPECT(NULL, w8a8_context_device_info(NULL, &info), W8A8_INVALID);
    EXPECT(NULL, w8a8_context_stats_get(NULL, &stats), W8A8_INVALID);
    EXPECT(NULL, w8a8_problem_validate(NULL, &p), W8A8_INVALID);
    EXPECT(NULL, w8a8_scaled_mm(NULL, &p, &t, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_scaled_mm_reference(NULL, &p, &t, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_scaled_mm_cpu(NULL, &p, &t), W8A8_INVALID);
    EXPECT(NULL, w8a8_kernel_compile(NULL, "reference_gemm", "", "sm_80", &kinfo, &log), W8A8_INVALID);
    ck_assert_ptr_null(log);
    EXPECT(NULL, w8a8_quantize(NULL, &qp, &qt, NULL), W8A8_INVALID);
    /* The quantization helpers need no context; bad input still fails with a message. */
    EXPECT(NULL, w8a8_quant_problem_validate(NULL, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_quantize_cpu(NULL, NULL, &qt), W8A8_INVALID);
    EXPECT(NULL, w8a8_linear_problems(NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_linear_workspace_size(NULL, NULL, &bytes), W8A8_INVALID);
    EXPECT(NULL, w8a8_linear(NULL, &lp, &lt, fake_device, sizeof fake_device, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_requantize_fused(NULL, W8A8_E4M3, 16, rows, 2, host, host, scales,
                                              &scale, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_expand_scales(NULL, rows, 2, scales, scales, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_e4m3fn_to_fnuz(NULL, host, 16, scales, 1, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_requantize_fused_cpu(NULL, W8A8_E4M3, 16, NULL, 2, host, host,
                                                  scales, &scale), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_expand_scales_cpu(NULL, rows, 2, NULL, scales), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_e4m3fn_to_fnuz_cpu(NULL, NULL, 16, scales, 1), W8A8_INVALID);
    EXPECT(NULL, w8a8_space_enumerate(NULL, "reference_gemm", &p, "sm_80", &result), W8A8_INVALID);
    EXPECT(NULL, w8a8_space_default(NULL, "reference_gemm", &p, "sm_80", config, sizeof config),
           W8A8_INVALID);
    EXPECT(NULL, w8a8_space_compile_plan(NULL, "reference_gemm", "sm_80", 1, &plan), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_list(NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_explain(NULL, &p, &explain), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_explain_device(NULL, &p, NULL, &explain), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_export(NULL, "x.sql", 0, &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_import(NULL, "x.sql", &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_merge(NULL, "x.db", srcs, 1, &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_prune(NULL, &prune, &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_dispatch_set_tune_mode(NULL, W8A8_TUNE_OFF), W8A8_INVALID);
    EXPECT(NULL, w8a8_dispatch_warm(NULL, &p), W8A8_INVALID);
    EXPECT(NULL, w8a8_dispatch_explain(NULL, &p, &explain), W8A8_INVALID);
    EXPECT(NULL, w8a8_tune(NULL, &topts, NULL, NULL, &report), W8A8_INVALID);
    ck_assert_uint_eq(report.count, 0);
    EXPECT(NULL, w8a8_bench_time(NULL, &p, NULL, NULL, NULL, &bench), W8A8_INVALID);
    EXPECT(NULL, w8a8_bench_host_overhead(NULL, &p, 10, &us, NULL), W8A8_INVALID);
    quiet_end(&q);
}
END_TEST

/* Every function that takes pointers, with a context and NULL for each pointer. */
START_TEST(null_arguments)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    w8a8_problem p = good_problem();
    int64_t rows[2] = {1, 1};
    float scales[2] = {1, 1}, scale = 0;
    static _Alignas(16) unsigned char host[4096];
    char config[W8A8_SPACE_CONFIG_BYTES];
    w8a8_space_result result;
    w8a8_space_plan plan;
    w8a8_explain explain;
    w8a8_bench_result bench;
    double us;
    size_t bytes;
    w8a8_quant_problem qp;
    w8a8_problem mm;
    w8a8_tune_options topts = {0};
    w8a8_tune_report report;

    EXPECT(ctx, w8a8_context_device_info(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_context_stats_get(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_problem_validate(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm(ctx, &p, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_kernel_compile(ctx, NULL, NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_quant_problem_validate(ctx, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_quant_rows_out(NULL), -1);
    EXPECT(ctx, w8a8_quantize(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_quantize_cpu(ctx, NULL, NULL), W8A8_INVALID);
    w8a8_quant_problem good_q = {.m = 4, .k = 32, .in_type = W8A8_BF16, .out_type = W8A8_E4M3};
    EXPECT(ctx, w8a8_quantize(ctx, &good_q, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &good_q, NULL), W8A8_INVALID);
    w8a8_quant_tensors qt = {0};
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &good_q, &qt), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear_problems(ctx, NULL, &qp, &mm), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear_workspace_size(ctx, NULL, &bytes), W8A8_INVALID);
    w8a8_linear_problem lp = {.m = 4, .n = 16, .k = 32, .x_type = W8A8_BF16, .w_type = W8A8_E4M3,
                              .out_type = W8A8_BF16, .x_quant = W8A8_QUANT_DYNAMIC_TOKEN};
    EXPECT_OK_CLEAN(ctx, w8a8_linear_problems(ctx, &lp, NULL, NULL));
    EXPECT(ctx, w8a8_linear_workspace_size(ctx, &lp, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, NULL, NULL, NULL, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, NULL, fake_device, sizeof fake_device, NULL), W8A8_INVALID);
    w8a8_linear_tensors lt = {0};
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device, sizeof fake_device, NULL), W8A8_INVALID);
    lt = (w8a8_linear_tensors){fake_device, fake_device, fake_device, (float *)fake_device,
                               NULL, NULL, NULL, NULL, NULL};
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, NULL, sizeof fake_device, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device + 1, sizeof fake_device, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device, sizeof fake_device, NULL), W8A8_NO_DEVICE);
    /* Weight utilities: each pointer NULL in turn. */
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, NULL, 2, host, host, scales,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, NULL, host, scales,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, host, NULL, scales,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, host, host, NULL,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, host, host, scales,
                                                 NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_E4M3, 16, rows, 2, host, host, NULL,
                                             &scale, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, NULL, 2, scales, scales), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, 2, NULL, scales), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, 2, scales, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, 2, scales, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, NULL, 16, scales, 1), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, host, 16, NULL, 1), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, NULL, 0, NULL, 1), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "scales"));
    EXPECT_OK_CLEAN(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, NULL, 0, NULL, 0));
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, NULL, 16, scales, 1, NULL), W8A8_INVALID);
    /* Spaces, cache, dispatcher, tuner, benchmarks. */
    EXPECT(ctx, w8a8_space_enumerate(ctx, NULL, &p, "sm_80", &result), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", NULL, "sm_80", &result), W8A8_INVALID);
    ck_assert_ptr_null(result.configs);
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, "sm_80", NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, NULL, &p, "sm_80", config, sizeof config), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, "reference_gemm", NULL, "sm_80", config, sizeof config),
           W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, "reference_gemm", &p, "sm_80", NULL, 64), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, "reference_gemm", &p, "sm_80", config, 0), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_compile_plan(ctx, NULL, "sm_80", 0, &plan), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_compile_plan(ctx, "reference_gemm", NULL, 0, &plan), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_compile_plan(ctx, "reference_gemm", "sm_80", 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_list(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_explain(ctx, NULL, &explain), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_explain(ctx, &p, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_explain_device(ctx, NULL, NULL, &explain), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_export(ctx, NULL, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_import(ctx, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_merge(ctx, NULL, NULL, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_merge(ctx, "x.db", NULL, 3, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_prune(ctx, NULL, NULL), W8A8_INVALID);
    w8a8_cache_prune_options none = {0};
    EXPECT(ctx, w8a8_cache_prune(ctx, &none, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_warm(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_explain(ctx, NULL, &explain), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_explain(ctx, &p, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_tune(ctx, NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_tune(ctx, &topts, NULL, NULL, &report), W8A8_INVALID);
    topts.problem_count = 3; /* problems NULL */
    EXPECT(ctx, w8a8_tune(ctx, &topts, NULL, NULL, &report), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_time(ctx, NULL, NULL, NULL, NULL, &bench), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_host_overhead(ctx, NULL, 10, &us, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_host_overhead(ctx, &p, 10, NULL, NULL), W8A8_INVALID);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* ---- contexts with hostile options ---------------------------------------------------------- */

/* What a context with odd options must still survive: the cache, the spaces, the JIT. */
static void exercise_context(w8a8_context *ctx, const char *dir)
{
    char path[1024];
    w8a8_problem p = good_problem();
    w8a8_explain explain;
    w8a8_device_info info;
    w8a8_space_result result;
    char config[W8A8_SPACE_CONFIG_BYTES];
    int64_t count;
    CALL(ctx, w8a8_context_device_info(ctx, &info));
    ck_assert_int_eq(w8a8_context_has_device(ctx), 0);
    ck_assert_ptr_nonnull(w8a8_cache_warnings(ctx));
    CALL(ctx, w8a8_cache_explain(ctx, &p, &explain));
    CALL(ctx, w8a8_dispatch_explain(ctx, &p, &explain));
    snprintf(path, sizeof path, "%s/garbage.db/out.sql", dir); /* under a file: fails as root */
    FAILS(ctx, w8a8_cache_export(ctx, path, 0, &count));
    w8a8_cache_prune_options prune = {.keep_winners = 1, .stale = 1, .older_than = INT64_MAX};
    CALL(ctx, w8a8_cache_prune(ctx, &prune, &count));
    CALL(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, "sm_80", &result));
    w8a8_space_result_free(&result);
    CALL(ctx, w8a8_space_default(ctx, "reference_gemm", &p, "sm_80", config, sizeof config));
    char *log = NULL;
    CALL(ctx, w8a8_kernel_compile(ctx, "reference_gemm", "A=", "sm_80", NULL, &log));
    w8a8_free(log);
    CALL(ctx, w8a8_kernel_compile(ctx, "no_such_template", "", "sm_80", NULL, NULL));
}

START_TEST(hostile_context_options)
{
    quiet q;
    quiet_begin(&q);
    char dir[512], path[1024], other[1024];
    test_mkdtemp(dir, sizeof dir);
    make_hostile_files(dir);
    /* A template folder of garbage: scripts/ shadows the embedded spaces, templates/ a
     * template (the JIT calls below never get as far as NVRTC). */
    unsigned char garbage[512];
    memset(garbage, 0xFE, sizeof garbage);
    snprintf(path, sizeof path, "%s/scripts", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    make_hostile_files(path);
    write_bytes(path, "reference_gemm.lua", garbage, sizeof garbage);
    write_text(path, "sm90_gemm.lua", "while true do end");
    snprintf(path, sizeof path, "%s/templates", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    write_bytes(path, "reference_gemm.cuh", garbage, sizeof garbage);
    /* Options whose paths are bad strings. Paths the context may write (kernel_dir, cache_db)
     * stay inside dir: bad names there, or a path too long for any buffer; the read-only
     * ones (cache_path, template_dir) get the bad strings themselves. */
    for (int i = 0; bad_string(i) != BAD_STRING_END; i++) {
        const char *s = bad_string(i);
        for (int field = 0; field < 4; field++) {
            char bad_path[1024];
            const char *value = s;
            if (field < 2 && s != long_text) {
                if (!s || !*s || s[0] == '.' || s[0] == '/')
                    continue; /* the defaults, or somewhere outside dir */
                snprintf(bad_path, sizeof bad_path, "%s/%s", dir, s);
                value = bad_path;
            }
            snprintf(path, sizeof path, "%s/kernels", dir);
            snprintf(other, sizeof other, "%s/tuning.db", dir);
            w8a8_context_options o = {.kernel_dir = path, .cache_db = other,
                                      .flags = W8A8_CONTEXT_CPU_ONLY};
            switch (field) {
            case 0: o.kernel_dir = value; break;
            case 1: o.cache_db = value; break;
            case 2: o.cache_path = value; break;
            case 3: o.template_dir = value; break;
            }
            w8a8_context *ctx = NULL;
            w8a8_status st = CALL(ctx, w8a8_context_open(&ctx, &o));
            size_t limit = field == 2 ? 4096 : 1024; /* cache_path holds a list */
            if (value && strlen(value) >= limit) {
                ck_assert_int_eq(st, W8A8_INVALID); /* never a silently truncated path */
                ck_assert_ptr_nonnull(ctx);
                ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "too long"));
            } else {
                ck_assert_msg(st == W8A8_OK, "bad string %d in field %d: %s", i, field,
                              w8a8_errmsg(ctx));
                exercise_context(ctx, dir);
            }
            w8a8_context_close(ctx);
        }
    }
    /* Device ordinals and flags that mean nothing. */
    static const int ordinals[] = {-1, 1 << 30, (int)0x80000000};
    for (size_t i = 0; i < sizeof ordinals / sizeof ordinals[0]; i++) {
        w8a8_context_options o = {0};
        snprintf(path, sizeof path, "%s/kernels", dir);
        snprintf(other, sizeof other, "%s/tuning.db", dir);
        o.kernel_dir = path;
        o.cache_db = other;
        o.device_ordinal = ordinals[i];
        o.flags = 0xFFFFFFFFu;
        w8a8_context *ctx = NULL;
        if (CALL(ctx, w8a8_context_open(&ctx, &o)) == W8A8_OK)
            exercise_context(ctx, dir);
        w8a8_context_close(ctx);
    }
    /* The user database is garbage, a folder, a truncated file, a file under a file; the
     * read-only layers are garbage, folders, missing, or a path list of separators. */
    static const char *const dbs[] = {"garbage.db", "folder.db", "truncated.db",
                                      "garbage.db/sub.db", "garbage.lua", "unreadable.lua"};
    static const char *const layers[] = {"garbage.db", "folder.db", "garbage.sql", "drop.sql",
                                         "truncated.db", "nonexistent.db"};
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
        char cache_path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, dbs[i]);
        snprintf(cache_path, sizeof cache_path, ":::%s/%s::%s:%s/\xff", dir,
                 layers[i], dir, dir);
        snprintf(other, sizeof other, "%s/kernels", dir);
        w8a8_context_options o = {.kernel_dir = other, .cache_db = path,
                                  .cache_path = cache_path, .flags = W8A8_CONTEXT_CPU_ONLY};
        w8a8_context *ctx = NULL;
        EXPECT(ctx, w8a8_context_open(&ctx, &o), W8A8_OK);
        exercise_context(ctx, dir);
        int64_t added = 0;
        snprintf(path, sizeof path, "%s/%s", dir, layers[i]);
        CALL(ctx, w8a8_cache_import(ctx, path, &added));
        w8a8_context_close(ctx);
    }
    /* The template folder of garbage. */
    {
        snprintf(other, sizeof other, "%s/kernels", dir);
        snprintf(path, sizeof path, "%s/tuning.db", dir);
        w8a8_context_options o = {.kernel_dir = other, .cache_db = path, .template_dir = dir,
                                  .flags = W8A8_CONTEXT_CPU_ONLY};
        w8a8_context *ctx = NULL;
        EXPECT(ctx, w8a8_context_open(&ctx, &o), W8A8_OK);
        exercise_context(ctx, dir);
        w8a8_problem p = good_problem();
        w8a8_space_result result;
        static const char *const spaces[] = {"garbage", "syntax", "number", "error", "badfields",
                                             "bytecode", "empty", "unreadable", "folder"};
        for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
            FAILS(ctx, w8a8_space_enumerate(ctx, spaces[i], &p, "sm_90", &result));
            ck_assert_ptr_null(result.configs);
        }
        w8a8_context_close(ctx);
    }
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* ---- the JIT ------------------------------------------------------------------------------- */

START_TEST(kernel_compile_bad_strings)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    w8a8_kernel_info info;
    char *log = NULL;
    /* Template names and arches: nothing reaches NVRTC. */
    for (int i = 0; bad_string(i) != BAD_STRING_END; i++) {
        const char *s = bad_string(i);
        FAILS(ctx, w8a8_kernel_compile(ctx, s, "", "sm_80", &info, &log));
        w8a8_free(log);
        FAILS(ctx, w8a8_kernel_compile(ctx, "reference_gemm", "", s, &info, &log));
        w8a8_free(log);
    }
    static const char *const arches[] = {"sm_75", "sm_90b", "SM_90", "sm_8", "sm_800", "compute_90",
                                         "sm_90a ", "--gpu-architecture=sm_90"};
    for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
        EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", "", arches[i], NULL, NULL),
               W8A8_INVALID);
    /* Defines that the prologue refuses (so nothing reaches NVRTC either). */
    static const char *const defines[] = {"=", "A=", "=1", "A=1;B=2", "A=\"x\"", "A=$(rm -rf /)",
                                          "A=1 B", "A=1,,,B", "\xff=1", "A=\xff", "A B=1",
                                          "A=1\n#include </dev/zero>", "A=1)"};
    for (size_t i = 0; i < sizeof defines / sizeof defines[0]; i++) {
        log = (char *)1;
        EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", defines[i], "sm_80", &info, &log),
               W8A8_INVALID);
        ck_assert_ptr_null(log);
    }
    /* A long list of short items ending in a bad one: the prologue grows past any fixed
     * multiple of short inputs before the bad item stops it. */
    size_t items = 2000;
    char *many = malloc(items * 4 + 8);
    ck_assert_ptr_nonnull(many);
    for (size_t i = 0; i < items; i++)
        memcpy(many + 4 * i, "a=1,", 4);
    strcpy(many + 4 * items, "!");
    EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", many, "sm_80", NULL, NULL),
           W8A8_INVALID);
    memset(many, 'a', items * 4);
    strcpy(many + 4 * items, "=1 !");
    EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", many, "sm_80", NULL, NULL),
           W8A8_INVALID);
    free(many);
    const char *const *names = w8a8_template_names(ctx);
    ck_assert_ptr_nonnull(names);
    for (size_t i = 0; names[i]; i++)
        ck_assert(names[i][0] != '\0');
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* ---- spaces -------------------------------------------------------------------------------- */

START_TEST(space_bad_strings_and_files)
{
    quiet q;
    quiet_begin(&q);
    char dir[512], path[1024];
    test_mkdtemp(dir, sizeof dir);
    make_hostile_files(dir);
    w8a8_context *ctx = open_in(dir);
    w8a8_problem p = good_problem();
    w8a8_space_result result;
    w8a8_space_plan plan;
    char config[W8A8_SPACE_CONFIG_BYTES];
    for (int i = 0; bad_string(i) != BAD_STRING_END; i++) {
        const char *s = bad_string(i);
        FAILS(ctx, w8a8_space_enumerate(ctx, s, &p, "sm_90", &result));
        ck_assert_ptr_null(result.configs);
        ck_assert_uint_eq(result.count, 0);
        FAILS(ctx, w8a8_space_default(ctx, s, &p, "sm_90", config, sizeof config));
        FAILS(ctx, w8a8_space_compile_plan(ctx, s, "sm_90", 0, &plan));
        ck_assert_ptr_null(plan.items);
        /* The same string as the arch (NULL: the context's device, which it lacks). */
        FAILS(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, s, &result));
        ck_assert_ptr_null(result.configs);
        FAILS(ctx, w8a8_space_default(ctx, "reference_gemm", &p, s, config, sizeof config));
        FAILS(ctx, w8a8_space_compile_plan(ctx, "reference_gemm", s, 0, &plan));
    }
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, NULL, &result), W8A8_NO_DEVICE);
    static const char *const files[] = {"garbage.lua", "syntax.lua", "number.lua", "error.lua",
                                        "badfields.lua", "bytecode.lua", "empty.lua",
                                        "unreadable.lua", "folder.lua", "\xff\xfe.lua",
                                        "missing.lua", "garbage.db"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        /* unreadable.lua names no template: it fails for root, who can read it, too. */
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FAILS(ctx, w8a8_space_enumerate(ctx, path, &p, "sm_90", &result));
        ck_assert_ptr_null(result.configs);
        FAILS(ctx, w8a8_space_default(ctx, path, &p, "sm_90", config, sizeof config));
        FAILS(ctx, w8a8_space_compile_plan(ctx, path, "sm_90", 0, &plan));
        ck_assert_ptr_null(plan.items);
    }
    /* Garbage problems into a good space. */
    w8a8_problem bad = p;
    bad.a_type = (w8a8_dtype)77;
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &bad, "sm_90", &result), W8A8_INVALID);
    bad = p;
    bad.b_scale.kind = (w8a8_scale_kind)-3;
    EXPECT(ctx, w8a8_space_default(ctx, "sm90_gemm", &bad, "sm_90a", config, sizeof config),
           W8A8_INVALID);
    bad = p;
    bad.m = -1;
    EXPECT(ctx, w8a8_space_enumerate(ctx, "sm90_gemm", &bad, "sm_90a", &result), W8A8_INVALID);
    bad = p;
    bad.m = bad.n = bad.k = INT64_MAX;
    for (const char *const *name = w8a8_space_names(); *name; name++) {
        CALL(ctx, w8a8_space_enumerate(ctx, *name, &bad, "sm_90a", &result));
        w8a8_space_result_free(&result);
        /* A config buffer too small for any configuration but "" (a space without params). */
        CALL(ctx, w8a8_space_default(ctx, *name, &p, "sm_90a", config, 1));
        ck_assert_uint_lt(strlen(config), 1);
        CALL(ctx, w8a8_space_compile_plan(ctx, *name, "sm_90a", SIZE_MAX, &plan));
        w8a8_space_plan_free(&plan);
    }
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* ---- the cache ----------------------------------------------------------------------------- */

static int count_rows(void *user, const w8a8_cache_entry *entry)
{
    (void)entry;
    ++*(int *)user;
    return 0;
}

START_TEST(cache_bad_input)
{
    quiet q;
    quiet_begin(&q);
    char dir[512], path[1024], dst[1024];
    test_mkdtemp(dir, sizeof dir);
    make_hostile_files(dir);
    w8a8_context *ctx = open_in(dir);
    w8a8_problem p = good_problem();
    w8a8_explain explain;
    int64_t count = 0;
    int visited = 0;
    /* Filters of garbage. */
    w8a8_problem garbage;
    memset(&garbage, 0xA5, sizeof garbage);
    w8a8_cache_filter filter = {0xFFFFFFFFu, &garbage, "\xff\xfe", long_text};
    CALL(ctx, w8a8_cache_list(ctx, &filter, count_rows, &visited));
    filter = (w8a8_cache_filter){W8A8_CACHE_UNTUNED, NULL, "", ""};
    CALL(ctx, w8a8_cache_list(ctx, &filter, count_rows, &visited));
    /* Explain with a device whose strings are not terminated, and other garbage. */
    w8a8_cache_device device;
    memset(&device, 'x', sizeof device);
    CALL(ctx, w8a8_cache_explain_device(ctx, &p, &device, &explain));
    memset(&device, 0xFF, sizeof device);
    CALL(ctx, w8a8_cache_explain_device(ctx, &garbage, &device, &explain));
    EXPECT(ctx, w8a8_cache_explain_device(ctx, &p, NULL, &explain), W8A8_NO_DEVICE);
    w8a8_problem bad = p;
    bad.m = INT64_MAX;
    CALL(ctx, w8a8_cache_explain_device(ctx, &bad, &device, &explain));
    bad.m = -1;
    EXPECT(ctx, w8a8_cache_explain_device(ctx, &bad, &device, &explain), W8A8_INVALID);
    /* Export: bad strings, folders, unwritable places. */
    for (int i = 0; bad_string(i) != BAD_STRING_END; i++)
        FAILS(ctx, w8a8_cache_export(ctx, bad_string(i), 0, &count));
    static const char *const exports[] = {"folder.sql", "garbage.db/x.sql", "x.txt", "x.db",
                                          "x.SQL", ".sql"};
    for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, exports[i]);
        w8a8_status st = CALL(ctx, w8a8_cache_export(ctx, path, 0xFFFFFFFFu, &count));
        if (i < 5)
            ck_assert_int_ne(st, W8A8_OK);
    }
    /* Import: bad strings, missing, folders, garbage, an .sql that drops tables. */
    for (int i = 0; bad_string(i) != BAD_STRING_END; i++)
        FAILS(ctx, w8a8_cache_import(ctx, bad_string(i), &count));
    static const char *const imports[] = {"garbage.db", "garbage.sql", "drop.sql", "folder.db",
                                          "folder.sql", "truncated.db", "garbage.lua",
                                          "missing.db", "missing.sql", "unreadable.lua"};
    for (size_t i = 0; i < sizeof imports / sizeof imports[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, imports[i]);
        w8a8_status st = CALL(ctx, w8a8_cache_import(ctx, path, &count));
        if (i < 5) /* the others may legitimately add nothing (an empty or missing file) */
            ck_assert_int_ne(st, W8A8_OK);
        ck_assert_int_eq(count, 0);
    }
    /* Merge: every source hostile in turn, NULL entries, hostile destinations. */
    snprintf(dst, sizeof dst, "%s/merged.db", dir);
    for (size_t i = 0; i < sizeof imports / sizeof imports[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, imports[i]);
        const char *srcs[3] = {path, NULL, path};
        CALL(ctx, w8a8_cache_merge(ctx, dst, srcs, 1, &count));
        FAILS(ctx, w8a8_cache_merge(ctx, dst, srcs, 3, &count));
        ck_assert_int_eq(count, 0);
        snprintf(dst, sizeof dst, "%s/%s", dir, imports[i]);
        const char *none[1] = {NULL};
        FAILS(ctx, w8a8_cache_merge(ctx, dst, none, 1, &count));
        snprintf(dst, sizeof dst, "%s/merged.db", dir);
    }
    for (int i = 0; bad_string(i) != BAD_STRING_END; i++) {
        const char *srcs[1] = {bad_string(i)};
        FAILS(ctx, w8a8_cache_merge(ctx, dst, srcs, 1, &count));
        if (i <= 3) /* NULL, "", too long: the others would name a new file in the cwd */
            FAILS(ctx, w8a8_cache_merge(ctx, bad_string(i), srcs, 0, &count));
    }
    /* Prune with every option set to extremes. */
    w8a8_cache_prune_options prune = {.keep_winners = -1, .stale = 77, .older_than = INT64_MIN};
    CALL(ctx, w8a8_cache_prune(ctx, &prune, &count));
    prune.older_than = INT64_MAX;
    CALL(ctx, w8a8_cache_prune(ctx, &prune, &count));
    ck_assert_ptr_nonnull(w8a8_cache_warnings(ctx));
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* ---- matmul: bad problems and tensors ------------------------------------------------------- */

/* Bad problem number i (false past the last). */
static bool bad_problem(int i, w8a8_problem *p)
{
    *p = good_problem();
    switch (i) {
    case 0: p->m = -1; break;
    case 1: p->m = 0; break;
    case 2: p->m = INT64_MAX; break;
    case 3: p->n = -1; break;
    case 4: p->n = INT64_MIN; break;
    case 5: p->k = 17; break;
    case 6: p->k = INT64_MAX; break;
    case 7: p->k = 0; break;
    case 8: p->a_type = (w8a8_dtype)77; break;
    case 9: p->b_type = (w8a8_dtype)-1; break;
    case 10: p->out_type = (w8a8_dtype)77; break;
    case 11: p->bias_type = (w8a8_dtype)77; break;
    case 12: p->a_type = p->b_type = W8A8_E4M3FNUZ; break;
    case 13: p->a_type = W8A8_INT8; break;
    case 14: p->a_scale.kind = (w8a8_scale_kind)77; break;
    case 15: p->b_scale.kind = (w8a8_scale_kind)-5; break;
    case 16: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 0, 16, 0, 0}; break;
    case 17: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, INT32_MIN, 16, 0, 0}; break;
    case 18: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, -16, 0, 0}; break;
    case 19: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 17, 0, 0}; break;
    case 20: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 7, 0}; break;
    case 21: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, -1}; break;
    case 22: p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, INT64_MAX}; break;
    case 23: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 1, INT64_MIN}; break;
    case 24: p->azp = (w8a8_azp_kind)77; break;
    case 25: p->azp = W8A8_AZP_TOKEN; break;
    case 26: p->lda = -1; break;
    case 27: p->lda = INT64_MAX; break;
    case 28: p->ldb = 17; break;
    case 29: p->ldc = INT64_MIN; break;
    case 30: p->ldc = INT64_MAX / 2; break;
    case 31: p->m = p->n = INT32_MAX; p->k = INT32_MAX - 15; p->out_type = W8A8_FP32; break;
    case 32:
        p->a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, 0};
        p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 32, 0, 0};
        break;
    case 33: p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, INT64_MAX / 4}; break;
    case 34: p->out_type = W8A8_DTYPE_NONE; break;
    case 35: p->a_type = W8A8_DTYPE_NONE; break;
    case 36: p->n = 7; break; /* dense bf16 rows of 14 bytes */
    case 37: p->a_type = p->b_type = W8A8_INT8; p->azp = W8A8_AZP_TENSOR;
        p->b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, 0}; break;
    case 38: memset(p, 0xFF, sizeof *p); break;
    case 39: memset(p, 0, sizeof *p); break;
    default: return false;
    }
    return true;
}

START_TEST(matmul_bad_problems)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    static _Alignas(16) unsigned char host[4096];
    w8a8_tensors t = {host, host + 512, host + 1536, (float *)(host + 2048),
                      (float *)(host + 2064), NULL, NULL, NULL};
    w8a8_problem p;
    w8a8_explain explain;
    w8a8_bench_result bench;
    w8a8_tune_report report;
    double us;
    for (int i = 0; bad_problem(i, &p); i++) {
        w8a8_status want = CALL(ctx, w8a8_problem_validate(ctx, &p));
        ck_assert_msg(want == W8A8_INVALID || want == W8A8_UNSUPPORTED,
                      "bad problem %d: validate says %s", i, w8a8_status_string(want));
        EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &t, NULL), want);
        EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, &t, NULL), want);
        EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, &t), want);
        EXPECT(ctx, w8a8_dispatch_warm(ctx, &p), want);
        EXPECT(ctx, w8a8_dispatch_explain(ctx, &p, &explain), want);
        EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, NULL, &bench), want);
        EXPECT(ctx, w8a8_bench_host_overhead(ctx, &p, -5, &us, &us), want);
        w8a8_tune_options o = {.problems = &p, .problem_count = 1, .space = "\xff"};
        FAILS(ctx, w8a8_tune(ctx, &o, NULL, NULL, &report));
        w8a8_tune_report_free(&report);
        CALL(ctx, w8a8_cache_explain(ctx, &p, &explain));
    }
    /* A good problem: the CPU runs it, the GPU entry points have no device. */
    p = good_problem();
    EXPECT_OK_CLEAN(ctx, w8a8_problem_validate(ctx, &p));
    EXPECT_OK_CLEAN(ctx, w8a8_scaled_mm_cpu(ctx, &p, &t));
    EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &t, NULL), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, &t, (void *)-1), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_dispatch_warm(ctx, &p), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, NULL, &bench), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_bench_host_overhead(ctx, &p, INT32_MAX, &us, NULL), W8A8_NO_DEVICE);
    EXPECT_OK_CLEAN(ctx, w8a8_dispatch_explain(ctx, &p, &explain));
    w8a8_tune_options o = {.problems = &p, .problem_count = 1};
    EXPECT(ctx, w8a8_tune(ctx, &o, NULL, NULL, &report), W8A8_NO_DEVICE);
    w8a8_tune_report_free(&report);
    /* Bad tensors for the good problem. */
    w8a8_tensors bad[] = {
        {NULL, host, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, NULL, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, NULL, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, host, NULL, (float *)host, NULL, NULL, NULL},
        {host, host, host, (float *)host, NULL, NULL, NULL, NULL},
        {host + 1, host, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host + 8, host, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, host + 4, (float *)host, (float *)host, NULL, NULL, NULL},
        {host, host, host, (float *)(host + 1), (float *)host, NULL, NULL, NULL},
        {host, host, host, (float *)host, (float *)host, host, NULL, NULL},
        {host, host, host, (float *)host, (float *)host, NULL, (int32_t *)host, NULL},
        {host, host, host, (float *)host, (float *)host, NULL, NULL, (int32_t *)host},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &bad[i], NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, &bad[i], NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, &bad[i]), W8A8_INVALID);
    }
    EXPECT(ctx, w8a8_dispatch_set_tune_mode(ctx, (w8a8_tune_mode)77), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_set_tune_mode(ctx, (w8a8_tune_mode)-1), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_set_tune_mode(ctx, W8A8_TUNE_ONLINE), W8A8_OK);
    EXPECT(ctx, w8a8_dispatch_warm(ctx, &p), W8A8_NO_DEVICE);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* ---- quantization and weights: bad input ----------------------------------------------------- */

START_TEST(quant_bad_problems)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    static _Alignas(16) unsigned char host[4096];
    w8a8_quant_tensors t = {host, host + 1024, (float *)(host + 2048), (int32_t *)(host + 3072),
                            NULL};
    const w8a8_quant_problem good = {.m = 4, .k = 32, .in_type = W8A8_BF16,
                                     .out_type = W8A8_INT8, .mode = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_quant_problem bad[] = {good, good, good, good, good, good, good, good, good, good, good,
                                good, good, good, good, good, good, good, good, good, good, good};
    int n = 0;
    bad[n++].m = -1;
    bad[n++].m = INT64_MAX;
    bad[n++].k = 17;
    bad[n++].k = INT64_MAX - 15;
    bad[n++].in_type = (w8a8_dtype)77;
    bad[n++].out_type = W8A8_BF16;
    bad[n++].mode = (w8a8_quant_mode)77;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].group_k = 24;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].group_k = INT32_MIN;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].scale_ld = INT64_MAX;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n].scale_k_major = 1, bad[n++].scale_ld = 1;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n].scale_k_major = 1, bad[n++].scale_ld = INT64_MAX / 3;
    bad[n++].m_pad = -1;
    bad[n].m = INT64_MAX / 16, bad[n++].m_pad = INT32_MAX;
    bad[n++].min_amax = NAN;
    bad[n++].min_amax = -INFINITY;
    bad[n++].ld_in = INT64_MAX;
    bad[n++].ld_in = 33;
    bad[n++].ld_out = INT64_MIN;
    bad[n].out_type = W8A8_E4M3, bad[n++].asymmetric = 1;
    bad[n].mode = W8A8_QUANT_DYNAMIC_GROUP, bad[n++].asymmetric = 1;
    memset(&bad[n++], 0xFF, sizeof bad[0]);
    ck_assert_int_eq(n, (int)(sizeof bad / sizeof bad[0]));
    for (int i = 0; i < n; i++) {
        EXPECT(ctx, w8a8_quant_problem_validate(ctx, &bad[i]), W8A8_INVALID);
        ck_assert_int_eq(w8a8_quant_rows_out(&bad[i]), -1);
        EXPECT(ctx, w8a8_quantize(ctx, &bad[i], &t, NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_quantize_cpu(ctx, &bad[i], &t), W8A8_INVALID);
    }
    EXPECT_OK_CLEAN(ctx, w8a8_quant_problem_validate(ctx, &good));
    ck_assert_int_eq(w8a8_quant_rows_out(&good), 4);
    t.azp = NULL; /* symmetric */
    EXPECT(ctx, w8a8_quantize(ctx, &good, &t, NULL), W8A8_NO_DEVICE);
    EXPECT_OK_CLEAN(ctx, w8a8_quantize_cpu(ctx, &good, &t));
    w8a8_quant_tensors bad_t[] = {
        {NULL, host, (float *)host, NULL, NULL},
        {host, NULL, (float *)host, NULL, NULL},
        {host, host + 1024, NULL, NULL, NULL},
        {host + 2, host + 1024, (float *)(host + 2048), NULL, NULL},
        {host, host + 1025, (float *)(host + 2048), NULL, NULL},
    };
    for (size_t i = 0; i < sizeof bad_t / sizeof bad_t[0]; i++) {
        EXPECT(ctx, w8a8_quantize(ctx, &good, &bad_t[i], NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_quantize_cpu(ctx, &good, &bad_t[i]), W8A8_INVALID);
    }
    w8a8_quant_problem asym = good;
    asym.asymmetric = 1;
    w8a8_quant_tensors no_azp = {host, host + 1024, (float *)(host + 2048), NULL, NULL};
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &asym, &no_azp), W8A8_INVALID);
    w8a8_quant_tensors ub_asym = {host, host + 1024, (float *)(host + 2048),
                                  (int32_t *)(host + 3072), (float *)host};
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &asym, &ub_asym), W8A8_INVALID);
    /* Linear problems. */
    const w8a8_linear_problem lgood = {.m = 4, .n = 16, .k = 32, .x_type = W8A8_BF16,
                                       .w_type = W8A8_E4M3, .out_type = W8A8_BF16,
                                       .x_quant = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_linear_problem lbad[] = {lgood, lgood, lgood, lgood, lgood, lgood, lgood, lgood, lgood,
                                  lgood, lgood};
    n = 0;
    lbad[n++].m = INT64_MAX;
    lbad[n].x_quant = W8A8_QUANT_DYNAMIC_GROUP, lbad[n].x_scale_k_major = 1, lbad[n++].m = INT64_MAX - 1;
    lbad[n++].n = -1;
    lbad[n++].k = 17;
    lbad[n++].w_type = (w8a8_dtype)77;
    lbad[n++].x_type = W8A8_E4M3;
    lbad[n++].x_quant = (w8a8_quant_mode)-1;
    lbad[n].x_quant = W8A8_QUANT_DYNAMIC_GROUP, lbad[n++].x_asymmetric = 1;
    lbad[n++].x_min_amax = NAN;
    lbad[n++].ld_x = INT64_MAX;
    memset(&lbad[n++], 0xFF, sizeof lbad[0]);
    ck_assert_int_eq(n, (int)(sizeof lbad / sizeof lbad[0]));
    w8a8_linear_tensors lt = {fake_device, fake_device, fake_device, (float *)fake_device,
                              NULL, NULL, NULL, NULL, NULL};
    w8a8_quant_problem qp;
    w8a8_problem mm;
    size_t bytes = 0;
    for (int i = 0; i < n; i++) {
        EXPECT(ctx, w8a8_linear_problems(ctx, &lbad[i], &qp, &mm), W8A8_INVALID);
        EXPECT(ctx, w8a8_linear_workspace_size(ctx, &lbad[i], &bytes), W8A8_INVALID);
        EXPECT(ctx, w8a8_linear(ctx, &lbad[i], &lt, fake_device, sizeof fake_device, NULL),
               W8A8_INVALID);
    }
    EXPECT_OK_CLEAN(ctx, w8a8_linear_workspace_size(ctx, &lgood, &bytes));
    ck_assert_uint_le(bytes, sizeof fake_device);
    EXPECT(ctx, w8a8_linear(ctx, &lgood, &lt, fake_device, bytes, NULL), W8A8_NO_DEVICE);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

START_TEST(weight_bad_input)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    static _Alignas(16) unsigned char w_in[256], w_out[256];
    float scales[64] = {1}, scale = 0;
    for (int i = 0; i < 64; i++)
        scales[i] = 1.0f + (float)i;
    int64_t rows[65];
    for (int i = 0; i < 65; i++)
        rows[i] = 1;
    static const int32_t shard_counts[] = {-1, 0, 65, INT32_MAX, INT32_MIN};
    for (size_t i = 0; i < sizeof shard_counts / sizeof shard_counts[0]; i++) {
        int32_t n = shard_counts[i];
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, n, w_in, w_out,
                                                     scales, &scale), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_E4M3, 16, rows, n, w_in, w_out,
                                                 scales, &scale, NULL), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, n, scales, scales), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, n, scales, scales, NULL), W8A8_INVALID);
    }
    static const int64_t bad_rows[][3] = {{1, 0, 1}, {1, -1, 1}, {INT64_MIN, 1, 1},
                                          {INT64_MAX / 2, INT64_MAX / 2, INT64_MAX / 2},
                                          {INT64_MAX, 1, 1}};
    for (size_t i = 0; i < sizeof bad_rows / sizeof bad_rows[0]; i++) {
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_INT8, 16, bad_rows[i], 3, w_in,
                                                     w_out, scales, &scale), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_INT8, 16, bad_rows[i], 3, w_in, w_out,
                                                 scales, &scale, NULL), W8A8_INVALID);
        /* Overflowing totals are refused as well as non-positive counts. */
        EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, bad_rows[i], 3, scales, scales),
               W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales(ctx, bad_rows[i], 3, scales, scales, NULL),
               W8A8_INVALID);
    }
    int64_t big[2] = {1 << 20, 1 << 20};
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, INT64_MAX / 32 * 16, big, 2,
                                                 w_in, w_out, scales, &scale), W8A8_INVALID);
    static const int64_t bad_k[] = {-16, 0, 8, 17, INT64_MIN, INT64_MAX};
    for (size_t i = 0; i < sizeof bad_k / sizeof bad_k[0]; i++)
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, bad_k[i], rows, 2, w_in,
                                                     w_out, scales, &scale), W8A8_INVALID);
    static const int bad_types[] = {-1, 0, W8A8_E5M2, W8A8_BF16, W8A8_E4M3FNUZ, 77};
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++)
        EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, (w8a8_dtype)bad_types[i], 16, rows, 2,
                                                     w_in, w_out, scales, &scale), W8A8_INVALID);
    /* Misaligned and overlapping buffers. */
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, w_in + 1, w_out,
                                                 scales, &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, w_in, w_in + 16,
                                                 scales, &scale), W8A8_INVALID);
    EXPECT_OK_CLEAN(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, w_in,
                                                          w_in, scales, &scale));
    EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_E4M3, 16, rows, 2, w_in, w_out, scales,
                                             &scale, NULL), W8A8_NO_DEVICE);
    /* e4m3fn → fnuz. */
    static const int64_t bad_sizes[][2] = {{-1, 0}, {0, -1}, {INT64_MIN, 1}, {16, INT64_MIN}};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, w_in, bad_sizes[i][0], scales,
                                                   bad_sizes[i][1]), W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, w_in, bad_sizes[i][0], scales,
                                               bad_sizes[i][1], NULL), W8A8_INVALID);
    }
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, w_in + 3, 16, scales, 1, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, w_in, INT64_MAX, scales, INT64_MAX, NULL),
           W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, 64, scales, scales, NULL), W8A8_NO_DEVICE);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* ---- random problems ------------------------------------------------------------------------ */

static int64_t pick(test_rng *r, const int64_t *values, size_t count)
{
    return values[test_rng_next(r) % count];
}
#define PICK(r, ...) pick((r), (const int64_t[]){__VA_ARGS__}, \
                          sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static void random_bytes(test_rng *r, void *dst, size_t size)
{
    unsigned char *p = dst;
    for (size_t i = 0; i < size; i++)
        p[i] = (unsigned char)test_rng_next(r);
}

/* A problem is random bytes (1 in 8), or legal by construction with each field replaced by
 * an edge value now and then, or that with one bit flipped: many are invalid, many valid. */
typedef enum fill_kind { FILL_BYTES, FILL_LEGAL, FILL_FLIPPED } fill_kind;

static fill_kind random_fill_kind(test_rng *r)
{
    uint64_t v = test_rng_next(r) % 8;
    return v == 0 ? FILL_BYTES : v == 1 ? FILL_FLIPPED : FILL_LEGAL;
}

/* Whether to replace a field by an edge value (about one field in twelve). */
static bool edge(test_rng *r) { return test_rng_next(r) % 12 == 0; }

static void flip_bit(test_rng *r, void *obj, size_t size)
{
    ((unsigned char *)obj)[test_rng_next(r) % size] ^= (unsigned char)(1u << (test_rng_next(r) % 8));
}

static w8a8_scale_layout random_scale(test_rng *r, int64_t rows, int64_t k, int32_t group_k)
{
    w8a8_scale_layout s = {0};
    s.kind = (w8a8_scale_kind)PICK(r, W8A8_SCALE_TENSOR, W8A8_SCALE_ROW, W8A8_SCALE_BLOCK);
    s.group_rows = (int32_t)PICK(r, 1, 2, 3, 128);
    s.group_k = group_k;
    s.k_major = (int32_t)PICK(r, 0, 1);
    int64_t dense = s.k_major ? (rows + s.group_rows - 1) / s.group_rows
                              : (k + s.group_k - 1) / s.group_k;
    s.ld = PICK(r, 0, 0, dense, dense + 3);
    if (edge(r))
        s.kind = (w8a8_scale_kind)PICK(r, -1, 3, 77);
    if (edge(r))
        s.group_rows = (int32_t)PICK(r, 0, -1, INT32_MIN, INT32_MAX);
    if (edge(r))
        s.group_k = (int32_t)PICK(r, 0, 17, -16, 8, INT32_MAX);
    if (edge(r))
        s.k_major = (int32_t)PICK(r, 2, -1);
    if (edge(r))
        s.ld = PICK(r, -1, 1, INT64_MAX, INT64_MIN, INT64_MAX / 4);
    return s;
}

static void random_problem(test_rng *r, w8a8_problem *p)
{
    fill_kind kind = random_fill_kind(r);
    if (kind == FILL_BYTES) {
        random_bytes(r, p, sizeof *p);
        return;
    }
    p->m = PICK(r, 1, 2, 3, 7, 8, 17, 33);
    p->n = PICK(r, 8, 16, 24, 40, 64);
    p->k = PICK(r, 16, 32, 48, 64, 144);
    if (PICK(r, 0, 0, 1)) {
        p->a_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_E5M2);
        p->b_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_E5M2);
    } else {
        p->a_type = p->b_type = W8A8_INT8;
    }
    p->out_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->bias_type = (w8a8_dtype)PICK(r, W8A8_DTYPE_NONE, W8A8_DTYPE_NONE, W8A8_FP32, p->out_type);
    int32_t group_k = (int32_t)PICK(r, 16, 32, 128); /* shared: A's and B's must agree */
    p->a_scale = random_scale(r, p->m, p->k, group_k);
    p->b_scale = random_scale(r, p->n, p->k, group_k);
    bool blocks = p->a_scale.kind == W8A8_SCALE_BLOCK || p->b_scale.kind == W8A8_SCALE_BLOCK;
    p->azp = p->a_type == W8A8_INT8 && !blocks
                 ? (w8a8_azp_kind)PICK(r, W8A8_AZP_NONE, W8A8_AZP_TENSOR, W8A8_AZP_TOKEN)
                 : W8A8_AZP_NONE;
    p->lda = PICK(r, 0, 0, p->k, p->k + 16);
    p->ldb = PICK(r, 0, 0, p->k, p->k + 32);
    p->ldc = PICK(r, 0, 0, p->n, p->n + 8);
    const int64_t n = p->n, k = p->k; /* legal: the edges below are relative to them */
    if (edge(r))
        p->m = PICK(r, 0, -1, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MAX, INT64_MIN);
    if (edge(r))
        p->n = PICK(r, 0, -8, 4, 7, INT32_MAX, INT64_MAX);
    if (edge(r))
        p->k = PICK(r, 0, -16, 17, 8, (int64_t)INT32_MAX - 15, INT64_MAX);
    if (edge(r))
        p->a_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_BF16, W8A8_E4M3FNUZ, 8, 77);
    if (edge(r))
        p->b_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_INT8, W8A8_E4M3, W8A8_E4M3FNUZ, 77);
    if (edge(r))
        p->out_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_E4M3, W8A8_INT8, 77);
    if (edge(r))
        p->bias_type = (w8a8_dtype)PICK(r, -1, W8A8_BF16, W8A8_E4M3, 77);
    if (edge(r))
        p->azp = (w8a8_azp_kind)PICK(r, -1, W8A8_AZP_TENSOR, W8A8_AZP_TOKEN, 3, 77);
    if (edge(r))
        p->lda = PICK(r, -1, 1, k - 16, k + 1, INT64_MAX, INT64_MAX / 2);
    if (edge(r))
        p->ldb = PICK(r, -1, 1, k + 3, INT64_MIN, INT64_MAX / 8);
    if (edge(r))
        p->ldc = PICK(r, -1, 1, n + 1, n + 4, INT64_MAX, INT64_MAX / 16);
    if (kind == FILL_FLIPPED)
        flip_bit(r, p, sizeof *p);
}

/* Floats one operand's scales span in the documented layout (w8a8_scale_layout). */
static double scale_floats(const w8a8_scale_layout *s, int64_t rows, int64_t k)
{
    if (s->kind == W8A8_SCALE_TENSOR)
        return 1;
    if (s->kind == W8A8_SCALE_ROW)
        return (double)rows;
    double row_blocks = (double)((rows + s->group_rows - 1) / s->group_rows);
    double k_blocks = (double)((k + s->group_k - 1) / s->group_k);
    double dense = s->k_major ? row_blocks : k_blocks, lines = s->k_major ? k_blocks : row_blocks;
    return (lines - 1) * (s->ld ? (double)s->ld : dense) + dense;
}

/* An exactly sized host buffer (16-byte aligned, as the API wants), filled with random bytes:
 * ASan reports any access past `bytes`. */
static void *host_buffer(test_rng *r, double bytes)
{
    void *p = NULL;
    ck_assert_int_eq(posix_memalign(&p, 16, (size_t)bytes > 0 ? (size_t)bytes : 1), 0);
    random_bytes(r, p, (size_t)bytes);
    return p;
}

/* Runs a problem the validator accepted: on the CPU (when small) and through the GPU entry
 * points of a CPU-only context. Returns whether it ran on the CPU. */
static bool run_valid_problem(w8a8_context *ctx, test_rng *r, const w8a8_problem *p)
{
    int64_t lda = p->lda ? p->lda : p->k, ldb = p->ldb ? p->ldb : p->k, ldc = p->ldc ? p->ldc : p->n;
    double a = (double)(p->m - 1) * (double)lda + (double)p->k;
    double b = (double)(p->n - 1) * (double)ldb + (double)p->k;
    double out = ((double)(p->m - 1) * (double)ldc + (double)p->n) * (double)w8a8_dtype_size(p->out_type);
    double sa = 4 * scale_floats(&p->a_scale, p->m, p->k), sb = 4 * scale_floats(&p->b_scale, p->n, p->k);
    double bias = p->bias_type ? (double)p->n * (double)w8a8_dtype_size(p->bias_type) : 0;
    double azp = p->azp ? 4.0 * (double)(p->azp == W8A8_AZP_TOKEN ? p->m : 1) : 0;
    double sums = p->azp ? 4.0 * (double)p->n : 0;
    if (a + b + out + sa + sb + bias + azp + sums > RANDOM_MAX_BYTES)
        return false;
    w8a8_tensors t = {host_buffer(r, a), host_buffer(r, b), host_buffer(r, out),
                      host_buffer(r, sa), host_buffer(r, sb),
                      p->bias_type ? host_buffer(r, bias) : NULL,
                      p->azp ? host_buffer(r, azp) : NULL, p->azp ? host_buffer(r, sums) : NULL};
    EXPECT_OK_CLEAN(ctx, w8a8_scaled_mm_cpu(ctx, p, &t));
    EXPECT(ctx, w8a8_scaled_mm(ctx, p, &t, NULL), W8A8_NO_DEVICE);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, p, &t, NULL), W8A8_NO_DEVICE);
    free((void *)t.a), free((void *)t.b), free(t.out), free((void *)t.a_scale);
    free((void *)t.b_scale), free((void *)t.bias), free((void *)t.azp), free((void *)t.b_col_sums);
    return true;
}

START_TEST(random_matmul_problems)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    test_rng r;
    test_rng_seed(&r, 20250611u + (uint64_t)_i);
    static _Alignas(16) unsigned char host[64];
    w8a8_tensors dummy = {host, host, host, (float *)host, (float *)host, NULL, NULL, NULL};
    int valid = 0, ran = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        w8a8_problem p;
        memset(&p, 0, sizeof p);
        random_problem(&r, &p);
        w8a8_status st = CALL(ctx, w8a8_problem_validate(ctx, &p));
        ck_assert_msg(st == W8A8_OK || st == W8A8_INVALID || st == W8A8_UNSUPPORTED,
                      "iteration %d: validate returned %s", it, w8a8_status_string(st));
        if (st != W8A8_OK) {
            /* Nothing may touch the 64-byte dummies: the problem is refused first. */
            EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, &dummy), st);
            EXPECT(ctx, w8a8_scaled_mm(ctx, &p, &dummy, NULL), st);
            continue;
        }
        valid++;
        ran += run_valid_problem(ctx, &r, &p);
        w8a8_explain explain;
        EXPECT_OK_CLEAN(ctx, w8a8_dispatch_explain(ctx, &p, &explain));
    }
    ck_assert_msg(valid > RANDOM_ITERATIONS / 20 && ran > RANDOM_ITERATIONS / 40,
                  "too few valid problems to mean anything: %d valid, %d ran", valid, ran);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

static void random_quant_problem(test_rng *r, w8a8_quant_problem *p)
{
    fill_kind kind = random_fill_kind(r);
    if (kind == FILL_BYTES) {
        random_bytes(r, p, sizeof *p);
        return;
    }
    p->m = PICK(r, 1, 2, 3, 5, 16, 33);
    p->k = PICK(r, 16, 32, 48, 128, 272);
    p->in_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->out_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_INT8);
    p->mode = (w8a8_quant_mode)PICK(r, 0, 1, 2, 3);
    p->group_k = (int32_t)PICK(r, 0, 16, 32, 64, 128, 256);
    p->scale_k_major = p->mode == W8A8_QUANT_DYNAMIC_GROUP ? (int32_t)PICK(r, 0, 1) : 0;
    p->m_pad = (int32_t)PICK(r, 0, 0, 1, 2, 4, 16);
    int64_t pad = p->m_pad > 1 ? p->m_pad : 1, m_out = (p->m + pad - 1) / pad * pad;
    int64_t groups = (p->k + (p->group_k ? p->group_k : 128) - 1) / (p->group_k ? p->group_k : 128);
    int64_t dense = p->scale_k_major ? m_out : groups;
    p->scale_ld = p->mode == W8A8_QUANT_DYNAMIC_GROUP ? PICK(r, 0, 0, dense, dense + 5) : 0;
    p->asymmetric = p->out_type == W8A8_INT8 && p->mode != W8A8_QUANT_DYNAMIC_GROUP
                        ? (int32_t)PICK(r, 0, 1) : 0;
    static const float amax[] = {0.0f, 0.0f, 1e-3f, 1e-8f};
    p->min_amax = amax[test_rng_next(r) % 4];
    p->ld_in = PICK(r, 0, 0, p->k, p->k + 8);
    p->ld_out = PICK(r, 0, 0, p->k, p->k + 16);
    const int64_t k = p->k; /* legal: the edges below are relative to it */
    if (edge(r))
        p->m = PICK(r, 0, -1, INT64_MAX, INT64_MAX / 16, INT64_MIN);
    if (edge(r))
        p->k = PICK(r, 0, -16, 17, 8, INT64_MAX - 15, INT64_MAX);
    if (edge(r))
        p->in_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_E4M3, W8A8_INT8, 77);
    if (edge(r))
        p->out_type = (w8a8_dtype)PICK(r, -1, W8A8_BF16, W8A8_E5M2, W8A8_E4M3FNUZ, 77);
    if (edge(r))
        p->mode = (w8a8_quant_mode)PICK(r, -1, 4, 77);
    if (edge(r))
        p->group_k = (int32_t)PICK(r, -16, 8, 48, 512, INT32_MIN, INT32_MAX);
    if (edge(r))
        p->scale_k_major = (int32_t)PICK(r, 1, 2, -1);
    if (edge(r))
        p->scale_ld = PICK(r, -1, 1, INT64_MAX, INT64_MAX / 3, INT64_MIN);
    if (edge(r))
        p->m_pad = (int32_t)PICK(r, -1, 3, 1 << 20, INT32_MAX, INT32_MIN);
    if (edge(r))
        p->asymmetric = (int32_t)PICK(r, 1, 2, -1);
    if (edge(r))
        p->min_amax = (float)PICK(r, -1, 1, 1000000);
    if (edge(r))
        p->min_amax = test_rng_next(r) % 2 ? NAN : INFINITY;
    if (edge(r))
        p->ld_in = PICK(r, -1, 1, k + 1, k + 4, INT64_MAX, INT64_MAX / 4);
    if (edge(r))
        p->ld_out = PICK(r, -1, 1, k + 1, k + 8, INT64_MIN, INT64_MAX / 2);
    if (kind == FILL_FLIPPED)
        flip_bit(r, p, sizeof *p);
}

/* A float for the caller's scale or bound: usually sane, sometimes not. */
static float random_scale_value(test_rng *r)
{
    static const float values[] = {1.0f, 0.5f, 3e-3f, 0.0f, NAN, INFINITY, 1e-30f, -2.0f};
    return values[test_rng_next(r) % 8];
}

/* Runs a quantization the validator accepted, on buffers sized from the documented layout
 * (w8a8_quant_problem, w8a8_quant_tensors). Returns whether it ran on the CPU. */
static bool run_valid_quant(w8a8_context *ctx, test_rng *r, const w8a8_quant_problem *p)
{
    int64_t m_out = w8a8_quant_rows_out(p);
    ck_assert_int_ge(m_out, p->m);
    int64_t ld_in = p->ld_in ? p->ld_in : p->k, ld_out = p->ld_out ? p->ld_out : p->k;
    double in = ((double)(p->m - 1) * (double)ld_in + (double)p->k) * (double)w8a8_dtype_size(p->in_type);
    double out = (double)(m_out - 1) * (double)ld_out + (double)p->k;
    double scales = 1;
    if (p->mode == W8A8_QUANT_DYNAMIC_TOKEN) {
        scales = (double)m_out;
    } else if (p->mode == W8A8_QUANT_DYNAMIC_GROUP) {
        int64_t group = p->group_k ? p->group_k : 128, groups = (p->k + group - 1) / group;
        double dense = (double)(p->scale_k_major ? m_out : groups);
        double outer = (double)(p->scale_k_major ? groups : m_out);
        scales = (outer - 1) * (p->scale_ld ? (double)p->scale_ld : dense) + dense;
    }
    if (in + out + 8 * scales > RANDOM_MAX_BYTES)
        return false;
    bool is_static = p->mode == W8A8_QUANT_STATIC_TENSOR;
    bool may_bound = !is_static && !p->asymmetric;
    float bound = random_scale_value(r);
    w8a8_quant_tensors t = {host_buffer(r, in), host_buffer(r, out), host_buffer(r, 4 * scales),
                            p->asymmetric ? host_buffer(r, 4 * scales) : NULL,
                            may_bound && test_rng_next(r) % 3 == 0 ? &bound : NULL};
    if (is_static)
        t.scale[0] = random_scale_value(r);
    EXPECT_OK_CLEAN(ctx, w8a8_quantize_cpu(ctx, p, &t));
    EXPECT(ctx, w8a8_quantize(ctx, p, &t, NULL), W8A8_NO_DEVICE);
    free((void *)t.in), free(t.out), free(t.scale), free(t.azp);
    return true;
}

START_TEST(random_quant_problems)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    test_rng r;
    test_rng_seed(&r, 977u + (uint64_t)_i);
    static _Alignas(16) unsigned char host[64];
    w8a8_quant_tensors dummy = {host, host + 16, (float *)(host + 32), (int32_t *)(host + 48),
                                NULL};
    int valid = 0, ran = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        w8a8_quant_problem p;
        memset(&p, 0, sizeof p);
        random_quant_problem(&r, &p);
        w8a8_status st = CALL(ctx, w8a8_quant_problem_validate(ctx, &p));
        ck_assert_msg(st == W8A8_OK || st == W8A8_INVALID, "iteration %d: %s", it,
                      w8a8_status_string(st));
        if (st != W8A8_OK) {
            ck_assert_int_eq(w8a8_quant_rows_out(&p), -1);
            EXPECT(ctx, w8a8_quantize_cpu(ctx, &p, &dummy), W8A8_INVALID);
            EXPECT(ctx, w8a8_quantize(ctx, &p, &dummy, NULL), W8A8_INVALID);
            continue;
        }
        valid++;
        ran += run_valid_quant(ctx, &r, &p);
    }
    ck_assert_msg(valid > RANDOM_ITERATIONS / 20 && ran > RANDOM_ITERATIONS / 40,
                  "too few valid problems to mean anything: %d valid, %d ran", valid, ran);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

static void random_linear_problem(test_rng *r, w8a8_linear_problem *p)
{
    fill_kind kind = random_fill_kind(r);
    if (kind == FILL_BYTES) {
        random_bytes(r, p, sizeof *p);
        return;
    }
    p->m = PICK(r, 1, 3, 16, 33);
    p->n = PICK(r, 8, 16, 64);
    p->k = PICK(r, 16, 32, 128, 272);
    p->x_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->w_type = (w8a8_dtype)PICK(r, W8A8_E4M3, W8A8_E5M2, W8A8_INT8);
    p->out_type = (w8a8_dtype)PICK(r, W8A8_BF16, W8A8_FP16, W8A8_FP32);
    p->bias_type = (w8a8_dtype)PICK(r, W8A8_DTYPE_NONE, W8A8_DTYPE_NONE, W8A8_FP32, p->out_type);
    p->x_quant = (w8a8_quant_mode)PICK(r, 0, 1, 2, 3);
    p->x_group_k = (int32_t)PICK(r, 0, 16, 128);
    p->x_scale_k_major = (int32_t)PICK(r, 0, 1);
    p->x_asymmetric = p->w_type == W8A8_INT8 && p->x_quant != W8A8_QUANT_DYNAMIC_GROUP
                          ? (int32_t)PICK(r, 0, 1) : 0;
    p->x_min_amax = test_rng_next(r) % 2 ? 0.0f : 1e-3f;
    /* The weight's block groups along K must match x's (128 when x_group_k is 0). */
    int32_t group_k = p->x_quant == W8A8_QUANT_DYNAMIC_GROUP && p->x_group_k ? p->x_group_k : 128;
    p->w_scale = random_scale(r, p->n, p->k, group_k);
    if (p->x_asymmetric && p->w_scale.kind == W8A8_SCALE_BLOCK)
        p->w_scale.kind = W8A8_SCALE_ROW;
    p->ld_x = PICK(r, 0, 0, p->k, p->k + 8);
    p->ld_w = PICK(r, 0, 0, p->k, p->k + 16);
    p->ld_out = PICK(r, 0, 0, p->n, p->n + 8);
    const int64_t n = p->n, k = p->k; /* legal: the edges below are relative to them */
    if (edge(r))
        p->m = PICK(r, 0, -1, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MAX - 1, INT64_MIN);
    if (edge(r))
        p->n = PICK(r, 0, -1, 7, INT64_MAX);
    if (edge(r))
        p->k = PICK(r, 0, 17, -16, INT64_MAX - 15);
    if (edge(r))
        p->x_type = (w8a8_dtype)PICK(r, -1, W8A8_E4M3, W8A8_INT8, 77);
    if (edge(r))
        p->w_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_BF16, W8A8_E4M3FNUZ, 77);
    if (edge(r))
        p->out_type = (w8a8_dtype)PICK(r, -1, 0, W8A8_E4M3, 77);
    if (edge(r))
        p->bias_type = (w8a8_dtype)PICK(r, -1, W8A8_E4M3, 77);
    if (edge(r))
        p->x_quant = (w8a8_quant_mode)PICK(r, -1, 4, 77);
    if (edge(r))
        p->x_group_k = (int32_t)PICK(r, -1, 48, 512, INT32_MIN);
    if (edge(r))
        p->x_scale_k_major = (int32_t)PICK(r, 2, -1);
    if (edge(r))
        p->x_asymmetric = (int32_t)PICK(r, 1, 2, -1);
    if (edge(r))
        p->x_min_amax = test_rng_next(r) % 2 ? NAN : -1.0f;
    if (edge(r))
        p->ld_x = PICK(r, -1, k + 1, INT64_MAX);
    if (edge(r))
        p->ld_w = PICK(r, -1, k + 1, INT64_MAX / 2);
    if (edge(r))
        p->ld_out = PICK(r, -1, n + 1, INT64_MIN);
    if (kind == FILL_FLIPPED)
        flip_bit(r, p, sizeof *p);
}

START_TEST(random_linear_problems)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    test_rng r;
    test_rng_seed(&r, 4242u + (uint64_t)_i);
    int valid = 0, runnable = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        w8a8_linear_problem p;
        memset(&p, 0, sizeof p);
        random_linear_problem(&r, &p);
        w8a8_quant_problem qp;
        w8a8_problem mm;
        size_t bytes = 0;
        w8a8_status st = CALL(ctx, w8a8_linear_problems(ctx, &p, &qp, &mm));
        ck_assert_msg(st == W8A8_OK || st == W8A8_INVALID, "iteration %d: %s", it,
                      w8a8_status_string(st));
        EXPECT(ctx, w8a8_linear_workspace_size(ctx, &p, &bytes), st);
        /* Tensors that are right for the problem, so only the problem can be wrong. */
        bool is_static = p.x_quant == W8A8_QUANT_STATIC_TENSOR;
        w8a8_linear_tensors t = {fake_device, fake_device, fake_device, (float *)fake_device,
                                 p.bias_type != W8A8_DTYPE_NONE ? fake_device : NULL,
                                 is_static ? (float *)fake_device : NULL,
                                 is_static && p.x_asymmetric ? (int32_t *)fake_device : NULL,
                                 NULL, p.x_asymmetric ? (int32_t *)fake_device : NULL};
        if (st != W8A8_OK) {
            EXPECT(ctx, w8a8_linear(ctx, &p, &t, fake_device, sizeof fake_device, NULL), st);
            continue;
        }
        valid++;
        /* The problems w8a8_linear runs: the quantization is valid; the matmul decides. */
        EXPECT_OK_CLEAN(ctx, w8a8_quant_problem_validate(ctx, &qp));
        w8a8_status want = CALL(ctx, w8a8_problem_validate(ctx, &mm));
        runnable += want == W8A8_OK;
        if (want == W8A8_OK)
            want = W8A8_NO_DEVICE;
        /* Device pointers are never dereferenced on a CPU-only context, so the workspace may
         * claim more bytes than fake_device holds. */
        EXPECT(ctx, w8a8_linear(ctx, &p, &t, fake_device, bytes, NULL), want);
        if (bytes > 0)
            EXPECT(ctx, w8a8_linear(ctx, &p, &t, fake_device, bytes - 1, NULL), W8A8_INVALID);
    }
    ck_assert_msg(valid > RANDOM_ITERATIONS / 20 && runnable > RANDOM_ITERATIONS / 100,
                  "too few valid problems to mean anything: %d valid, %d runnable", valid,
                  runnable);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

/* Random shard lists through the weight utilities: the CPU versions run on exactly sized
 * buffers whenever the arguments are legal (as the header states them). */
START_TEST(random_weight_calls)
{
    quiet q;
    quiet_begin(&q);
    char dir[512];
    test_mkdtemp(dir, sizeof dir);
    w8a8_context *ctx = open_in(dir);
    test_rng r;
    test_rng_seed(&r, 31337u + (uint64_t)_i);
    int ran = 0;
    for (int it = 0; it < RANDOM_ITERATIONS; it++) {
        int32_t n = (int32_t)PICK(&r, 1, 2, 3, 5, 64, 0, -1, 65);
        int64_t rows[65];
        bool legal_rows = n >= 1 && n <= 64;
        int64_t total = 0;
        for (int i = 0; i < 65; i++) {
            rows[i] = PICK(&r, 1, 2, 7, 16, 1, 3, 5, 8, 0, -1, INT64_MAX / 3);
            if (i < n && (rows[i] < 1 || __builtin_add_overflow(total, rows[i], &total)))
                legal_rows = false;
        }
        int64_t k = PICK(&r, 16, 32, 64, 17, 0, -16, INT64_MAX / 2);
        w8a8_dtype type = (w8a8_dtype)PICK(&r, W8A8_E4M3, W8A8_INT8, W8A8_INT8, W8A8_E5M2, 77);
        int64_t bytes;
        bool legal = legal_rows && k >= 16 && k % 16 == 0 &&
                     (type == W8A8_E4M3 || type == W8A8_INT8) &&
                     !__builtin_mul_overflow(total, k, &bytes) && bytes <= INT64_MAX / 8;
        float out_scale = 0;
        if (legal && bytes <= (int64_t)RANDOM_MAX_BYTES) {
            void *w_in = host_buffer(&r, (double)bytes), *w_out = host_buffer(&r, (double)bytes);
            float *scales = host_buffer(&r, 4.0 * n), *channel = host_buffer(&r, 4.0 * (double)total);
            for (int i = 0; i < n; i++)
                scales[i] = random_scale_value(&r);
            EXPECT_OK_CLEAN(ctx, w8a8_weight_requantize_fused_cpu(ctx, type, k, rows, n, w_in,
                                                                  test_rng_next(&r) % 2 ? w_in : w_out,
                                                                  scales, &out_scale));
            EXPECT_OK_CLEAN(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, n, scales, channel));
            EXPECT_OK_CLEAN(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, w_out, bytes, scales, n));
            free(w_in), free(w_out), free(scales), free(channel);
            ran++;
        } else if (!legal) {
            static _Alignas(16) unsigned char w[64];
            float scales[65] = {1};
            EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, type, k, rows, n, w, w, scales,
                                                         &out_scale), W8A8_INVALID);
            if (!legal_rows)
                EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, n, scales, scales),
                       W8A8_INVALID);
        }
        /* The GPU versions never touch memory on a CPU-only context. */
        EXPECT(ctx, w8a8_weight_requantize_fused(ctx, type, k, rows, n, fake_device, fake_device,
                                                 (float *)fake_device, (float *)fake_device, NULL),
               legal ? W8A8_NO_DEVICE : W8A8_INVALID);
        EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, n, (float *)fake_device,
                                              (float *)fake_device, NULL),
               legal_rows ? W8A8_NO_DEVICE : W8A8_INVALID);
    }
    ck_assert_int_gt(ran, RANDOM_ITERATIONS / 50);
    w8a8_context_close(ctx);
    remove_tree(dir);
    quiet_end(&q);
}
END_TEST

int main(void)
{
    fill_long_text(); /* before the forks */
    Suite *s = suite_create("robustness");
    TCase *api = tcase_create("api");
    tcase_set_timeout(api, 300);
    tcase_add_test(api, enums_and_names);
    tcase_add_test(api, null_context);
    tcase_add_test(api, null_arguments);
    tcase_add_test(api, hostile_context_options);
    tcase_add_test(api, kernel_compile_bad_strings);
    tcase_add_test(api, space_bad_strings_and_files);
    tcase_add_test(api, cache_bad_input);
    tcase_add_test(api, matmul_bad_problems);
    tcase_add_test(api, quant_bad_problems);
    tcase_add_test(api, weight_bad_input);
    suite_add_tcase(s, api);
    TCase *random = tcase_create("random");
    tcase_set_timeout(random, 600);
    tcase_add_loop_test(random, random_matmul_problems, 0, 2);
    tcase_add_loop_test(random, random_quant_problems, 0, 2);
    tcase_add_loop_test(random, random_linear_problems, 0, 2);
    tcase_add_loop_test(random, random_weight_calls, 0, 2);
    suite_add_tcase(s, random);
    return test_run_suite(s);
}
