/* Helpers shared by the Check suites. */
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

w8a8_context *test_ctx_open(void)
{
    /* No ck_assert here: suites call this from main(), where this Check version aborts on
     * any assertion, passing or not. */
    w8a8_context *ctx = NULL;
    w8a8_status st = w8a8_context_open(&ctx, NULL);
    if (st != W8A8_OK) {
        fprintf(stderr, "w8a8_context_open: %s: %s\n", w8a8_status_string(st), w8a8_errmsg(ctx));
        exit(1);
    }
    return ctx;
}

/* Folders made by test_mkdtemp, removed when the process that made them exits (a forked
 * child that exits normally must not remove its parent's folders, hence the pid). */
#define TEST_TMP_MAX 64
static char test_tmp_dirs[TEST_TMP_MAX][512];
static pid_t test_tmp_owner[TEST_TMP_MAX];
static int test_tmp_count;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag != FTW_SL)
        chmod(path, 0700); /* a file or folder a test made unreadable; never a link's target */
    remove(path);
    return 0;
}

void test_remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void test_tmp_cleanup(void)
{
    for (int i = 0; i < test_tmp_count; i++)
        if (test_tmp_owner[i] == getpid())
            test_remove_tree(test_tmp_dirs[i]);
}

void test_mkdtemp(char *path, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(path, size, "%s/w8a8test-XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(path));
    if (test_tmp_count == 0)
        atexit(test_tmp_cleanup);
    if (test_tmp_count < TEST_TMP_MAX && strlen(path) < sizeof test_tmp_dirs[0]) {
        snprintf(test_tmp_dirs[test_tmp_count], sizeof test_tmp_dirs[0], "%s", path);
        test_tmp_owner[test_tmp_count++] = getpid();
    }
}

w8a8_context *test_ctx_open_with(const char *kernel_dir, const char *cache_db, uint32_t flags)
{
    w8a8_context_options o = {.kernel_dir = kernel_dir, .cache_db = cache_db, .flags = flags};
    w8a8_context *ctx = NULL;
    w8a8_status st = w8a8_context_open(&ctx, &o);
    ck_assert_msg(st == W8A8_OK, "w8a8_context_open: %s", w8a8_errmsg(ctx));
    return ctx;
}

w8a8_context *test_ctx_open_fresh(char *tmpdir, size_t size)
{
    char local[512];
    char *dir = tmpdir ? tmpdir : local;
    size_t dsize = tmpdir ? size : sizeof local;
    test_mkdtemp(dir, dsize);
    return test_ctx_open_with(dir, NULL, W8A8_CONTEXT_CPU_ONLY);
}

w8a8_context *test_ctx_open_empty_cache(char *dir, size_t size)
{
    test_mkdtemp(dir, size);
    char db[1024];
    snprintf(db, sizeof db, "%s/tuning.db", dir);
    return test_ctx_open_with(NULL, db, 0);
}

void test_require_gpu_or_skip(const char *suite)
{
    /* CUDA does not survive fork(): every GPU suite runs its tests in-process, whoever
     * starts it (ctest sets this too; a suite started by hand did not). */
    setenv("CK_FORK", "no", 1);
    w8a8_context *ctx = NULL;
    w8a8_status st = w8a8_context_open(&ctx, NULL);
    bool ok = st == W8A8_OK && w8a8_context_has_device(ctx);
    if (!ok) {
        w8a8_device_info info;
        const char *why = st != W8A8_OK ? w8a8_errmsg(ctx) : "no CUDA device";
        if (st == W8A8_OK && w8a8_context_device_info(ctx, &info) == W8A8_OK)
            why = info.no_device_reason;
        printf("%s: skipped: %s\n", suite, why);
        fflush(stdout);
        w8a8_context_close(ctx);
        exit(TEST_SKIP_CODE);
    }
    w8a8_context_close(ctx);
}

int test_run_suite(Suite *s)
{
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}

void test_rng_seed(test_rng *r, uint64_t seed) { r->state = seed * 0x9E3779B97F4A7C15ull + 1; }

uint64_t test_rng_next(test_rng *r)
{
    uint64_t x = r->state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->state = x;
}

double test_rng_uniform(test_rng *r) { return (double)(test_rng_next(r) >> 11) * 0x1.0p-53; }

double test_rng_normal(test_rng *r)
{
    double u1 = test_rng_uniform(r), u2 = test_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int64_t test_rng_range(test_rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(test_rng_next(r) % (uint64_t)(hi - lo + 1));
}

static void gpu_check(w8a8_context *ctx, CUresult rc, const char *what)
{
    if (rc == CUDA_SUCCESS)
        return;
    const char *name = NULL;
    ctx->cu->cuGetErrorName(rc, &name);
    ck_abort_msg("%s failed: %s", what, name ? name : "?");
}

void *test_gpu_alloc(w8a8_context *ctx, size_t bytes)
{
    ck_assert(context_make_current(ctx) == W8A8_OK);
    CUdeviceptr p = 0;
    gpu_check(ctx, ctx->cu->cuMemAlloc(&p, bytes ? bytes : 16), "cuMemAlloc");
    return (void *)(uintptr_t)p;
}

void test_gpu_free(w8a8_context *ctx, void *ptr)
{
    if (ptr)
        ctx->cu->cuMemFree((CUdeviceptr)(uintptr_t)ptr);
}

void test_gpu_upload(w8a8_context *ctx, void *dst, const void *src, size_t bytes)
{
    gpu_check(ctx, ctx->cu->cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, bytes), "cuMemcpyHtoD");
}

void test_gpu_download(w8a8_context *ctx, void *dst, const void *src, size_t bytes)
{
    gpu_check(ctx, ctx->cu->cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, bytes), "cuMemcpyDtoH");
}

void test_gpu_poison(w8a8_context *ctx, void *ptr, size_t bytes, unsigned char value)
{
    gpu_check(ctx, ctx->cu->cuMemsetD8((CUdeviceptr)(uintptr_t)ptr, value, bytes), "cuMemsetD8");
}

void test_gpu_sync(w8a8_context *ctx)
{
    gpu_check(ctx, ctx->cu->cuCtxSynchronize(), "cuCtxSynchronize");
}

double test_accumulation_bound(const w8a8_problem *p, double tolerance)
{
    bool promoted = p->a_scale.kind == W8A8_SCALE_BLOCK || gemm_promotes(p);
    return tolerance + (p->a_type == W8A8_INT8 ? 0.0
                        : promoted             ? TEST_PROMOTED_ACCUMULATION_BOUND
                                               : TEST_FP8_ACCUMULATION_BOUND);
}

bool test_family_matches_reference(w8a8_context *ctx, const gemm_family *family,
                                   const pgen_case *c, const char *config)
{
    unsigned char *got = malloc(c->out_bytes), *want = malloc(c->out_bytes);
    ck_assert(got && want);
    w8a8_status st = pgen_run_family_gpu(ctx, family, c, config, got);
    ck_assert_msg(st == W8A8_OK, "%s %s: %s", family->name, config, w8a8_errmsg(ctx));
    st = pgen_run_reference_gpu(ctx, c, want);
    ck_assert_msg(st == W8A8_OK, "reference: %s", w8a8_errmsg(ctx));
    pgen_result r;
    pgen_compare(&c->problem, got, want, &r);
    double bound = test_accumulation_bound(&c->problem, r.tolerance);
    bool ok = r.bad_values == 0 && r.bad_padding == 0 && r.rel_error <= bound;
    if (!ok) {
        char text[320];
        pgen_problem_describe(&c->problem, text, sizeof text);
        printf("FAIL %s %s [%s]: rel %.3e (bound %.3e), %lld non-finite, %lld padding bytes "
               "written\n", family->name, text, config, r.rel_error, bound,
               (long long)r.bad_values, (long long)r.bad_padding);
    }
    free(got);
    free(want);
    return ok;
}

int test_family_case_configs(w8a8_context *ctx, const gemm_family *family, pgen_rng *rng,
                             const w8a8_problem *p, const char *const *configs, int count,
                             int *runs)
{
    pgen_case c;
    ck_assert_int_eq(pgen_case_create(ctx, rng, p, &c), W8A8_OK);
    int failures = 0;
    for (int ci = 0; ci < count; ci++) {
        failures += !test_family_matches_reference(ctx, family, &c, configs[ci]);
        (*runs)++;
    }
    pgen_case_destroy(&c);
    return failures;
}

void test_family_runs_are_bitwise_equal(w8a8_context *ctx, const gemm_family *family,
                                        const pgen_case *c, const char *const *configs,
                                        int count)
{
    unsigned char *first = malloc(c->out_bytes), *second = malloc(c->out_bytes);
    ck_assert(first && second);
    for (int i = 0; i < count; i++) {
        unsigned char *outs[] = {first, second};
        for (int run = 0; run < 2; run++) {
            w8a8_status st = pgen_run_family_gpu(ctx, family, c, configs[i], outs[run]);
            ck_assert_msg(st == W8A8_OK, "%s %s: %s", family->name, configs[i], w8a8_errmsg(ctx));
        }
        ck_assert_msg(memcmp(first, second, c->out_bytes) == 0, "%s %s: two runs differ",
                      family->name, configs[i]);
    }
    free(first);
    free(second);
}

void test_family_each_trait(w8a8_context *ctx, const gemm_family *family, uint64_t seed,
                            test_config_fn choose, const char *label, int min_runs)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, seed);
    int count = pgen_trait_count(), runs = 0, failures = 0;
    for (int i = 0; i < count; i++) {
        w8a8_problem p;
        pgen_problem(&rng, i, &p);
        if (!family->supports(ctx, &p))
            continue;
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
        char config[W8A8_CONFIG_BYTES];
        choose(runs, &p, config, sizeof config);
        failures += !test_family_matches_reference(ctx, family, &c, config);
        runs++;
        pgen_case_destroy(&c);
    }
    printf("%s: %d trait combinations run, %d failed\n", label, runs, failures);
    ck_assert_int_ge(runs, min_runs);
    ck_assert_msg(failures == 0, "%d of %d problems differ from the reference", failures, runs);
}

void test_block_problem(w8a8_problem *p, const int64_t shape[3], int v)
{
    static const w8a8_dtype outs[] = {W8A8_BF16, W8A8_FP16, W8A8_FP32};
    w8a8_problem_init(p, shape[0], shape[1], shape[2], v % 5 == 4 ? W8A8_E5M2 : W8A8_E4M3,
                      outs[v % 3]);
    pgen_block_scales(p, v % 2, (v / 2) % 2, v % 3 == 0 ? 0 : 1 + v % 7);
    p->bias_type = v % 4 == 0 ? W8A8_DTYPE_NONE : v % 4 == 1 ? W8A8_FP32 : p->out_type;
    p->ldc = test_padded_ldc(shape[1]);
}

#define PREWARM_MAX 1024

struct test_prewarm {
    w8a8_context *ctx;
    const gemm_family *family;
    char defines[PREWARM_MAX][512];
    int count;
};

test_prewarm *test_prewarm_new(w8a8_context *ctx, const gemm_family *family)
{
    test_prewarm *l = calloc(1, sizeof *l);
    ck_assert_ptr_nonnull(l);
    l->ctx = ctx;
    l->family = family;
    return l;
}

void test_prewarm_add(test_prewarm *l, const w8a8_problem *p, const char *config)
{
    char defines[512];
    /* a config the family refuses compiles nothing: its run reports the refusal */
    if (gemm_family_defines(l->family, l->ctx, p, config, defines, sizeof defines) != W8A8_OK)
        return;
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->defines[i], defines) == 0)
            return;
    ck_assert_int_lt(l->count, PREWARM_MAX);
    snprintf(l->defines[l->count++], sizeof l->defines[0], "%s", defines);
}

void test_prewarm_run(test_prewarm *l, const w8a8_problem *problems, int count)
{
    pgen_prewarm(l->ctx, problems, count);
    pgen_compile_each(l->ctx, l->family->name, l->family->arch ? l->family->arch : l->ctx->arch,
                      l->defines[0], sizeof l->defines[0], l->count);
    free(l);
}

void test_family_block_shapes(w8a8_context *ctx, const gemm_family *family, uint64_t seed,
                              const int64_t (*shapes)[3], int shape_count,
                              const char *const *configs, int config_count, const char *label)
{
    w8a8_problem *problems = calloc((size_t)(shape_count * config_count), sizeof *problems);
    ck_assert_ptr_nonnull(problems);
    test_prewarm *l = test_prewarm_new(ctx, family);
    for (int s = 0; s < shape_count; s++)
        for (int ci = 0; ci < config_count; ci++) {
            w8a8_problem *p = &problems[s * config_count + ci];
            test_block_problem(p, shapes[s], s + ci);
            ck_assert(family->supports(ctx, p));
            test_prewarm_add(l, p, configs[ci]);
        }
    test_prewarm_run(l, problems, shape_count * config_count);
    pgen_rng rng;
    pgen_rng_seed(&rng, seed);
    int runs = 0, failures = 0;
    for (int s = 0; s < shape_count; s++)
        for (int ci = 0; ci < config_count; ci++) {
            pgen_case c;
            ck_assert_int_eq(pgen_case_create(ctx, &rng, &problems[s * config_count + ci], &c),
                             W8A8_OK);
            failures += !test_family_matches_reference(ctx, family, &c, configs[ci]);
            runs++;
            pgen_case_destroy(&c);
        }
    free(problems);
    printf("%s: %d block-scaled config × shape runs, %d failed\n", label, runs, failures);
    ck_assert_msg(failures == 0, "%d of %d block-scaled runs differ from the reference",
                  failures, runs);
}

int64_t test_padded_ldc(int64_t n) { return (n + 7) / 8 * 8 + 8; }

static void *upload_or_null(w8a8_context *ctx, const void *src, size_t bytes)
{
    if (!src || !bytes)
        return NULL;
    void *d = test_gpu_alloc(ctx, bytes);
    test_gpu_upload(ctx, d, src, bytes);
    return d;
}

void test_gpu_tensors_upload(w8a8_context *ctx, const pgen_case *c, test_gpu_tensors *g)
{
    g->a = upload_or_null(ctx, c->a, c->a_bytes);
    g->b = upload_or_null(ctx, c->b, c->b_bytes);
    g->bias = upload_or_null(ctx, c->bias, c->bias_bytes);
    g->a_scale = upload_or_null(ctx, c->a_scale, c->a_scale_bytes);
    g->b_scale = upload_or_null(ctx, c->b_scale, c->b_scale_bytes);
    g->azp = upload_or_null(ctx, c->azp, c->azp_bytes);
    g->col_sums = upload_or_null(ctx, c->b_col_sums, c->b_col_sums_bytes);
    g->out = test_gpu_alloc(ctx, c->out_bytes);
    test_gpu_poison(ctx, g->out, c->out_bytes, 0xFF);
}

w8a8_tensors test_gpu_tensors_view(const test_gpu_tensors *g)
{
    w8a8_tensors t = {.a = g->a, .b = g->b, .out = g->out, .a_scale = g->a_scale,
                      .b_scale = g->b_scale, .bias = g->bias, .azp = g->azp,
                      .b_col_sums = g->col_sums};
    return t;
}

void test_gpu_tensors_free(w8a8_context *ctx, test_gpu_tensors *g)
{
    void *ptrs[] = {g->a, g->b, g->bias, g->a_scale, g->b_scale, g->azp, g->col_sums, g->out};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (ptrs[i])
            test_gpu_free(ctx, ptrs[i]);
}

void test_dispatched_in_a_graph(w8a8_context *ctx, const pgen_case *c)
{
    test_gpu_tensors g;
    test_gpu_tensors_upload(ctx, c, &g);
    w8a8_tensors t = test_gpu_tensors_view(&g);
    const cu_api *cu = ctx->cu;
    CUstream stream;
    CUgraph graph;
    CUgraphExec exec;
    ck_assert_int_eq(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    w8a8_status st = w8a8_scaled_mm(ctx, &c->problem, &t, stream);
    ck_assert_int_eq(cu->cuStreamEndCapture(stream, &graph), CUDA_SUCCESS);
    ck_assert_msg(st == W8A8_OK, "under capture: %s", w8a8_errmsg(ctx));
    ck_assert_int_eq(cu->cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
    unsigned char *got = malloc(c->out_bytes), *want = malloc(c->out_bytes);
    ck_assert(got && want);
    test_gpu_download(ctx, got, g.out, c->out_bytes);
    ck_assert_int_eq(pgen_run_reference_gpu(ctx, c, want), W8A8_OK);
    pgen_result r;
    pgen_compare(&c->problem, got, want, &r);
    double bound = test_accumulation_bound(&c->problem, r.tolerance);
    ck_assert_msg(r.bad_values == 0 && r.bad_padding == 0 && r.rel_error <= bound,
                  "graph replay: rel %.3e (bound %.3e)", r.rel_error, bound);
    free(got);
    free(want);
    cu->cuGraphExecDestroy(exec);
    cu->cuGraphDestroy(graph);
    cu->cuStreamDestroy(stream);
    test_gpu_tensors_free(ctx, &g);
}

bool test_fake_cuda_locate(char *path, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return util_format(path, size, "%s/libfake_cuda.so", exe) && access(path, R_OK) == 0;
}
