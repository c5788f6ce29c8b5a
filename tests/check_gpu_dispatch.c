/* The dispatcher on a GPU: w8a8_scaled_mm equals the reference kernel on random problems
 * through each link of the fallback chain; a second call on a key compiles and loads nothing;
 * a warmed key works inside a captured CUDA graph, and so does a cache row naming a swap-AB
 * config (replayed twice, bitwise equal); back-to-back calls into one output keep
 * their order under programmatic dependent launch; several threads dispatch at once; the host
 * time of a cached call is measured and printed (not asserted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "problem_gen.h"
#include "testutil.h"
#include "tune.h"

static w8a8_context *ctx;
static char tmpdir[512];

static void setup(void) { ctx = test_ctx_open_empty_cache(tmpdir, sizeof tmpdir); }

static void teardown(void)
{
    w8a8_context_close(ctx);
    ctx = NULL;
}

/* A case on the device: the pgen host tensors and their device copies. */
typedef struct gpu_case {
    pgen_case host;
    test_gpu_tensors dev;
} gpu_case;

static void gpu_case_make(gpu_case *g, pgen_rng *rng, const w8a8_problem *p)
{
    memset(g, 0, sizeof *g);
    ck_assert_int_eq(pgen_case_create(ctx, rng, p, &g->host), W8A8_OK);
    test_gpu_tensors_upload(ctx, &g->host, &g->dev);
}

static void gpu_case_free(gpu_case *g)
{
    test_gpu_tensors_free(ctx, &g->dev);
    pgen_case_destroy(&g->host);
}

/* The output now in g->dev.out against the reference kernel's for the same inputs. The
 * reference family must match it to pgen's tolerance; a tensor-core family to the tuner's bound
 * (FP8 accumulation keeps fewer bits: see timing_tolerance). */
static void expect_reference(const gpu_case *g, const char *what)
{
    size_t bytes = g->host.out_bytes;
    void *got = malloc(bytes), *want = malloc(bytes);
    ck_assert(got && want);
    test_gpu_sync(ctx);
    test_gpu_download(ctx, got, g->dev.out, bytes);
    ck_assert_int_eq(pgen_run_reference_gpu(ctx, &g->host, want), W8A8_OK);
    pgen_result r;
    pgen_compare(&g->host.problem, got, want, &r);
    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &g->host.problem, &e), W8A8_OK);
    double tolerance = r.tolerance;
    if (strcmp(e.family, "reference_gemm") != 0) {
        double ulp_rel, accumulation_rel;
        timing_tolerance(&g->host.problem, &ulp_rel, &accumulation_rel);
        tolerance = ulp_rel + accumulation_rel;
    }
    char text[512];
    pgen_problem_describe(&g->host.problem, text, sizeof text);
    ck_assert_msg(r.rel_error <= tolerance && r.bad_values == 0 && r.bad_padding == 0,
                  "%s: %s (%s %s): rel error %.3g (tolerance %.3g), %lld bad values, %lld bad "
                  "padding bytes", what, text, e.family, e.config, r.rel_error, tolerance,
                  (long long)r.bad_values, (long long)r.bad_padding);
    free(got);
    free(want);
}

/* Dispatches the case (output poisoned first) and checks it; explain OUT. */
static void dispatch_and_check(gpu_case *g, const char *what, w8a8_explain *e)
{
    w8a8_tensors t = test_gpu_tensors_view(&g->dev);
    test_gpu_poison(ctx, g->dev.out, g->host.out_bytes, 0xFF);
    w8a8_status st = w8a8_scaled_mm(ctx, &g->host.problem, &t, NULL);
    ck_assert_msg(st == W8A8_OK, "%s: %s", what, w8a8_errmsg(ctx));
    expect_reference(g, what);
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &g->host.problem, e), W8A8_OK);
}

static void put_row(const w8a8_problem *p, int64_t m, const char *family, const char *config)
{
    cache_device dev;
    cache_key key;
    cache_measurement row;
    ck_assert_int_eq(cache_device_from_ctx(ctx, &dev), W8A8_OK);
    w8a8_problem at = *p;
    at.m = m;
    cache_key_make(&key, &at, &dev);
    memset(&row, 0, sizeof row);
    snprintf(row.family, sizeof row.family, "%s", family);
    snprintf(row.config, sizeof row.config, "%s", config);
    snprintf(row.status, sizeof row.status, "ok");
    row.median_us = 1.0;
    row.samples = 5;
    row.verified = 1;
    row.timestamp = 1700000000;
    ck_assert_msg(cache_put_measurement(ctx, &key, &row) == W8A8_OK, "%s", w8a8_errmsg(ctx));
}

/* ---- tests ------------------------------------------------------------------------------------ */

START_TEST(test_random_problems)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, 11);
    int count = 2 * pgen_trait_count() < 64 ? 2 * pgen_trait_count() : 64;
    for (int i = 0; i < count; i++) {
        w8a8_problem p;
        pgen_problem(&rng, i * 7, &p);
        gpu_case g;
        gpu_case_make(&g, &rng, &p);
        w8a8_explain e;
        dispatch_and_check(&g, "empty cache", &e);
        ck_assert_msg(strcmp(e.match, "space default") == 0 || strcmp(e.match, "reference") == 0,
                      "match %s", e.match);
        gpu_case_free(&g);
    }
}
END_TEST

START_TEST(test_each_link)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, 5);
    static const struct {
        const char *family, *config, *match;
        int64_t row_m; /* 0: the case's own bucket */
    } links[] = {
        {"reference_gemm", "", "exact", 0},
        {"reference_gemm", "", "bucket", 1},
        {"gone_gemm", "x=1", NULL, 0}, /* unknown family: skipped with a note */
    };
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        w8a8_problem p; /* bucket 128; the "bucket" row sits at 1; a key per link */
        w8a8_problem_init(&p, 100 + (int64_t)i, 384 + 128 * (int64_t)i, 256, W8A8_E4M3, W8A8_BF16);
        p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_ROW;
        gpu_case g;
        gpu_case_make(&g, &rng, &p);
        put_row(&g.host.problem, links[i].row_m ? links[i].row_m : 128, links[i].family,
                links[i].config);
        w8a8_explain e;
        dispatch_and_check(&g, links[i].family, &e);
        if (links[i].match) {
            ck_assert_str_eq(e.match, links[i].match);
            ck_assert_str_eq(e.family, links[i].family);
        } else {
            ck_assert_str_ne(e.match, "exact");
            ck_assert_ptr_nonnull(strstr(e.reason, "gone_gemm"));
        }
        gpu_case_free(&g);
    }
}
END_TEST

START_TEST(test_second_call_compiles_nothing)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, 3);
    w8a8_problem p;
    w8a8_problem_init(&p, 200, 320, 512, W8A8_E4M3, W8A8_BF16); /* bucket 256 */
    gpu_case g;
    gpu_case_make(&g, &rng, &p);
    w8a8_tensors t = test_gpu_tensors_view(&g.dev);
    ck_assert_int_eq(w8a8_scaled_mm(ctx, &g.host.problem, &t, NULL), W8A8_OK);
    test_gpu_sync(ctx);
    w8a8_context_stats before, after;
    ck_assert_int_eq(w8a8_context_stats_get(ctx, &before), W8A8_OK);
    w8a8_problem smaller = g.host.problem;
    smaller.m = 193; /* same bucket, fewer rows */
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(w8a8_scaled_mm(ctx, i % 2 ? &smaller : &g.host.problem, &t, NULL), W8A8_OK);
    test_gpu_sync(ctx);
    ck_assert_int_eq(w8a8_context_stats_get(ctx, &after), W8A8_OK);
    ck_assert_uint_eq(after.nvrtc_compiles, before.nvrtc_compiles);
    ck_assert_uint_eq(after.disk_hits, before.disk_hits);
    ck_assert_uint_eq(after.memory_hits, before.memory_hits);
    ck_assert_uint_eq(after.launches, before.launches + 10);
    w8a8_explain e;
    dispatch_and_check(&g, "second call", &e);
    gpu_case_free(&g);
}
END_TEST

START_TEST(test_graph_capture)
{
    pgen_rng rng;
    pgen_rng_seed(&rng, 9);
    w8a8_problem p;
    pgen_problem(&rng, 2, &p);
    gpu_case g;
    gpu_case_make(&g, &rng, &p);
    ck_assert_int_eq(w8a8_dispatch_warm(ctx, &g.host.problem), W8A8_OK);
    const cu_api *cu = ctx->cu;
    CUstream stream;
    CUgraph graph;
    CUgraphExec exec;
    ck_assert_int_eq(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    test_gpu_poison(ctx, g.dev.out, g.host.out_bytes, 0xFF);
    w8a8_tensors t = test_gpu_tensors_view(&g.dev);
    ck_assert_int_eq(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    w8a8_status st = w8a8_scaled_mm(ctx, &g.host.problem, &t, stream);
    ck_assert_int_eq(cu->cuStreamEndCapture(stream, &graph), CUDA_SUCCESS);
    ck_assert_msg(st == W8A8_OK, "under capture: %s", w8a8_errmsg(ctx));
    ck_assert_int_eq(cu->cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuGraphLaunch(exec, stream), CUDA_SUCCESS);
    ck_assert_int_eq(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
    expect_reference(&g, "graph replay");
    cu->cuGraphExecDestroy(exec);
    cu->cuGraphDestroy(graph);
    cu->cuStreamDestroy(stream);
    gpu_case_free(&g);
}
END_TEST

/* A cache row naming a swap-AB config (sm90_gemm, swap=1, split 2: a cluster per tile) for
 * an odd decode shape: the dispatched call, captured in a graph and replayed twice, equals the
 * reference, and both replays give the same bytes. */
START_TEST(test_swap_row_in_a_graph)
{
    static const char *const config = "block_m=128,block_n=24,stages=8,consumers=2,split=2,swap=1";
    pgen_rng rng;
    pgen_rng_seed(&rng, 29);
    w8a8_problem p;
    w8a8_problem_init(&p, 19, 4100, 4112, W8A8_E5M2, W8A8_BF16);
    p.b_type = W8A8_E4M3; /* the operands' types exchange too */
    p.a_scale.kind = W8A8_SCALE_ROW;
    p.ldc = 4104;
    p.bias_type = W8A8_BF16;
    gpu_case g;
    gpu_case_make(&g, &rng, &p);
    put_row(&g.host.problem, g.host.problem.m, "sm90_gemm", config);
    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &g.host.problem, &e), W8A8_OK);
    ck_assert_str_eq(e.family, "sm90_gemm");
    ck_assert_msg(strstr(e.config, "swap=1") != NULL, "explain: %s", e.config);
    ck_assert_int_eq(w8a8_dispatch_warm(ctx, &g.host.problem), W8A8_OK);
    const cu_api *cu = ctx->cu;
    CUstream stream;
    CUgraph graph;
    CUgraphExec exec;
    ck_assert_int_eq(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    w8a8_tensors t = test_gpu_tensors_view(&g.dev);
    ck_assert_int_eq(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    w8a8_status st = w8a8_scaled_mm(ctx, &g.host.problem, &t, stream);
    ck_assert_int_eq(cu->cuStreamEndCapture(stream, &graph), CUDA_SUCCESS);
    ck_assert_msg(st == W8A8_OK, "under capture: %s", w8a8_errmsg(ctx));
    ck_assert_int_eq(cu->cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
    unsigned char *first = malloc(g.host.out_bytes), *second = malloc(g.host.out_bytes);
    ck_assert(first && second);
    for (int replay = 0; replay < 2; replay++) {
        test_gpu_poison(ctx, g.dev.out, g.host.out_bytes, 0xFF);
        ck_assert_int_eq(cu->cuGraphLaunch(exec, stream), CUDA_SUCCESS);
        ck_assert_int_eq(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
        expect_reference(&g, "swap row, graph replay");
        test_gpu_download(ctx, replay ? second : first, g.dev.out, g.host.out_bytes);
    }
    ck_assert_msg(memcmp(first, second, g.host.out_bytes) == 0, "two replays differ");
    free(first);
    free(second);
    cu->cuGraphExecDestroy(exec);
    cu->cuGraphDestroy(graph);
    cu->cuStreamDestroy(stream);
    gpu_case_free(&g);
}
END_TEST

/* Programmatic dependent launch: a call may start before the previous one on its stream has
 * finished, so each family must wait before it touches memory. A slow problem (long K) and a
 * fast one (short K) write the same output in turns with no sync between them; the output
 * must be the last call's. A family that wrote before waiting would let the slow call's
 * stores land after the fast call's. For sm90_gemm (M 256), sm80_decode (M 4) and sm90_gemm
 * swapped (M 8), each forced by a cache row. */
START_TEST(test_back_to_back_calls_keep_order)
{
    static const struct {
        int64_t m;
        const char *family, *config;
    } cases[] = {
        {256, "sm90_gemm",
         "block_m=128,block_n=128,stages=4,consumers=2,pingpong=0,raster=0,group=8,cluster=1,"
         "epilogue=0"},
        {4, "sm80_decode", "warps=4,row_tiles=2,token_tiles=1,unroll=2"},
        {8, "sm90_gemm", "block_m=128,block_n=8,stages=8,consumers=2,swap=1"},
    };
    pgen_rng rng;
    pgen_rng_seed(&rng, 17);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        w8a8_problem slow_p, fast_p;
        w8a8_problem_init(&slow_p, cases[i].m, 4096, 8192, W8A8_E4M3, W8A8_BF16);
        w8a8_problem_init(&fast_p, cases[i].m, 4096, 128, W8A8_E4M3, W8A8_BF16);
        gpu_case slow, fast;
        gpu_case_make(&slow, &rng, &slow_p);
        gpu_case_make(&fast, &rng, &fast_p);
        put_row(&slow.host.problem, cases[i].m, cases[i].family, cases[i].config);
        put_row(&fast.host.problem, cases[i].m, cases[i].family, cases[i].config);
        w8a8_tensors ts = test_gpu_tensors_view(&slow.dev), tf = test_gpu_tensors_view(&fast.dev);
        tf.out = ts.out; /* one output, the same shape */
        for (int last_fast = 0; last_fast < 2; last_fast++) {
            test_gpu_poison(ctx, ts.out, slow.host.out_bytes, 0xFF);
            for (int call = 0; call < 8; call++) {
                bool fast_turn = (call % 2) == last_fast;
                w8a8_status st = w8a8_scaled_mm(
                    ctx, fast_turn ? &fast.host.problem : &slow.host.problem,
                    fast_turn ? &tf : &ts, NULL);
                ck_assert_msg(st == W8A8_OK, "%s: %s", cases[i].family, w8a8_errmsg(ctx));
            }
            w8a8_explain e;
            ck_assert_int_eq(w8a8_dispatch_explain(ctx, &slow.host.problem, &e), W8A8_OK);
            ck_assert_str_eq(e.family, cases[i].family);
            if (last_fast) {
                void *own = fast.dev.out;
                fast.dev.out = slow.dev.out;
                expect_reference(&fast, "fast call after slow ones");
                fast.dev.out = own;
            } else {
                expect_reference(&slow, "slow call after fast ones");
            }
        }
        gpu_case_free(&fast);
        gpu_case_free(&slow);
    }
}
END_TEST

typedef struct thread_job {
    gpu_case *g;
    w8a8_status status;
} thread_job;

static void *dispatch_thread(void *arg)
{
    thread_job *job = arg;
    w8a8_tensors t = test_gpu_tensors_view(&job->g->dev);
    job->status = W8A8_OK;
    for (int i = 0; i < 50 && job->status == W8A8_OK; i++)
        job->status = w8a8_scaled_mm(ctx, &job->g->host.problem, &t, NULL);
    return NULL;
}

START_TEST(test_threads)
{
    enum { THREADS = 6 };
    pgen_rng rng;
    pgen_rng_seed(&rng, 21);
    gpu_case cases[THREADS];
    thread_job jobs[THREADS];
    pthread_t ids[THREADS];
    for (int i = 0; i < THREADS; i++) { /* pairs of threads share a key */
        w8a8_problem p;
        pgen_problem(&rng, i / 2, &p);
        gpu_case_make(&cases[i], &rng, &p);
        jobs[i].g = &cases[i];
    }
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&ids[i], NULL, dispatch_thread, &jobs[i]), 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(ids[i], NULL);
        ck_assert_msg(jobs[i].status == W8A8_OK, "thread %d: %s", i, w8a8_status_string(jobs[i].status));
    }
    for (int i = 0; i < THREADS; i++) {
        expect_reference(&cases[i], "threads");
        gpu_case_free(&cases[i]);
    }
}
END_TEST

START_TEST(test_host_overhead)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 16, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    double us = 0, min_us = 0;
    w8a8_status st = w8a8_bench_host_overhead(ctx, &p, 20000, &us, &min_us);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &p, &e), W8A8_OK);
    printf("host time per cached w8a8_scaled_mm call (16x4096x4096, %s %s): median %.2f us, "
           "fastest chunk %.2f us (target <= 1.5 us)\n", e.family, e.match, us, min_us);
    fflush(stdout);
    ck_assert(us > 0);
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("check_gpu_dispatch");
    Suite *s = suite_create("gpu_dispatch");
    TCase *tc = tcase_create("dispatch");
    tcase_set_timeout(tc, 1200);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_random_problems);
    tcase_add_test(tc, test_each_link);
    tcase_add_test(tc, test_second_call_compiles_nothing);
    tcase_add_test(tc, test_graph_capture);
    tcase_add_test(tc, test_swap_row_in_a_graph);
    tcase_add_test(tc, test_back_to_back_calls_keep_order);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_host_overhead);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
