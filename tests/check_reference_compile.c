/* The reference template compiles with NVRTC (no GPU needed) for every arch the library
 * targets, over a set of trait defines that covers every value of every trait on each arch,
 * without spills or rejection; and its static_asserts turn a bad combination into a compile
 * error that says why. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static const char *const archs[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};

/* Every dtype pair, scale kind on each side, out dtype, bias kind and zero point appears at
 * least once. Values as in templates/common/gemm_args.h. */
static const char *const covering_defines[] = {
    "A_TYPE=1,B_TYPE=1,OUT_TYPE=4,BIAS_TYPE=0,A_SCALE=0,B_SCALE=0,AZP=0", /* e4m3×e4m3 */
    "A_TYPE=1,B_TYPE=2,OUT_TYPE=5,BIAS_TYPE=6,A_SCALE=1,B_SCALE=2,AZP=0", /* e4m3×e5m2 */
    "A_TYPE=2,B_TYPE=1,OUT_TYPE=6,BIAS_TYPE=6,A_SCALE=2,B_SCALE=1,AZP=0", /* e5m2×e4m3 */
    "A_TYPE=2,B_TYPE=2,OUT_TYPE=4,BIAS_TYPE=4,A_SCALE=2,B_SCALE=2,AZP=0", /* e5m2×e5m2 */
    "A_TYPE=3,B_TYPE=3,OUT_TYPE=5,BIAS_TYPE=5,A_SCALE=1,B_SCALE=1,AZP=2", /* int8 token azp */
    "A_TYPE=3,B_TYPE=3,OUT_TYPE=6,BIAS_TYPE=0,A_SCALE=0,B_SCALE=1,AZP=1", /* int8 tensor azp */
    "A_TYPE=3,B_TYPE=3,OUT_TYPE=4,BIAS_TYPE=6,A_SCALE=2,B_SCALE=0,AZP=0", /* int8 blocks */
};

START_TEST(covering_set_compiles_on_every_arch)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        for (size_t d = 0; d < sizeof covering_defines / sizeof covering_defines[0]; d++) {
            w8a8_kernel_info info;
            char *log = NULL;
            w8a8_status st = w8a8_kernel_compile(ctx, "reference_gemm", covering_defines[d],
                                                 archs[a], &info, &log);
            ck_assert_msg(st == W8A8_OK, "%s %s: %s: %s\n%s", archs[a], covering_defines[d],
                          w8a8_status_string(st), w8a8_errmsg(ctx), log ? log : "");
            ck_assert_msg(!info.rejected && info.spill_stores == 0 && info.spill_loads == 0,
                          "%s %s: rejected (%s), spills %d/%d", archs[a], covering_defines[d],
                          info.reject_reason, info.spill_stores, info.spill_loads);
            ck_assert_int_gt(info.registers, 0);
            w8a8_free(log);
        }
    }
    w8a8_context_close(ctx);
}
END_TEST

static void expect_compile_error(w8a8_context *ctx, const char *defines, const char *needle)
{
    char *log = NULL;
    w8a8_status st = w8a8_kernel_compile(ctx, "reference_gemm", defines, "sm_80", NULL, &log);
    ck_assert_msg(st == W8A8_COMPILE_ERROR, "%s: %s", defines, w8a8_status_string(st));
    const char *text = log ? log : w8a8_errmsg(ctx);
    ck_assert_msg(strstr(text, needle) || strstr(w8a8_errmsg(ctx), needle),
                  "%s: the log does not say '%s':\n%s", defines, needle, text);
    w8a8_free(log);
}

START_TEST(bad_combinations_fail_with_reasons)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    expect_compile_error(ctx, "A_TYPE=3,B_TYPE=1,OUT_TYPE=4,BIAS_TYPE=0,A_SCALE=0,B_SCALE=0,AZP=0",
                         "W8A8_B_TYPE must be FP8 with FP8 A, int8 with int8 A");
    expect_compile_error(ctx, "A_TYPE=1,B_TYPE=1,OUT_TYPE=4,BIAS_TYPE=0,A_SCALE=0,B_SCALE=0,AZP=1",
                         "a zero point needs int8 A");
    expect_compile_error(ctx, "A_TYPE=3,B_TYPE=3,OUT_TYPE=4,BIAS_TYPE=0,A_SCALE=2,B_SCALE=0,AZP=2",
                         "a zero point needs int8 A and per-tensor/row scales");
    expect_compile_error(ctx, "A_TYPE=1,B_TYPE=1,OUT_TYPE=1,BIAS_TYPE=0,A_SCALE=0,B_SCALE=0,AZP=0",
                         "W8A8_OUT_TYPE");
    expect_compile_error(ctx, "A_TYPE=1,B_TYPE=1,OUT_TYPE=4", "reference_gemm needs");
    w8a8_context_close(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reference_compile");
    TCase *tc = tcase_create("reference_compile");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, covering_set_compiles_on_every_arch);
    tcase_add_test(tc, bad_combinations_fail_with_reasons);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
