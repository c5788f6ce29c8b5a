/* The dispatcher without a GPU: the fallback chain on synthetic tuning databases (exact hit,
 * nearest bucket, foreign device, space default, reference, broken links, runner-ups) and
 * what explain says about it; the M buckets; W8A8_TUNE parsing; the public calls on a
 * CPU-only context. */
#include <stdio.h>
#include <string.h>

#include "cache.h"
#include "dispatch.h"
#include "testutil.h"

/* ---- fixtures: a temporary database, two devices, a fake family with a Lua space ----------- */

static char tmpdir[512];
static char space_path[600];
static w8a8_context *ctx;

static const cache_device h100 = {"sm_90", "NVIDIA H100 80GB HBM3", 132, 85899345920ull};
static const cache_device h200 = {"sm_90", "NVIDIA H200", 132, 150754820096ull};
static const cache_device a100 = {"sm_80", "NVIDIA A100-SXM4-80GB", 108, 85899345920ull};

static bool fake_supports(const w8a8_context *c, const w8a8_problem *p)
{
    (void)c;
    return p->a_type != W8A8_INT8; /* so int8 problems skip it */
}

static w8a8_status fake_plan(w8a8_context *c, const w8a8_problem *p, const char *config,
                             gemm_plan *plan)
{
    (void)c, (void)p, (void)config, (void)plan;
    return W8A8_OK;
}

static w8a8_status fake_run(w8a8_context *c, const gemm_plan *plan, const w8a8_problem *p,
                            const w8a8_tensors *t, CUstream s)
{
    (void)c, (void)plan, (void)p, (void)t, (void)s;
    return W8A8_OK;
}

static const gemm_family fake_family = {
    .name = "fake_gemm", .space = space_path, .supports = fake_supports, .plan = fake_plan,
    .run = fake_run};
static const gemm_family *const with_fake[] = {&fake_family, &gemm_family_reference, NULL};
static const gemm_family *const reference_only[] = {&gemm_family_reference, NULL};

/* The default picks tile 64 for small M, 128 otherwise; the space never applies to N = 8. */
static const char fake_space[] =
    "return {\n"
    "  name = 'fake_gemm', template = 'fake_gemm', arch = 'sm_90a',\n"
    "  params = { tile = {64, 128}, stages = {2, 4} },\n"
    "  applies = function(problem, device) return problem.n ~= 8 end,\n"
    "  default = function(problem, device)\n"
    "    if problem.m <= 64 then return { tile = 64, stages = 2 } end\n"
    "    return { tile = 128, stages = 4 }\n"
    "  end,\n"
    "}\n";

static space_device space_dev;

static void setup(void)
{
    test_mkdtemp(tmpdir, sizeof tmpdir);
    snprintf(space_path, sizeof space_path, "%s/fake_gemm.lua", tmpdir);
    FILE *f = fopen(space_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(fake_space, f);
    fclose(f);
    char db[600];
    snprintf(db, sizeof db, "%s/tuning.db", tmpdir);
    w8a8_context_options o = {.cache_db = db, .kernel_dir = tmpdir, .cache_path = "",
                              .flags = W8A8_CONTEXT_CPU_ONLY};
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    memset(&space_dev, 0, sizeof space_dev);
    snprintf(space_dev.arch, sizeof space_dev.arch, "sm_90");
    snprintf(space_dev.name, sizeof space_dev.name, "%s", h100.name);
    space_dev.cc_major = 9;
    space_dev.sm_count = 132;
    space_dev.max_smem_optin = 232448;
    space_dev.l2_bytes = 50u << 20;
}

static void teardown(void)
{
    w8a8_context_close(ctx);
    ctx = NULL;
}

static w8a8_problem problem_of(int64_t m, int64_t n, int64_t k)
{
    w8a8_problem p;
    w8a8_problem_init(&p, m, n, k, W8A8_E4M3, W8A8_BF16);
    return p;
}

/* A verified "ok" row for the problem's key (at its bucket) on dev. */
static void put_row(const cache_device *dev, const w8a8_problem *p, const char *family,
                    const char *config, double us)
{
    cache_key key;
    cache_measurement m;
    memset(&m, 0, sizeof m);
    cache_key_make(&key, p, dev);
    snprintf(m.family, sizeof m.family, "%s", family);
    snprintf(m.config, sizeof m.config, "%s", config);
    snprintf(m.status, sizeof m.status, "ok");
    snprintf(m.lib_version, sizeof m.lib_version, "0.1.0");
    m.median_us = us;
    m.spread_us = 0.1;
    m.samples = 10;
    m.verify_error = 1e-3;
    m.verified = 1;
    m.timestamp = 1700000000;
    ck_assert_msg(cache_put_measurement(ctx, &key, &m) == W8A8_OK, "%s", w8a8_errmsg(ctx));
}

static void explain_on(const gemm_family *const *families, const cache_device *dev,
                       const w8a8_problem *p, dispatch_chain *chain, w8a8_explain *e)
{
    ck_assert_int_eq(dispatch_chain_build(ctx, families, p, dev, &space_dev, chain), W8A8_OK);
    ck_assert_int_ge(chain->count, 1);
    ck_assert_ptr_eq(chain->choices[chain->count - 1].family, &gemm_family_reference);
    dispatch_chain_explain(chain, p, e);
}

/* ---- the chain ---------------------------------------------------------------------------- */

START_TEST(test_exact_hit)
{
    w8a8_problem p = problem_of(100, 2304, 1792); /* bucket 128 */
    put_row(&h100, &p, "fake_gemm", "stages=4,tile=128", 12.5);
    dispatch_chain chain;
    w8a8_explain e;
    explain_on(with_fake, &h100, &p, &chain, &e);
    ck_assert_int_eq(chain.choices[0].reason, DISPATCH_TUNED);
    ck_assert_int_eq(chain.choices[0].winner.match, CACHE_EXACT);
    ck_assert_str_eq(e.match, "exact");
    ck_assert_str_eq(e.family, "fake_gemm");
    ck_assert_str_eq(e.config, "stages=4,tile=128");
    ck_assert_int_eq(e.foreign, 0);
    ck_assert_int_eq(e.m_bucket, 128);
    ck_assert_int_eq(e.measured_bucket, 128);
    ck_assert(e.median_us > 12.4 && e.median_us < 12.6);
    /* the chain goes on: the space default, then the reference */
    ck_assert_int_eq(chain.count, 3);
    ck_assert_int_eq(chain.choices[1].reason, DISPATCH_SPACE_DEFAULT);
    ck_assert_str_eq(chain.choices[1].config, "stages=4,tile=128");
}
END_TEST

START_TEST(test_nearest_bucket)
{
    w8a8_problem measured = problem_of(64, 2304, 1792);
    put_row(&h100, &measured, "fake_gemm", "stages=2,tile=64", 7.0);
    w8a8_problem p = problem_of(100, 2304, 1792); /* bucket 128: no row */
    dispatch_chain chain;
    w8a8_explain e;
    explain_on(with_fake, &h100, &p, &chain, &e);
    ck_assert_int_eq(chain.choices[0].winner.match, CACHE_NEAR_BUCKET);
    ck_assert_str_eq(e.match, "bucket");
    ck_assert_str_eq(e.config, "stages=2,tile=64");
    ck_assert_int_eq(e.m_bucket, 128);
    ck_assert_int_eq(e.measured_bucket, 64);
}
END_TEST

START_TEST(test_foreign_device)
{
    w8a8_problem p = problem_of(512, 2304, 1792);
    put_row(&h200, &p, "fake_gemm", "stages=4,tile=128", 30.0);
    put_row(&a100, &p, "fake_gemm", "stages=2,tile=64", 10.0); /* other arch: never used */
    dispatch_chain chain;
    w8a8_explain e;
    explain_on(with_fake, &h100, &p, &chain, &e);
    ck_assert_int_eq(chain.choices[0].winner.match, CACHE_ARCH);
    ck_assert_str_eq(e.match, "arch");
    ck_assert_int_eq(e.foreign, 1);
    ck_assert_str_eq(e.device_name, h200.name);
    ck_assert_str_eq(e.config, "stages=4,tile=128");
    ck_assert_ptr_nonnull(strstr(e.reason, "foreign"));
}
END_TEST

START_TEST(test_space_default)
{
    w8a8_problem small = problem_of(7, 2304, 1792), large = problem_of(3000, 2304, 1792);
    dispatch_chain chain;
    w8a8_explain e;
    explain_on(with_fake, &h100, &small, &chain, &e);
    ck_assert_str_eq(e.match, "space default");
    ck_assert_str_eq(e.family, "fake_gemm");
    ck_assert_str_eq(e.config, "stages=2,tile=64");
    ck_assert_int_eq(chain.count, 2);
    explain_on(with_fake, &h100, &large, &chain, &e);
    ck_assert_str_eq(e.config, "stages=4,tile=128");
    ck_assert_ptr_nonnull(strstr(e.reason, "fake_gemm"));
}
END_TEST

START_TEST(test_reference)
{
    dispatch_chain chain;
    w8a8_explain e;
    w8a8_problem p = problem_of(16, 2304, 1792);
    explain_on(reference_only, &h100, &p, &chain, &e); /* no family with a space */
    ck_assert_str_eq(e.match, "reference");
    ck_assert_str_eq(e.family, "reference_gemm");
    ck_assert_int_eq(chain.count, 1);
    w8a8_problem n8 = problem_of(16, 8, 1792); /* the space does not apply */
    explain_on(with_fake, &h100, &n8, &chain, &e);
    ck_assert_str_eq(e.match, "reference");
    w8a8_problem int8 = p; /* the family does not support it */
    int8.a_type = int8.b_type = W8A8_INT8;
    explain_on(with_fake, &h100, &int8, &chain, &e);
    ck_assert_str_eq(e.match, "reference");
    explain_on(with_fake, NULL, &p, &chain, &e); /* no device identity: no cache link */
    ck_assert_str_eq(e.match, "space default");
}
END_TEST

START_TEST(test_broken_links)
{
    /* a winner naming a family this build lacks is skipped, and the notes say so */
    w8a8_problem p = problem_of(256, 2304, 1792);
    put_row(&h100, &p, "gone_gemm", "x=1", 1.0);
    dispatch_chain chain;
    w8a8_explain e;
    explain_on(with_fake, &h100, &p, &chain, &e);
    ck_assert_str_eq(e.match, "space default");
    ck_assert_ptr_nonnull(strstr(chain.notes, "gone_gemm"));
    ck_assert_ptr_nonnull(strstr(e.reason, "gone_gemm"));
    /* a space that fails to load becomes a note too */
    snprintf(space_path, sizeof space_path, "%s/missing.lua", tmpdir);
    w8a8_problem other = problem_of(256, 4608, 1792);
    explain_on(with_fake, &h100, &other, &chain, &e);
    ck_assert_str_eq(e.match, "reference");
    ck_assert_ptr_nonnull(strstr(chain.notes, "missing.lua"));
}
END_TEST

/* The winner names a family this build lacks: the next-fastest configs of the same row come
 * before the space default (each at its best median, a config that hung there never), and
 * explain says it is a runner-up. */
START_TEST(test_runner_ups)
{
    w8a8_problem p = problem_of(256, 6912, 1792);
    put_row(&h100, &p, "gone_gemm", "x=1", 1.0);
    put_row(&h100, &p, "fake_gemm", "stages=2,tile=128", 1.5); /* hung below: never picked */
    put_row(&h100, &p, "fake_gemm", "stages=4,tile=128", 5.0);
    put_row(&h100, &p, "fake_gemm", "stages=2,tile=64", 2.0);
    put_row(&h100, &p, "fake_gemm", "stages=4,tile=128", 3.0); /* its best run */
    put_row(&h100, &p, "fake_gemm", "stages=4,tile=64", 4.0);  /* the last that fits */
    cache_key key;
    cache_measurement hung;
    memset(&hung, 0, sizeof hung);
    cache_key_make(&key, &p, &h100);
    snprintf(hung.family, sizeof hung.family, "fake_gemm");
    snprintf(hung.config, sizeof hung.config, "stages=2,tile=128");
    snprintf(hung.status, sizeof hung.status, "hung");
    snprintf(hung.lib_version, sizeof hung.lib_version, "0.1.0");
    hung.median_us = hung.spread_us = -1.0;
    hung.timestamp = 1700000001;
    ck_assert_int_eq(cache_put_measurement(ctx, &key, &hung), W8A8_OK);

    enum { RANKED = 4 };
    cache_winner ranked[RANKED];
    size_t count = 0;
    ck_assert_int_eq(cache_lookup_ranked(ctx, &key, ranked, RANKED, &count), W8A8_OK);
    ck_assert_uint_eq(count, 4);
    ck_assert_str_eq(ranked[0].family, "gone_gemm");
    ck_assert_int_eq(ranked[0].rank, 0);
    ck_assert_str_eq(ranked[1].config, "stages=2,tile=64");
    ck_assert_str_eq(ranked[2].config, "stages=4,tile=128");
    ck_assert(ranked[2].median_us > 2.9 && ranked[2].median_us < 3.1);
    ck_assert_str_eq(ranked[3].config, "stages=4,tile=64");
    for (size_t i = 1; i < count; i++) {
        ck_assert_int_eq(ranked[i].rank, (int)i);
        ck_assert_int_eq(ranked[i].match, CACHE_EXACT);
        ck_assert_int_eq(ranked[i].m_bucket, 256);
    }
    ck_assert_int_eq(cache_lookup_ranked(ctx, &key, ranked, 0, &count), W8A8_INVALID);

    dispatch_chain chain;
    w8a8_explain e;
    explain_on(with_fake, &h100, &p, &chain, &e);
    ck_assert_int_eq(chain.count, 4); /* two runner-ups, the space default, the reference */
    ck_assert_str_eq(chain.choices[0].config, "stages=2,tile=64");
    ck_assert_str_eq(chain.choices[1].config, "stages=4,tile=128");
    ck_assert_int_eq(chain.choices[2].reason, DISPATCH_SPACE_DEFAULT);
    ck_assert_str_eq(e.match, "exact");
    ck_assert_str_eq(e.config, "stages=2,tile=64");
    ck_assert(e.median_us > 1.9 && e.median_us < 2.1);
    ck_assert_ptr_nonnull(strstr(e.reason, "runner-up 1"));
    ck_assert_ptr_nonnull(strstr(e.reason, "gone_gemm"));

    /* a key with one config measured has no runner-ups; a miss has nothing */
    w8a8_problem q = problem_of(256, 9216, 1792);
    put_row(&h100, &q, "fake_gemm", "stages=2,tile=64", 2.0);
    cache_key_make(&key, &q, &h100);
    ck_assert_int_eq(cache_lookup_ranked(ctx, &key, ranked, RANKED, &count), W8A8_OK);
    ck_assert_uint_eq(count, 1);
    w8a8_problem miss = problem_of(256, 11264, 1792);
    cache_key_make(&key, &miss, &h100);
    ck_assert_int_eq(cache_lookup_ranked(ctx, &key, ranked, RANKED, &count), W8A8_OK);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(ranked[0].match, CACHE_MISS);
}
END_TEST

START_TEST(test_winner_same_key_other_m)
{
    /* every M of a bucket gets the same pick */
    w8a8_problem p = problem_of(1000, 2304, 1792);
    put_row(&h100, &p, "fake_gemm", "stages=2,tile=128", 50.0);
    for (int64_t m = 769; m <= 1024; m += 85) {
        dispatch_chain chain;
        w8a8_explain e;
        w8a8_problem q = problem_of(m, 2304, 1792);
        explain_on(with_fake, &h100, &q, &chain, &e);
        ck_assert_str_eq(e.match, "exact");
        ck_assert_str_eq(e.config, "stages=2,tile=128");
    }
}
END_TEST

/* ---- buckets, W8A8_TUNE, public calls ------------------------------------------------------- */

START_TEST(test_m_buckets)
{
    static const int64_t cases[][2] = {
        {1, 1},       {2, 2},       {3, 4},       {5, 8},        {9, 16},       {17, 24},
        {25, 32},     {33, 48},     {49, 64},     {65, 96},      {97, 128},     {129, 192},
        {193, 256},   {257, 384},   {385, 512},   {513, 768},    {769, 1024},   {1025, 1536},
        {1537, 2048}, {2049, 3072}, {3073, 4096}, {4097, 6144},  {6145, 8192},  {8193, 12288},
        {12289, 16384}, {16384, 16384}, {16385, 16384}, {1000000, 16384}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(cache_m_bucket(cases[i][0]) == cases[i][1], "bucket(%lld) = %lld, want %lld",
                      (long long)cases[i][0], (long long)cache_m_bucket(cases[i][0]),
                      (long long)cases[i][1]);
}
END_TEST

START_TEST(test_tune_mode_parse)
{
    static const struct {
        const char *text;
        w8a8_tune_mode mode;
    } good[] = {{"off", W8A8_TUNE_OFF},       {"OFF", W8A8_TUNE_OFF},   {"", W8A8_TUNE_OFF},
                {"0", W8A8_TUNE_OFF},         {"record", W8A8_TUNE_RECORD},
                {"Record", W8A8_TUNE_RECORD}, {"1", W8A8_TUNE_RECORD},
                {"online", W8A8_TUNE_ONLINE}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        w8a8_tune_mode mode = (w8a8_tune_mode)-1;
        ck_assert_int_eq(w8a8_tune_mode_parse(good[i].text, &mode), W8A8_OK);
        ck_assert_int_eq(mode, good[i].mode);
    }
    w8a8_tune_mode mode = W8A8_TUNE_ONLINE;
    ck_assert_int_eq(w8a8_tune_mode_parse("onlin", &mode), W8A8_INVALID);
    ck_assert_int_eq(w8a8_tune_mode_parse("2", &mode), W8A8_INVALID);
    ck_assert_int_eq(w8a8_tune_mode_parse(NULL, &mode), W8A8_INVALID);
    ck_assert_int_eq(dispatch_tune_mode_from_env(NULL, &mode), W8A8_OK);
    ck_assert_int_eq(mode, W8A8_TUNE_OFF);
    ck_assert_int_eq(dispatch_tune_mode_from_env("online", &mode), W8A8_OK);
    ck_assert_int_eq(mode, W8A8_TUNE_ONLINE);
    ck_assert_str_eq(w8a8_tune_mode_name(W8A8_TUNE_RECORD), "record");
    ck_assert_ptr_null(w8a8_tune_mode_name((w8a8_tune_mode)7));
    ck_assert_int_eq(w8a8_dispatch_set_tune_mode(ctx, W8A8_TUNE_RECORD), W8A8_OK);
    ck_assert_int_eq(w8a8_dispatch_set_tune_mode(ctx, (w8a8_tune_mode)9), W8A8_INVALID);
    ck_assert_int_eq(w8a8_dispatch_set_tune_mode(NULL, W8A8_TUNE_OFF), W8A8_INVALID);
}
END_TEST

START_TEST(test_public_without_device)
{
    w8a8_problem p = problem_of(33, 2304, 1792);
    w8a8_explain e;
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &p, &e), W8A8_OK);
    ck_assert_str_eq(e.match, "reference"); /* no device: no cache rows, no space device */
    ck_assert_int_eq(e.m_bucket, 48);
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, NULL, &e), W8A8_INVALID);
    w8a8_problem bad = problem_of(33, 2304, 1790); /* K not a multiple of 16 */
    ck_assert_int_eq(w8a8_dispatch_explain(ctx, &bad, &e), W8A8_INVALID);
    /* validation runs before the device is needed, and nothing is launched */
    static char a[64] __attribute__((aligned(256)));
    float scale[1] = {1.0f};
    w8a8_tensors t = {.a = a, .b = a, .out = a, .a_scale = scale, .b_scale = scale};
    ck_assert_int_eq(w8a8_scaled_mm(ctx, &bad, &t, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_scaled_mm(ctx, &p, &t, NULL), W8A8_NO_DEVICE);
    ck_assert_int_eq(w8a8_scaled_mm(ctx, &p, NULL, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_scaled_mm(NULL, &p, &t, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_dispatch_warm(ctx, &p), W8A8_NO_DEVICE);
    w8a8_tune_options o = {.problems = &p, .problem_count = 1};
    w8a8_tune_report r;
    ck_assert_int_eq(w8a8_tune(ctx, &o, NULL, NULL, &r), W8A8_NO_DEVICE);
    ck_assert_uint_eq(r.count, 1);
    ck_assert_int_eq(r.results[0].status, W8A8_NO_DEVICE);
    ck_assert_int_eq(r.results[0].problem.m, 48);
    w8a8_tune_report_free(&r);
    ck_assert_ptr_null(r.results);
    o.problem_count = 0;
    ck_assert_int_eq(w8a8_tune(ctx, &o, NULL, NULL, &r), W8A8_INVALID);
    double us = 0;
    ck_assert_int_eq(w8a8_bench_host_overhead(ctx, &p, 10, &us, NULL), W8A8_NO_DEVICE);
}
END_TEST

static Suite *dispatch_suite(void)
{
    Suite *s = suite_create("dispatch");
    TCase *chain = tcase_create("chain");
    tcase_add_checked_fixture(chain, setup, teardown);
    tcase_add_test(chain, test_exact_hit);
    tcase_add_test(chain, test_nearest_bucket);
    tcase_add_test(chain, test_foreign_device);
    tcase_add_test(chain, test_space_default);
    tcase_add_test(chain, test_reference);
    tcase_add_test(chain, test_broken_links);
    tcase_add_test(chain, test_runner_ups);
    tcase_add_test(chain, test_winner_same_key_other_m);
    suite_add_tcase(s, chain);
    TCase *api = tcase_create("api");
    tcase_add_checked_fixture(api, setup, teardown);
    tcase_add_test(api, test_m_buckets);
    tcase_add_test(api, test_tune_mode_parse);
    tcase_add_test(api, test_public_without_device);
    suite_add_tcase(s, api);
    return s;
}

int main(void) { return test_run_suite(dispatch_suite()); }
