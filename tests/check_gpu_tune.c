/* The tuner on a GPU: one small shape with a small budget into a fresh database; every
 * measurement row is verified; a rerun skips what was measured; the dispatcher then uses
 * the winner; a spent budget is reported as such with what was measured kept. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cache.h"
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

typedef struct seen {
    int measured, ok, defaults, others, phases[W8A8_TUNE_PHASE_COUNT];
    bool bad_row;
    char why[600];
} seen;

static void on_progress(const w8a8_tune_progress *p, void *user)
{
    seen *s = user;
    s->phases[p->phase]++;
    if (p->phase != W8A8_TUNE_PHASE_MEASURED)
        return;
    const w8a8_tune_measurement *m = p->measurement;
    s->measured++;
    s->defaults += m->is_default && m->pass == 1;
    s->others += !m->is_default;
    if (strcmp(m->status, "ok") == 0) {
        s->ok++;
        if (!(m->verify_error >= 0 && m->verify_error < 0.05 && m->median_us > 0 && m->samples > 0)) {
            s->bad_row = true;
            snprintf(s->why, sizeof s->why, "%s %s: verify_error %g median %g samples %d",
                     m->family, m->config, m->verify_error, m->median_us, m->samples);
        }
    }
}

typedef struct rows {
    int total, ok, unverified_ok;
} rows;

static int count_row(void *user, const w8a8_cache_entry *e)
{
    rows *r = user;
    r->total++;
    if (strcmp(e->status, "ok") == 0) {
        r->ok++;
        r->unverified_ok += !(e->verified == 1 && e->verify_error >= 0);
    }
    return 0;
}

static rows count_rows(void)
{
    rows r = {0};
    w8a8_cache_filter f = {.flags = W8A8_CACHE_USER_ONLY};
    ck_assert_int_eq(w8a8_cache_list(ctx, &f, count_row, &r), W8A8_OK);
    return r;
}

static w8a8_problem small_problem(void)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 100, 512, 1024, W8A8_E4M3, W8A8_BF16); /* bucket 128 */
    p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_ROW;
    return p;
}

START_TEST(test_tune_verify_rerun)
{
    w8a8_problem p = small_problem();
    w8a8_tune_options o = {.problems = &p, .problem_count = 1, .budget_seconds = 120,
                           .max_candidates = 6, .quick_samples = 3, .final_samples = 5,
                           .finalists = 2};
    seen first = {0};
    w8a8_tune_report r;
    w8a8_status st = w8a8_tune(ctx, &o, on_progress, &first, &r);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_uint_eq(r.count, 1);
    const w8a8_tune_result *res = &r.results[0];
    printf("tuned 128x512x1024: %s %s %.2f us (default %s %.2f us); %zu candidates, %zu timed, "
           "%zu rejected, %zu failed verification, %.1f s\n", res->family, res->config,
           res->best_us, res->default_config, res->default_us, res->candidates, res->timed,
           res->rejected, res->verify_failed, res->seconds);
    ck_assert_int_eq(res->problem.m, 128);
    ck_assert_int_eq(res->status, W8A8_OK);
    ck_assert(res->family[0] && res->best_us > 0);
    ck_assert(res->default_us > 0);
    ck_assert_uint_eq(res->verify_failed, 0);
    ck_assert_msg(!first.bad_row, "%s", first.why);
    ck_assert_int_ge(first.ok, 1);
    ck_assert_int_eq(first.phases[W8A8_TUNE_PHASE_DONE], 1);
    char winner[64];
    snprintf(winner, sizeof winner, "%s", res->family);
    rows after_first = count_rows();
    ck_assert_int_eq(after_first.unverified_ok, 0);
    ck_assert_int_ge(after_first.ok, first.ok);
    w8a8_tune_report_free(&r);

    /* a rerun measures nothing new (the defaults are timed again for "vs default", not
     * stored) */
    seen second = {0};
    ck_assert_int_eq(w8a8_tune(ctx, &o, on_progress, &second, &r), W8A8_OK);
    ck_assert_int_ge(second.defaults, 1); /* one default per space that applies */
    ck_assert_uint_eq(r.results[0].skipped + (size_t)second.defaults, r.results[0].candidates);
    ck_assert_int_eq(second.others, 0);
    rows after_second = count_rows();
    ck_assert_int_eq(after_second.total, after_first.total);
    ck_assert_str_eq(r.results[0].family, winner);
    w8a8_tune_report_free(&r);

    /* the dispatcher now takes the tuned winner */
    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &p, &e), W8A8_OK);
    ck_assert_str_eq(e.match, "exact");
    ck_assert_int_eq(w8a8_dispatch_warm(ctx, &p), W8A8_OK);

    /* force measures again */
    o.force = 1;
    ck_assert_int_eq(w8a8_tune(ctx, &o, NULL, NULL, &r), W8A8_OK);
    ck_assert_uint_eq(r.results[0].skipped, 0);
    ck_assert_int_gt(count_rows().total, after_second.total);
    w8a8_tune_report_free(&r);
}
END_TEST

typedef struct seed_seen {
    const char *near, *far;
    int near_ok, near_seed, far_seen, seeds, measured;
} seed_seen;

static void on_seed_progress(const w8a8_tune_progress *p, void *user)
{
    seed_seen *s = user;
    if (p->phase != W8A8_TUNE_PHASE_MEASURED || p->measurement->pass != 1)
        return;
    const w8a8_tune_measurement *m = p->measurement;
    s->measured++;
    s->seeds += m->cache_seed != 0;
    if (strcmp(m->config, s->near) == 0) {
        s->near_ok += strcmp(m->status, "ok") == 0;
        s->near_seed += m->cache_seed != 0;
    }
    s->far_seen += strcmp(m->config, s->far) == 0;
}

/* A plain tune first times the cache's winners of the key's class at M buckets within 4× of
 * it (here a shipped layer's row at 512 for a key at bucket 128, on this very device), even
 * with one ranked candidate a space; a row 8× away is not a seed. A named space tunes what it
 * lists only, unless options.seed_space asks for the seeds too. */
START_TEST(test_cache_seeds)
{
    w8a8_device_info info;
    ck_assert_int_eq(w8a8_context_device_info(ctx, &info), W8A8_OK);
    bool hopper = info.cc_major == 9;
    const char *family = hopper ? "sm90_gemm" : "sm80_gemm";
    const char *near = hopper ? "block_m=64,block_n=32,stages=3,consumers=1,pingpong=0,raster=1,"
                                "group=2,cluster=1,epilogue=0,split=1,specialize=0"
                              : "block_m=32,block_n=32,block_k=64,stages=3,warps_m=1,warps_n=4,"
                                "slice_k=1,group=2,prefetch=0,epilogue=0";
    const char *far = hopper ? "block_m=64,block_n=48,stages=3,consumers=1,pingpong=0,raster=1,"
                               "group=2,cluster=1,epilogue=0,split=1,specialize=0"
                             : "block_m=32,block_n=64,block_k=64,stages=3,warps_m=1,warps_n=4,"
                               "slice_k=1,group=2,prefetch=0,epilogue=0";
    char shipped[700];
    snprintf(shipped, sizeof shipped, "%s/shipped.db", tmpdir);
    w8a8_context *writer = test_ctx_open_with(NULL, shipped, 0);
    cache_device dev;
    ck_assert_int_eq(cache_device_from_ctx(writer, &dev), W8A8_OK);
    w8a8_problem p = small_problem(); /* bucket 128 */
    const struct {
        int64_t m;
        const char *config;
    } seeded[] = {{512, near}, {1024, far}};
    for (size_t i = 0; i < 2; i++) {
        w8a8_problem q = p;
        q.m = seeded[i].m;
        cache_key key;
        cache_key_make(&key, &q, &dev);
        cache_measurement m;
        memset(&m, 0, sizeof m);
        snprintf(m.family, sizeof m.family, "%s", family);
        snprintf(m.config, sizeof m.config, "%s", seeded[i].config);
        snprintf(m.status, sizeof m.status, "ok");
        m.median_us = 1.0;
        m.samples = 5;
        m.verified = 1;
        ck_assert_msg(cache_put_measurement(writer, &key, &m) == W8A8_OK, "%s",
                      w8a8_errmsg(writer));
    }
    w8a8_context_close(writer);

    char db[700];
    snprintf(db, sizeof db, "%s/seeded.db", tmpdir);
    w8a8_context_options co = {.cache_db = db, .cache_path = shipped};
    w8a8_context *tuner = NULL;
    ck_assert_int_eq(w8a8_context_open(&tuner, &co), W8A8_OK);
    w8a8_tune_options o = {.problems = &p, .problem_count = 1, .budget_seconds = 120,
                           .max_candidates = 1, .quick_samples = 3, .final_samples = 3,
                           .finalists = 1};
    seed_seen plain = {.near = near, .far = far};
    w8a8_tune_report r;
    ck_assert_msg(w8a8_tune(tuner, &o, on_seed_progress, &plain, &r) == W8A8_OK, "%s",
                  w8a8_errmsg(tuner));
    printf("cache seeds: %d of %d candidates measured; winner %s %s\n", plain.seeds,
           plain.measured, r.results[0].family, r.results[0].config);
    ck_assert_int_eq(plain.near_ok, 1);
    ck_assert_int_eq(plain.near_seed, 1);
    ck_assert_int_eq(plain.far_seen, 0);
    w8a8_tune_report_free(&r);

    /* a named space: no seeds */
    w8a8_context_close(tuner);
    snprintf(db, sizeof db, "%s/named.db", tmpdir);
    ck_assert_int_eq(w8a8_context_open(&tuner, &co), W8A8_OK);
    char space[64];
    snprintf(space, sizeof space, "%s", family);
    o.space = space;
    seed_seen named = {.near = near, .far = far};
    ck_assert_msg(w8a8_tune(tuner, &o, on_seed_progress, &named, &r) == W8A8_OK, "%s",
                  w8a8_errmsg(tuner));
    ck_assert_int_eq(named.seeds, 0);
    ck_assert_int_ge(named.measured, 1);
    w8a8_tune_report_free(&r);

    /* a named space asked to seed: the same seed as the plain tune, still not the far row */
    w8a8_context_close(tuner);
    snprintf(db, sizeof db, "%s/named-seeded.db", tmpdir);
    ck_assert_int_eq(w8a8_context_open(&tuner, &co), W8A8_OK);
    o.seed_space = 1;
    seed_seen named_seeded = {.near = near, .far = far};
    ck_assert_msg(w8a8_tune(tuner, &o, on_seed_progress, &named_seeded, &r) == W8A8_OK, "%s",
                  w8a8_errmsg(tuner));
    ck_assert_int_eq(named_seeded.near_ok, 1);
    ck_assert_int_eq(named_seeded.near_seed, 1);
    ck_assert_int_eq(named_seeded.far_seen, 0);
    w8a8_tune_report_free(&r);
    w8a8_context_close(tuner);
}
END_TEST

START_TEST(test_budget_spent)
{
    w8a8_problem ps[3] = {small_problem(), small_problem(), small_problem()};
    ps[1].n = 768;
    ps[2].n = 1024;
    w8a8_tune_options o = {.problems = ps, .problem_count = 3, .budget_seconds = 1e-6};
    w8a8_tune_report r;
    ck_assert_int_eq(w8a8_tune(ctx, &o, NULL, NULL, &r), W8A8_BUDGET_SPENT);
    ck_assert_uint_eq(r.count, 3);
    ck_assert(r.budget_spent);
    ck_assert_int_eq(r.results[2].status, W8A8_BUDGET_SPENT);
    w8a8_tune_report_free(&r);
}
END_TEST

START_TEST(test_bench_time)
{
    w8a8_problem p = small_problem();
    w8a8_bench_options o = {.samples = 5, .verify = 1};
    w8a8_bench_result r;
    w8a8_status st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &r);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert(r.verified && r.median_us > 0 && r.tflops > 0 && r.gbps > 0);
    ck_assert_int_ge(r.buffer_sets, 1);
    printf("bench 100x512x1024: %.2f us, %.1f TFLOP/s, %.1f GB/s, %d sets, batch %d, host %.2f us\n",
           r.median_us, r.tflops, r.gbps, r.buffer_sets, r.batch, r.host_us);
}
END_TEST

/* Timing replays of a CUDA graph: the dispatched call captures, and the numbers are sane. */
START_TEST(test_bench_time_graph)
{
    w8a8_problem p = small_problem();
    w8a8_bench_options o = {.samples = 5, .verify = 1, .graph = 1};
    w8a8_bench_result r;
    w8a8_status st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &r);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert(r.verified && r.median_us > 0 && r.tflops > 0 && r.gbps > 0);
    ck_assert_int_eq(r.samples, 5);
    ck_assert_int_ge(r.batch, 1);
    /* a fixed batch (the CLI's --graph takes peers.py's 20 calls a replay), replayed and not */
    w8a8_bench_result fixed;
    o.batch = 7;
    st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &fixed);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(fixed.batch, 7);
    ck_assert(fixed.median_us > 0);
    o.graph = 0;
    o.batch = 3;
    st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &fixed);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(fixed.batch, 3);
    /* sized by time: 1 us of GPU time is one launch, but a replayed graph holds at least
     * peers.py's 20 (the tuner's final pass: winners timed in the bursts they are compared in) */
    o.batch = 0;
    o.min_batch_us = 1.0;
    st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &fixed);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_lt(fixed.batch, 20);
    o.graph = 1;
    st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &fixed);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(fixed.batch, 20);
    printf("bench 100x512x1024 as a graph: %.2f us, batch %d, host %.3f us per launch\n",
           r.median_us, r.batch, r.host_us);
}
END_TEST

/* A launcher that synchronizes its stream runs outside capture but not inside it. */
static int launch_then_sync(void *user, const w8a8_problem *p, const w8a8_tensors *t,
                            void *workspace, void *stream)
{
    (void)workspace;
    w8a8_context *c = user;
    if (w8a8_scaled_mm(c, p, t, stream) != W8A8_OK)
        return 1;
    return c->cu->cuStreamSynchronize((CUstream)stream) == CUDA_SUCCESS ? 0 : 2;
}

START_TEST(test_bench_time_graph_refuses_uncapturable)
{
    w8a8_problem p = small_problem();
    w8a8_bench_options o = {.samples = 3, .graph = 1};
    w8a8_bench_result r;
    ck_assert_int_eq(w8a8_dispatch_warm(ctx, &p), W8A8_OK);
    w8a8_status st = w8a8_bench_time(ctx, &p, launch_then_sync, ctx, &o, &r);
    ck_assert_int_eq(st, W8A8_CUDA_ERROR);
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "launcher returned 2"), "%s", w8a8_errmsg(ctx));
    /* nothing is left capturing: the same launcher times without a graph, and a graph of the
     * dispatched call still works */
    o.graph = 0;
    st = w8a8_bench_time(ctx, &p, launch_then_sync, ctx, &o, &r);
    ck_assert_msg(st == W8A8_OK && r.median_us > 0, "%s", w8a8_errmsg(ctx));
    o.graph = 1;
    st = w8a8_bench_time(ctx, &p, NULL, NULL, &o, &r);
    ck_assert_msg(st == W8A8_OK && r.median_us > 0, "%s", w8a8_errmsg(ctx));
}
END_TEST

/* ---- verification --------------------------------------------------------------------------- */

typedef struct bad_launch {
    int64_t drop_rows; /* rows left unwritten at the end */
    int64_t drop_k;    /* K elements left out of every sum */
} bad_launch;

static w8a8_status launch_reference_changed(w8a8_context *c, void *user, const w8a8_problem *p,
                                            const w8a8_tensors *t, CUdeviceptr workspace,
                                            CUstream stream)
{
    (void)workspace;
    const bad_launch *bad = user;
    w8a8_problem q = *p;
    q.m -= bad->drop_rows;
    q.k -= bad->drop_k;
    return w8a8_scaled_mm_reference(c, &q, t, stream);
}

/* The GPU-side comparison passes a correct output and fails an output with an unwritten row
 * (caught over the whole output, sampled or not) or with wrong sums, at an M verified in full
 * and at one verified on sampled rows. */
START_TEST(test_verify_catches_wrong_outputs)
{
    const int64_t ms[] = {100, 1000};
    for (size_t i = 0; i < 2; i++) {
        w8a8_problem p;
        w8a8_problem_init(&p, ms[i], 264, 512, W8A8_E4M3, W8A8_BF16);
        p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_ROW;
        timing_buffers b;
        ck_assert_msg(timing_buffers_create(ctx, &p, 1.0, 0, &b) == W8A8_OK, "%s", w8a8_errmsg(ctx));
        const bad_launch cases[] = {{0, 0}, {1, 0}, {0, 16}};
        for (size_t c = 0; c < 3; c++) {
            double error = -1;
            bool passed = false;
            bad_launch bad = cases[c];
            ck_assert_msg(timing_verify(ctx, &b, launch_reference_changed, &bad, &error, &passed) ==
                              W8A8_OK, "%s", w8a8_errmsg(ctx));
            printf("verify M=%lld drop_rows %lld drop_k %lld: %s, error %g (%lld rows sampled)\n",
                   (long long)ms[i], (long long)bad.drop_rows, (long long)bad.drop_k,
                   passed ? "passed" : "failed", error, (long long)b.sample_rows);
            if (c == 0)
                ck_assert(passed && error >= 0 && error < 1e-6);
            else
                ck_assert(!passed && error > 1e-3);
            if (c == 1)
                ck_assert(isinf(error)); /* the unwritten row keeps its NaN poison */
        }
        ck_assert_int_eq(b.sample_rows, ms[i] <= 512 ? ms[i] : 5 * 128 - (1024 - ms[i]));
        timing_buffers_destroy(ctx, &b);
    }
}
END_TEST

/* ---- several devices ----------------------------------------------------------------------- */

static void count_done(const w8a8_tune_progress *p, void *user)
{
    *(int *)user += p->phase == W8A8_TUNE_PHASE_DONE;
}

/* more_contexts: wrong ones are refused; with a second GPU, keys are timed on both into one
 * database and every key ends with a winner. */
START_TEST(test_more_devices)
{
    w8a8_problem ps[4] = {small_problem(), small_problem(), small_problem(), small_problem()};
    ps[1].n = 768;
    ps[2].m = 16;
    ps[3].n = 1024;
    w8a8_tune_options o = {.problems = ps, .problem_count = 4, .budget_seconds = 60,
                           .max_candidates = 4, .quick_samples = 3, .final_samples = 5,
                           .finalists = 2};
    w8a8_context *self[1] = {ctx};
    o.more_contexts = self;
    o.more_context_count = 1;
    w8a8_tune_report r;
    ck_assert_int_eq(w8a8_tune(ctx, &o, NULL, NULL, &r), W8A8_INVALID);
    printf("ctx itself as another device: %s\n", w8a8_errmsg(ctx));
    w8a8_tune_report_free(&r);

    char db[1100];
    snprintf(db, sizeof db, "%s/tuning.db", tmpdir);
    w8a8_context_options co = {.cache_db = db, .device_ordinal = 1};
    w8a8_context *second = NULL;
    w8a8_status st = w8a8_context_open(&second, &co);
    if (st != W8A8_OK || !w8a8_context_has_device(second)) {
        printf("one GPU: the parallel part needs a second device (%s)\n",
               second ? w8a8_errmsg(second) : w8a8_status_string(st));
        w8a8_context_close(second);
        return;
    }
    w8a8_context *more[1] = {second};
    o.more_contexts = more;
    int done = 0;
    st = w8a8_tune(ctx, &o, count_done, &done, &r);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(done, 4);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(r.results[i].status, W8A8_OK);
        ck_assert(r.results[i].family[0] && r.results[i].best_us > 0);
    }
    ck_assert_uint_ge(r.profile.candidates_timed, 4);
    printf("two devices: %zu candidates timed in %.1f s\n", r.profile.candidates_timed, r.seconds);
    ck_assert_int_eq(count_rows().unverified_ok, 0);
    w8a8_tune_report_free(&r);
    w8a8_context_close(second);
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("check_gpu_tune");
    Suite *s = suite_create("gpu_tune");
    TCase *tc = tcase_create("tune");
    tcase_set_timeout(tc, 1200);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_tune_verify_rerun);
    tcase_add_test(tc, test_budget_spent);
    tcase_add_test(tc, test_cache_seeds);
    tcase_add_test(tc, test_bench_time);
    tcase_add_test(tc, test_bench_time_graph);
    tcase_add_test(tc, test_bench_time_graph_refuses_uncapturable);
    tcase_add_test(tc, test_verify_catches_wrong_outputs);
    tcase_add_test(tc, test_more_devices);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
