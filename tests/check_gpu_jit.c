/* The JIT on a GPU: a compiled probe kernel loads, launches and computes the right values;
 * the module table memoizes it; a missing driver gives W8A8_NO_DEVICE. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jit.h"
#include "jit_probe_source.h"
#include "testutil.h"

/* A folder holding jit_probe.cuh, written from the copy compiled into this test, so the suite
 * runs wherever the build folder was copied (no source tree needed). */
static const char *probe_dir(void)
{
    static char dir[512];
    if (dir[0])
        return dir;
    test_mkdtemp(dir, sizeof dir);
    char path[600];
    snprintf(path, sizeof path, "%s/jit_probe.cuh", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(jit_probe_source, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
    return dir;
}

static w8a8_context *probe_ctx(void)
{
    w8a8_context_options o = {0};
    o.template_dir = probe_dir();
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    ck_assert(w8a8_context_has_device(ctx));
    return ctx;
}

START_TEST(probe_kernel_runs)
{
    w8a8_context *ctx = probe_ctx();
    const jit_kernel *k = NULL, *again = NULL;
    ck_assert_msg(jit_kernel_get(ctx, "jit_probe", "VALUE=3", NULL, "jit_probe", &k) == W8A8_OK,
                  "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(jit_kernel_get(ctx, "jit_probe", "VALUE=3", NULL, "jit_probe", &again), W8A8_OK);
    ck_assert_ptr_eq(k, again);
    int n = 1000;
    float *out = test_gpu_alloc(ctx, n * sizeof(float));
    test_gpu_poison(ctx, out, n * sizeof(float), 0xFF);
    void *params[] = {&out, &n};
    jit_launch launch = {.grid = {(unsigned)(n + 127) / 128}, .block = {128}};
    ck_assert_msg(jit_kernel_launch(ctx, k, &launch, params) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    test_gpu_sync(ctx);
    float host[1000];
    test_gpu_download(ctx, host, out, sizeof host);
    for (int i = 0; i < n; i++)
        ck_assert_float_eq(host[i], 3.0f * (float)i);
    w8a8_context_stats stats;
    w8a8_context_stats_get(ctx, &stats);
    ck_assert_uint_eq(stats.launches, 1);
    ck_assert_uint_eq(stats.memory_hits, 1);
    test_gpu_free(ctx, out);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(device_info_filled)
{
    w8a8_context *ctx = probe_ctx();
    w8a8_device_info d;
    ck_assert_int_eq(w8a8_context_device_info(ctx, &d), W8A8_OK);
    ck_assert_int_eq(d.has_device, 1);
    ck_assert_int_gt(d.sm_count, 0);
    ck_assert_int_ge(d.cc_major, 8);
    ck_assert_int_gt(d.max_smem_optin, 48 * 1024);
    ck_assert_int_gt(d.driver_version, 0);
    printf("device: %s %s, %d SMs, L2 %llu, smem opt-in %d\n", d.name, d.arch, d.sm_count,
           (unsigned long long)d.l2_bytes, d.max_smem_optin);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(bad_ordinal_is_invalid)
{
    w8a8_context_options o = {.device_ordinal = 999};
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "device_ordinal"));
    w8a8_context_close(ctx);
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("check_gpu_jit");
    Suite *s = suite_create("gpu_jit");
    TCase *tc = tcase_create("gpu_jit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, probe_kernel_runs);
    tcase_add_test(tc, device_info_filled);
    tcase_add_test(tc, bad_ordinal_is_invalid);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
