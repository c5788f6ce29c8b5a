/* The tuner on a GPU: one small shape with a small budget into a fresh database; every
 * measurement row is verified; a rerun skips what was measured; the dispatcher then uses
 * the winner; a spent budget is reported as such with what was measured kept. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static w8a8_context *ctx;
static char tmpdir[512];

static void setup(void) { ctx = test_ctx_open_empty_cache(tmpdir, sizeof tmpdir); }

static void teardown(void)
{
    w8a8_context_close(ctx);
    ctx = NULL;
}

typedef struct seen {
    int measured, ok, defaults, others, phases[W8A8_TUNE_PHASE_DONE + 1];
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

int main(void)
{
    test_require_gpu_or_skip("check_gpu_tune");
    Suite *s = suite_create("gpu_tune");
    TCase *tc = tcase_create("tune");
    tcase_set_timeout(tc, 1200);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_tune_verify_rerun);
    tcase_add_test(tc, test_budget_spent);
    tcase_add_test(tc, test_bench_time);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
