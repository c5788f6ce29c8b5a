/* templates/quant.cuh compiles with NVRTC, without spills (but the division's call frame),
 * for sm_80, sm_89 and sm_90a in every define set quant_compile_defines lists (each mode,
 * dtype, asymmetric, upper bound, team shape, group size and scale layout, the integer e4m3
 * path, the weight utilities).
 * Needs no GPU. */
#include <stdio.h>
#include <string.h>

#include "quant.h"
#include "testutil.h"

#define QUANT_CALL_SPILL 16

static void compile_all(const char *arch)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    size_t n = 0;
    for (const char *defines; (defines = quant_compile_defines(n)) != NULL; n++) {
        w8a8_kernel_info info;
        char *log = NULL;
        w8a8_status st = w8a8_kernel_compile(ctx, "quant", defines, arch, &info, &log);
        ck_assert_msg(st == W8A8_OK, "%s [%s]: %s\n%s", arch, defines, w8a8_errmsg(ctx),
                      log ? log : "");
        /* the exactly rounded division (div.rn.f32) calls a slow-path subroutine: a few
         * registers live across that call go to the stack (12-16 bytes in group mode on
         * sm_89/sm_90a, CUDA 13); anything past that is a real spill */
        ck_assert_msg(info.spill_stores <= QUANT_CALL_SPILL && info.spill_loads <= QUANT_CALL_SPILL
                          && !strstr(info.reject_reason, "ptxas note"),
                      "%s [%s]: rejected (%s), spills %d/%d", arch, defines, info.reject_reason,
                      info.spill_stores, info.spill_loads);
        w8a8_free(log);
    }
    ck_assert_uint_ge(n, 20);
    w8a8_context_close(ctx);
}

START_TEST(compiles_for_sm80) { compile_all("sm_80"); }
END_TEST

START_TEST(compiles_for_sm89) { compile_all("sm_89"); }
END_TEST

START_TEST(compiles_for_sm90a) { compile_all("sm_90a"); }
END_TEST

/* A bad combination is refused by the template's static_asserts, not miscompiled. */
START_TEST(bad_combinations_are_refused)
{
    w8a8_context *ctx = test_ctx_open_fresh(NULL, 0);
    const char *bad[] = {"quant_mode=3,group=128,team=8,vecs=1",
                         "quant_mode=2,out_type=1,asym=1", "quant_mode=0,ub=1",
                         "quant_mode=2,in_type=3", "quant_mode=2,team=64,threads=32"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(w8a8_kernel_compile(ctx, "quant", bad[i], "sm_90a", NULL, NULL) ==
                          W8A8_COMPILE_ERROR,
                      "[%s] compiled", bad[i]);
    w8a8_context_close(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quant_compile");
    TCase *tc = tcase_create("quant_compile");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, compiles_for_sm80);
    tcase_add_test(tc, compiles_for_sm89);
    tcase_add_test(tc, compiles_for_sm90a);
    tcase_add_test(tc, bad_combinations_are_refused);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
