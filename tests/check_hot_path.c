/* The dispatcher's hot path without a GPU: the library runs on tests/fake_cuda.c (a stand-in
 * driver with one Hopper device whose launches only count), so every step of a w8a8_scaled_mm
 * call on a cached key runs for real except the driver itself. What is asserted is what the
 * hot path must not do once a key has been seen: allocate host memory, encode a tensor map it
 * encoded before, set function attributes, switch contexts; and what it must still do:
 * validate every call and hand each launch the maps of that call's own operands (pointers,
 * M within the bucket, threads). Also sm80_gemm's persistent grid, sized from the driver's
 * occupancy answer, and sm90_gemm's launch argument trigger.
 *
 * `check_hot_path --measure [calls]` prints the host time per call of both families on the
 * fake driver (the library's own share of the overhead, the driver's excluded); run it under
 * `valgrind --tool=callgrind` for instruction counts. Not a test: nothing is timed in the suite. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fake_cuda.h"
#include "testutil.h"

/* ---- host allocations made by the library (linked with -Wl,--wrap=malloc,…) --------------- */

static _Atomic uint64_t allocations;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *ptr, size_t size);
char *__wrap_strdup(const char *s);

void *__wrap_malloc(size_t size)
{
    allocations++;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
    allocations++;
    return __real_calloc(count, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
    allocations++;
    return __real_realloc(ptr, size);
}

char *__wrap_strdup(const char *s)
{
    allocations++;
    return __real_strdup(s);
}

/* ---- the fake driver --------------------------------------------------------------------- */

static char fake_path[PATH_MAX];
static fake_cuda_counts *fake;
static fake_cuda_last_launch_fn last_launch;

/* The library dlopen'ed the same path: dlopen hands back its handle. */
static bool fake_bind(void)
{
    void *handle = dlopen(fake_path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return false;
    fake = dlsym(handle, FAKE_CUDA_COUNTS_SYMBOL);
    *(void **)&last_launch = dlsym(handle, FAKE_CUDA_LAST_LAUNCH_SYMBOL);
    return fake && last_launch;
}

/* ---- fixture ------------------------------------------------------------------------------- */

static char tmpdir[512];
static w8a8_context *ctx;

static void setup(void)
{
    test_mkdtemp(tmpdir, sizeof tmpdir);
    char db[600];
    snprintf(db, sizeof db, "%s/tuning.db", tmpdir);
    /* the shared kernel store (compiles are real), an empty tuning database, no shipped ones:
     * every key runs its space's default */
    w8a8_context_options o = {.cache_db = db, .cache_path = ""};
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    ck_assert_msg(w8a8_context_has_device(ctx), "the fake driver did not give a device");
    ck_assert_msg(fake_bind(), "dlopen %s: %s", fake_path, dlerror());
}

static void teardown(void)
{
    w8a8_context_close(ctx);
    test_remove_tree(tmpdir);
}

/* Fake device addresses: 16-byte aligned, distinct per `set`, never dereferenced. */
static w8a8_tensors tensors_at(unsigned set)
{
    uintptr_t base = ((uintptr_t)1 << 40) + (uintptr_t)set * ((uintptr_t)1 << 32);
    w8a8_tensors t = {
        .a = (void *)(base), .b = (void *)(base + 0x40000000), .out = (void *)(base + 0x80000000),
        .a_scale = (void *)(base + 0xC0000000), .b_scale = (void *)(base + 0xC0001000)};
    return t;
}

static w8a8_problem problem_make(int64_t m, int64_t n, int64_t k)
{
    w8a8_problem p;
    w8a8_problem_init(&p, m, n, k, W8A8_E4M3, W8A8_BF16);
    return p;
}

static void call_ok(const w8a8_problem *p, const w8a8_tensors *t)
{
    w8a8_status st = w8a8_scaled_mm(ctx, p, t, NULL);
    ck_assert_msg(st == W8A8_OK, "w8a8_scaled_mm %lldx%lldx%lld: %s: %s", (long long)p->m,
                  (long long)p->n, (long long)p->k, w8a8_status_string(st), w8a8_errmsg(ctx));
}

/* The family the dispatcher planned for p. */
static void family_of(const w8a8_problem *p, char *family, size_t size)
{
    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, p, &e), W8A8_OK);
    snprintf(family, size, "%s", e.family);
}

/* ---- tests ---------------------------------------------------------------------------------- */

/* Decode (M = 16) and Hopper (M = 256) keys: after the first call, `calls` more calls reach
 * the driver as exactly `calls` launches and nothing else the hot path could avoid. */
static void expect_lean(int64_t m, const char *want_family)
{
    w8a8_problem p = problem_make(m, 4096, 4096);
    w8a8_tensors t = tensors_at(1);
    call_ok(&p, &t); /* the miss: chain, plan, compile or load */
    call_ok(&p, &t); /* the first launch of the kernel and of these tensors */
    char family[64];
    family_of(&p, family, sizeof family);
    ck_assert_str_eq(family, want_family);
    enum { CALLS = 100 };
    fake_cuda_counts before = *fake;
    uint64_t allocated = allocations;
    int failed = 0; /* no assertion inside the loop: Check's own reporting allocates */
    for (int i = 0; i < CALLS; i++)
        failed += w8a8_scaled_mm(ctx, &p, &t, NULL) != W8A8_OK;
    uint64_t allocated_by_calls = allocations - allocated; /* before Check's own */
    ck_assert_int_eq(failed, 0);
    ck_assert_uint_eq(fake->launches - before.launches, CALLS);
    ck_assert_msg(fake->encodes == before.encodes, "%s: %llu tensor maps encoded in %d calls",
                  family, (unsigned long long)(fake->encodes - before.encodes), CALLS);
    ck_assert_uint_eq(fake->func_set_attribute, before.func_set_attribute);
    ck_assert_uint_eq(fake->ctx_set, before.ctx_set);
    ck_assert_msg(allocated_by_calls == 0, "%s: %llu host allocations in %d calls", family,
                  (unsigned long long)allocated_by_calls, CALLS);
}

START_TEST(test_decode_call_is_lean) { expect_lean(16, "sm80_decode"); }
END_TEST

START_TEST(test_sm90_call_is_lean) { expect_lean(256, "sm90_gemm"); }
END_TEST

/* Each launch gets the maps of its own call: new pointers and another M of the same bucket
 * give other maps, and coming back gives the first maps again (the same bytes). */
START_TEST(test_maps_follow_the_call)
{
    w8a8_problem p256 = problem_make(256, 4096, 4096), p200 = problem_make(200, 4096, 4096);
    w8a8_tensors t1 = tensors_at(1), t2 = tensors_at(2);
    struct {
        const w8a8_problem *p;
        const w8a8_tensors *t;
        fake_cuda_launch seen;
    } calls[] = {{.p = &p256, .t = &t1}, {.p = &p256, .t = &t2}, {.p = &p200, .t = &t1},
                 {.p = &p200, .t = &t2}};
    enum { CASES = sizeof calls / sizeof calls[0] };
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < CASES; i++) {
            call_ok(calls[i].p, calls[i].t);
            fake_cuda_launch l = last_launch();
            ck_assert_str_eq(l.entry, "w8a8_sm90_gemm");
            ck_assert_uint_eq(l.map_base[0], (uintptr_t)calls[i].t->a);
            ck_assert_uint_eq(l.map_base[1], (uintptr_t)calls[i].t->b);
            if (round == 0)
                calls[i].seen = l;
            else /* a cached map is the map the driver encoded */
                ck_assert(memcmp(&l, &calls[i].seen, sizeof l) == 0);
        }
    /* M is in A's map (its rows), not in B's */
    ck_assert_uint_ne(calls[0].seen.map_hash[0], calls[2].seen.map_hash[0]);
    ck_assert_uint_eq(calls[0].seen.map_hash[1], calls[2].seen.map_hash[1]);
}
END_TEST

/* More operand sets than any small cache holds, round robin: every launch still gets its own
 * call's maps. */
START_TEST(test_many_operands)
{
    w8a8_problem p = problem_make(512, 4096, 4096);
    for (int round = 0; round < 2; round++)
        for (unsigned set = 0; set < 300; set++) {
            w8a8_tensors t = tensors_at(set);
            call_ok(&p, &t);
            fake_cuda_launch l = last_launch();
            ck_assert_uint_eq(l.map_base[0], (uintptr_t)t.a);
            ck_assert_uint_eq(l.map_base[1], (uintptr_t)t.b);
        }
}
END_TEST

enum { THREADS = 4, THREAD_CALLS = 2000 };

typedef struct thread_job {
    unsigned set;
    int mismatches;
    w8a8_status status;
} thread_job;

static void *thread_calls(void *arg)
{
    thread_job *job = arg;
    w8a8_problem p = problem_make(128 + 64 * (job->set % 2), 4096, 4096);
    for (int i = 0; i < THREAD_CALLS && job->status == W8A8_OK; i++) {
        w8a8_tensors t = tensors_at(job->set + (unsigned)(i % 3) * THREADS);
        job->status = w8a8_scaled_mm(ctx, &p, &t, NULL);
        fake_cuda_launch l = last_launch(); /* the fake keeps one per thread */
        if (l.map_base[0] != (uintptr_t)t.a || l.map_base[1] != (uintptr_t)t.b)
            job->mismatches++;
    }
    return NULL;
}

START_TEST(test_threads)
{
    pthread_t ids[THREADS];
    thread_job jobs[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job){.set = i, .status = W8A8_OK};
        ck_assert_int_eq(pthread_create(&ids[i], NULL, thread_calls, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(ids[i], NULL);
        ck_assert_msg(jobs[i].status == W8A8_OK, "thread %d: %s", i,
                      w8a8_status_string(jobs[i].status));
        ck_assert_int_eq(jobs[i].mismatches, 0);
    }
}
END_TEST

/* A cached key still validates every call: nothing reaches the driver, the message names the
 * argument, and the next good call runs. */
START_TEST(test_cached_key_still_validates)
{
    w8a8_problem p = problem_make(256, 4096, 4096);
    w8a8_tensors t = tensors_at(1);
    call_ok(&p, &t);
    uint64_t launches = fake->launches;
    w8a8_tensors bad = t;
    bad.a = (char *)bad.a + 8;
    ck_assert_int_eq(w8a8_scaled_mm(ctx, &p, &bad, NULL), W8A8_INVALID);
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "tensors.a"), "%s", w8a8_errmsg(ctx));
    w8a8_problem odd = p;
    odd.lda = 4100;
    ck_assert_int_eq(w8a8_scaled_mm(ctx, &odd, &t, NULL), W8A8_INVALID);
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "lda"), "%s", w8a8_errmsg(ctx));
    ck_assert_uint_eq(fake->launches, launches);
    call_ok(&p, &t);
    ck_assert_str_eq(w8a8_errmsg(ctx), "");
    ck_assert_uint_eq(fake->launches, launches + 1);
}
END_TEST

/* The benchmark's floor on the fake driver: ours and the bare launch both measured, one
 * launch per call, the same number of calls on each side; bad arguments refused. */
START_TEST(test_launch_floor)
{
    w8a8_problem p = problem_make(256, 4096, 4096);
    w8a8_launch_floor r;
    ck_assert_int_eq(w8a8_bench_launch_floor(ctx, &p, 640, &r), W8A8_OK);
    ck_assert_int_eq(r.calls, 640);
    ck_assert_int_eq(r.launches_per_call, 1);
    ck_assert(r.us_per_call > 0 && r.min_us_per_call > 0 && r.min_us_per_call <= r.us_per_call);
    ck_assert(r.floor_us_per_call > 0 && r.floor_min_us_per_call <= r.floor_us_per_call);
    ck_assert_int_eq(w8a8_bench_launch_floor(NULL, &p, 640, &r), W8A8_INVALID);
    ck_assert_int_eq(w8a8_bench_launch_floor(ctx, NULL, 640, &r), W8A8_INVALID);
    ck_assert_int_eq(w8a8_bench_launch_floor(ctx, &p, 640, NULL), W8A8_INVALID);
    w8a8_problem bad = p;
    bad.k = 100;
    ck_assert_int_eq(w8a8_bench_launch_floor(ctx, &bad, 640, &r), W8A8_INVALID);
    /* the hook is gone: the next call reaches the driver once */
    uint64_t launches = fake->launches;
    w8a8_tensors t = tensors_at(1);
    call_ok(&p, &t);
    ck_assert_uint_eq(fake->launches, launches + 1);
}
END_TEST

/* sm80_gemm's persist=1: a grid of the CTAs the driver says fit an SM (the fake: 2 of 128
 * threads, 1 of 256) times the SMs, or one CTA a tile when there are fewer tiles; persist=0:
 * one CTA a tile. */
START_TEST(test_sm80_persistent_grid)
{
    static const struct {
        int64_t m, n;
        const char *config;
        unsigned grid;
    } cases[] = {
        {4096, 4096, "block_m=128,block_n=128,warps_m=2,warps_n=2,prefetch=1,epilogue=1,persist=1",
         2 * 132},
        {4096, 4096, "block_m=256,block_n=128,warps_m=4,warps_n=2,prefetch=1,epilogue=1,persist=1",
         132},
        {4096, 4096, "block_m=128,block_n=128,warps_m=2,warps_n=2,prefetch=1,epilogue=1", 1024},
        {300, 200, "block_m=128,block_n=128,warps_m=2,warps_n=2,prefetch=1,epilogue=1,persist=1",
         3 * 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        w8a8_problem p;
        w8a8_problem_init(&p, cases[i].m, cases[i].n, 4096, W8A8_INT8, W8A8_BF16);
        gemm_plan plan;
        w8a8_status st = gemm_family_sm80_gemm.plan(ctx, &p, cases[i].config, &plan);
        ck_assert_msg(st == W8A8_OK, "%s: %s", cases[i].config, w8a8_errmsg(ctx));
        ck_assert_msg(plan.launch.grid[0] == cases[i].grid, "%s at %lldx%lld: grid %u, wanted %u",
                      cases[i].config, (long long)cases[i].m, (long long)cases[i].n,
                      plan.launch.grid[0], cases[i].grid);
    }
}
END_TEST

/* sm90_gemm's launch argument trigger reaches the kernel as the config says (its two values
 * share one cubin). */
START_TEST(test_sm90_trigger_reaches_the_kernel)
{
    w8a8_problem in = problem_make(256, 4096, 4096), p;
    gemm_problem_resolve(&in, &p);
    w8a8_tensors t = tensors_at(1);
    for (int trigger = 0; trigger < 2; trigger++) {
        char config[128];
        snprintf(config, sizeof config, "block_m=128,block_n=128,stages=4,consumers=2,trigger=%d",
                 trigger);
        gemm_plan plan;
        ck_assert_msg(gemm_family_sm90.plan(ctx, &p, config, &plan) == W8A8_OK, "%s: %s", config,
                      w8a8_errmsg(ctx));
        w8a8_status st = gemm_family_sm90.run(ctx, &plan, &p, &t, NULL);
        ck_assert_msg(st == W8A8_OK, "%s: %s", config, w8a8_errmsg(ctx));
        fake_cuda_launch l = last_launch();
        ck_assert_str_eq(l.entry, "w8a8_sm90_gemm");
        ck_assert_int_eq(l.trigger, trigger);
    }
}
END_TEST

/* `w8a8 bench --host-overhead` on the fake driver: the text line and the JSON object carry
 * ours, the floor and the difference; the JSON object has no "us" field (bench/rows.py reads
 * rows with one as timings). */
static void run_bench(const char *args, char *out, size_t size)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "W8A8_CACHE_DB='%s/cli.db' '%s' bench --host-overhead --no-cublaslt "
             "--calls 640 --shape 16,4096,4096 %s 2>&1", tmpdir, W8A8_CLI, args);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    size_t used = fread(out, 1, size - 1, f);
    out[used] = '\0';
    ck_assert_msg(pclose(f) == 0, "%s\n%s", cmd, out);
}

START_TEST(test_bench_output)
{
    char out[8192];
    run_bench("", out, sizeof out);
    const char *line = strstr(out, "host overhead 16x4096x4096: ");
    ck_assert_msg(line, "%s", out);
    double ours, fastest, floor_us, floor_fastest, over;
    int calls, per_call;
    char family[64];
    int got = sscanf(line, "host overhead 16x4096x4096: %lf us per w8a8_scaled_mm call (fastest "
                     "chunk %lf us; %d calls; target <= 1.5 us); floor %lf us per bare "
                     "cuLaunchKernelEx of the same launch (fastest chunk %lf us; %d per call); "
                     "ours - floor %lf us; family %63s", &ours, &fastest, &calls, &floor_us,
                     &floor_fastest, &per_call, &over, family);
    ck_assert_msg(got == 8, "%d fields parsed from: %s", got, line);
    ck_assert_int_eq(calls, 640);
    ck_assert_int_eq(per_call, 1);
    ck_assert_str_eq(family, "sm80_decode");
    run_bench("--json", out, sizeof out);
    line = strstr(out, "{\"provider\": \"w8a8jit\", \"measure\": \"host_overhead\"");
    ck_assert_msg(line, "%s", out);
    static const char *const fields[] = {
        "\"family\": \"sm80_decode\"", "\"calls\": 640", "\"launches_per_call\": 1",
        "\"host_us\": ", "\"host_min_us\": ", "\"floor_us\": ", "\"floor_min_us\": ",
        "\"over_floor_us\": ", "\"target_us\": 1.50}"};
    const char *end = strchr(line, '\n');
    ck_assert_ptr_nonnull(end);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *at = strstr(line, fields[i]);
        ck_assert_msg(at && at < end, "no %s in %.*s", fields[i], (int)(end - line), line);
    }
    ck_assert_msg(!strstr(line, "\"us\":") || strstr(line, "\"us\":") > end, "%s", line);
}
END_TEST

/* ---- measurement (not a test) ---------------------------------------------------------------- */

/* Check's assertions may not run outside a test: this reports and returns instead. */
static int measure(int calls)
{
    char dir[] = "/tmp/w8a8-hot-path-XXXXXX", db[64];
    if (!mkdtemp(dir))
        return 1;
    snprintf(db, sizeof db, "%s/tuning.db", dir);
    w8a8_context_options o = {.cache_db = db, .cache_path = ""};
    if (w8a8_context_open(&ctx, &o) != W8A8_OK || !w8a8_context_has_device(ctx) || !fake_bind()) {
        fprintf(stderr, "check_hot_path: no context on the fake driver: %s\n", w8a8_errmsg(ctx));
        return 1;
    }
    static const int64_t ms[] = {16, 4096};
    int rc = 0;
    for (size_t i = 0; i < sizeof ms / sizeof ms[0] && rc == 0; i++) {
        w8a8_problem p = problem_make(ms[i], 4096, 4096);
        w8a8_tensors t = tensors_at(1);
        w8a8_explain e;
        w8a8_status st = w8a8_scaled_mm(ctx, &p, &t, NULL);
        if (st == W8A8_OK)
            st = w8a8_scaled_mm(ctx, &p, &t, NULL);
        if (st == W8A8_OK)
            st = w8a8_dispatch_explain(ctx, &p, &e);
        fake_cuda_counts before = *fake;
        uint64_t allocated = allocations;
        double t0 = util_now();
        for (int c = 0; c < calls && st == W8A8_OK; c++)
            st = w8a8_scaled_mm(ctx, &p, &t, NULL);
        double ns = 1e9 * (util_now() - t0) / calls;
        if (st != W8A8_OK) {
            fprintf(stderr, "check_hot_path: %s\n", w8a8_errmsg(ctx));
            rc = 1;
        } else {
            printf("%lldx4096x4096 %-12s %7.1f ns per call on the fake driver; per call: %.2f "
                   "tensor maps encoded, %.2f host allocations\n",
                   (long long)p.m, e.family, ns, (double)(fake->encodes - before.encodes) / calls,
                   (double)(allocations - allocated) / calls);
        }
    }
    w8a8_context_close(ctx);
    test_remove_tree(dir);
    return rc;
}

int main(int argc, char **argv)
{
    if (!test_fake_cuda_locate(fake_path, sizeof fake_path)) {
        printf("check_hot_path: skipped: no libfake_cuda.so beside the executable\n");
        return TEST_SKIP_CODE;
    }
    setenv("W8A8_CUDA_DRIVER", fake_path, 1);
    unsetenv("W8A8_TUNE");
    if (argc >= 2 && strcmp(argv[1], "--measure") == 0)
        return measure(argc >= 3 ? atoi(argv[2]) : 1000000);
    Suite *s = suite_create("hot_path");
    TCase *tc = tcase_create("hot_path");
    tcase_set_timeout(tc, 300);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_decode_call_is_lean);
    tcase_add_test(tc, test_sm90_call_is_lean);
    tcase_add_test(tc, test_maps_follow_the_call);
    tcase_add_test(tc, test_many_operands);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_cached_key_still_validates);
    tcase_add_test(tc, test_launch_floor);
    tcase_add_test(tc, test_sm80_persistent_grid);
    tcase_add_test(tc, test_sm90_trigger_reaches_the_kernel);
    tcase_add_test(tc, test_bench_output);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
