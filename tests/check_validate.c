/* Argument validation (src/validate.c) through the public entry points: one test per class of
 * error, each checking the status, that the message names the argument, and that nothing ran
 * (the context's launch counter stays 0, CPU outputs stay poisoned). Also: a missing driver
 * gives W8A8_NO_DEVICE from w8a8_scaled_mm_reference, and every generated test problem is
 * valid. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "problem_gen.h"
#include "testutil.h"

#define NO_DEVICE_CHILD "--no-device-child"
#define POISON 0xFF

/* Host buffers standing in for device pointers: big enough for the problems below, never
 * dereferenced by a call that fails validation. */
static _Alignas(16) unsigned char buf_a[4096], buf_b[4096], buf_out[4096];
static _Alignas(16) float buf_scale[64];
static _Alignas(16) int32_t buf_ints[64];

static w8a8_problem base_problem(void)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 4, 16, 32, W8A8_E4M3, W8A8_BF16);
    return p;
}

static w8a8_tensors base_tensors(void)
{
    w8a8_tensors t = {buf_a, buf_b, buf_out, buf_scale, buf_scale, NULL, NULL, NULL};
    return t;
}

static uint64_t launches(w8a8_context *ctx)
{
    w8a8_context_stats s;
    ck_assert_int_eq(w8a8_context_stats_get(ctx, &s), W8A8_OK);
    return s.launches;
}

/* The problem fails w8a8_problem_validate with `code` and a message containing `needle`. */
static void expect_problem(w8a8_context *ctx, const w8a8_problem *p, w8a8_status code,
                           const char *needle)
{
    w8a8_status st = w8a8_problem_validate(ctx, p);
    ck_assert_msg(st == code, "want %s, got %s (%s)", w8a8_status_string(code),
                  w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_msg(strstr(w8a8_errmsg(ctx), needle), "message '%s' lacks '%s'", w8a8_errmsg(ctx),
                  needle);
}

/* The call fails with `code` naming `needle` through the reference and the CPU entry points,
 * launching nothing and leaving the output poisoned. */
static void expect_call(w8a8_context *ctx, const w8a8_problem *p, const w8a8_tensors *t,
                        w8a8_status code, const char *needle)
{
    memset(buf_out, POISON, sizeof buf_out);
    uint64_t before = launches(ctx);
    w8a8_status st = w8a8_scaled_mm_reference(ctx, p, t, NULL);
    ck_assert_msg(st == code, "reference: want %s, got %s (%s)", w8a8_status_string(code),
                  w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_msg(strstr(w8a8_errmsg(ctx), needle), "message '%s' lacks '%s'", w8a8_errmsg(ctx),
                  needle);
    st = w8a8_scaled_mm_cpu(ctx, p, t);
    ck_assert_msg(st == code, "cpu: want %s, got %s (%s)", w8a8_status_string(code),
                  w8a8_status_string(st), w8a8_errmsg(ctx));
    ck_assert_uint_eq(launches(ctx), before);
    for (size_t i = 0; i < sizeof buf_out; i++)
        ck_assert_uint_eq(buf_out[i], POISON);
}

START_TEST(null_arguments)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    w8a8_tensors t = base_tensors();
    ck_assert_int_eq(w8a8_problem_validate(NULL, &p), W8A8_INVALID);
    ck_assert_int_eq(w8a8_scaled_mm_reference(NULL, &p, &t, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_scaled_mm_cpu(NULL, &p, &t), W8A8_INVALID);
    expect_problem(ctx, NULL, W8A8_INVALID, "problem is NULL");
    expect_call(ctx, NULL, &t, W8A8_INVALID, "problem is NULL");
    expect_call(ctx, &p, NULL, W8A8_INVALID, "tensors is NULL");
    ck_assert_uint_eq(launches(ctx), 0);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(sizes)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    p.m = 0;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.m: 0 must be at least 1");
    p = base_problem();
    p.n = -16;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.n");
    p = base_problem();
    p.k = 0;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.k");
    p = base_problem();
    p.m = (int64_t)INT32_MAX + 1;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.m");
    p = base_problem();
    p.k = 100;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.k: 100 is not a multiple of 16");
    w8a8_tensors t = base_tensors();
    expect_call(ctx, &p, &t, W8A8_INVALID, "problem.k");
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(dtypes)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    p.a_type = W8A8_BF16;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.a_type: bf16");
    p.a_type = (w8a8_dtype)99;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.a_type: an unknown dtype");
    p = base_problem();
    p.a_type = W8A8_INT8; /* int8 × e4m3 */
    expect_problem(ctx, &p, W8A8_INVALID, "problem.b_type: e4m3");
    p = base_problem();
    p.b_type = W8A8_INT8; /* e4m3 × int8 */
    expect_problem(ctx, &p, W8A8_INVALID, "problem.b_type: int8");
    p = base_problem();
    p.b_type = W8A8_E4M3FNUZ;
    expect_problem(ctx, &p, W8A8_UNSUPPORTED, "problem.b_type: e4m3fnuz");
    p = base_problem();
    p.out_type = W8A8_E4M3;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.out_type: e4m3");
    p = base_problem();
    p.bias_type = W8A8_FP16; /* bf16 out */
    expect_problem(ctx, &p, W8A8_INVALID, "problem.bias_type: fp16");
    p.bias_type = W8A8_FP32;
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    ck_assert_str_eq(w8a8_errmsg(ctx), "");
    p = base_problem();
    p.b_type = W8A8_E5M2; /* FP8 mixes are fine */
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(strides)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    p.lda = 16; /* < k = 32 */
    expect_problem(ctx, &p, W8A8_INVALID, "problem.lda: 16 is less than the row length 32");
    p = base_problem();
    p.ldb = 40; /* ≥ k but not 16-byte rows */
    expect_problem(ctx, &p, W8A8_INVALID, "problem.ldb");
    p = base_problem();
    p.ldc = 12;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.ldc: 12 is less than");
    p = base_problem();
    p.n = 12; /* dense bf16 rows of 24 bytes */
    expect_problem(ctx, &p, W8A8_INVALID, "problem.ldc");
    p.out_type = W8A8_FP32; /* 48 bytes: fine */
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    p = base_problem();
    p.m = INT32_MAX;
    p.lda = (int64_t)1 << 40;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.lda");
    p = base_problem();
    p.ldc = 24; /* padded: 48-byte rows */
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(scale_layouts)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    p.a_scale.kind = (w8a8_scale_kind)7;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.a_scale.kind");
    p = base_problem();
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 0, 128, 0, 0};
    expect_problem(ctx, &p, W8A8_INVALID, "problem.b_scale.group_rows");
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, -128, 0, 0};
    expect_problem(ctx, &p, W8A8_INVALID, "problem.b_scale.group_k");
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 24, 0, 0};
    expect_problem(ctx, &p, W8A8_UNSUPPORTED, "problem.b_scale.group_k: 24 is not a multiple of 16");
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 128, 2, 0};
    expect_problem(ctx, &p, W8A8_INVALID, "problem.b_scale.k_major");
    p = base_problem(); /* m 4, k 32: dense ld is 2 row-major (k/16), 4 K-major (m/1) */
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 0, 1};
    expect_problem(ctx, &p, W8A8_INVALID, "problem.a_scale.ld: 1 is less than 2");
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 16, 1, 3};
    expect_problem(ctx, &p, W8A8_INVALID, "problem.a_scale.ld: 3 is less than 4");
    p.a_scale.ld = 4;
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 32, 0, 0};
    expect_problem(ctx, &p, W8A8_UNSUPPORTED, "problem.b_scale.group_k: 32 differs");
    p.b_scale.group_k = 16;
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    /* Fields of per-tensor/per-row layouts are ignored, even nonsense. */
    p = base_problem();
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_ROW, -1, 7, 9, -5};
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(zero_points)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    p.azp = W8A8_AZP_TOKEN; /* e4m3 A */
    expect_problem(ctx, &p, W8A8_INVALID, "problem.azp: a zero point needs int8 A");
    w8a8_problem_init(&p, 4, 16, 32, W8A8_INT8, W8A8_BF16);
    p.azp = (w8a8_azp_kind)5;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.azp: 5");
    p.azp = W8A8_AZP_TENSOR;
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 16, 16, 0, 0};
    expect_problem(ctx, &p, W8A8_INVALID, "problem.azp: a zero point needs per-tensor or per-row");
    p.b_scale.kind = W8A8_SCALE_ROW;
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    w8a8_context_close(ctx);
}
END_TEST

/* accum: the two values on every operand kind (promoted changes nothing for INT8 and block
 * scales, it is not an error there); anything else is named; the names parse back. */
START_TEST(accumulation)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    p.accum = W8A8_ACCUM_PROMOTED;
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    w8a8_problem_init(&p, 4, 16, 32, W8A8_INT8, W8A8_BF16);
    p.accum = W8A8_ACCUM_PROMOTED;
    ck_assert_int_eq(w8a8_problem_validate(ctx, &p), W8A8_OK);
    p.accum = (w8a8_accum)2;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.accum: 2 is not a w8a8_accum");
    p.accum = (w8a8_accum)-1;
    expect_problem(ctx, &p, W8A8_INVALID, "problem.accum: -1");
    w8a8_accum parsed = W8A8_ACCUM_FAST;
    ck_assert_int_eq(w8a8_accum_parse("promoted", &parsed), W8A8_OK);
    ck_assert_int_eq(parsed, W8A8_ACCUM_PROMOTED);
    ck_assert_str_eq(w8a8_accum_name(parsed), "promoted");
    ck_assert_int_eq(w8a8_accum_parse("Promoted", &parsed), W8A8_INVALID);
    ck_assert_int_eq(w8a8_accum_parse(NULL, &parsed), W8A8_INVALID);
    ck_assert_ptr_null(w8a8_accum_name((w8a8_accum)9));
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(tensor_pointers)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    w8a8_tensors t = base_tensors();
    t.a = NULL;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.a is NULL");
    t = base_tensors();
    t.b = buf_b + 8;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.b: ");
    t = base_tensors();
    t.out = buf_out + 2;
    expect_call(ctx, &p, &t, W8A8_INVALID, "not 16-byte aligned");
    t = base_tensors();
    t.b_scale = NULL;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.b_scale is NULL");
    p.a_scale.kind = W8A8_SCALE_ROW; /* row scales are vectors: 16-byte aligned */
    t = base_tensors();
    t.a_scale = buf_scale + 1;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.a_scale");
    p = base_problem();
    p.bias_type = W8A8_BF16;
    t = base_tensors();
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.bias is NULL");
    p = base_problem();
    t.bias = buf_scale;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.bias is set but problem.bias_type is none");
    w8a8_problem_init(&p, 4, 16, 32, W8A8_INT8, W8A8_BF16);
    p.azp = W8A8_AZP_TOKEN;
    t = base_tensors();
    t.b_col_sums = buf_ints;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.azp is NULL");
    t.azp = buf_ints;
    t.b_col_sums = NULL;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.b_col_sums is NULL");
    p.azp = W8A8_AZP_NONE;
    t.b_col_sums = buf_ints;
    expect_call(ctx, &p, &t, W8A8_INVALID, "tensors.azp is set");
    ck_assert_uint_eq(launches(ctx), 0);
    w8a8_context_close(ctx);
}
END_TEST

/* A per-tensor scale is one float: 4-byte alignment is enough, and the CPU path accepts it. */
START_TEST(scalar_scale_alignment)
{
    w8a8_context *ctx = test_ctx_open();
    w8a8_problem p = base_problem();
    w8a8_tensors t = base_tensors();
    for (int i = 0; i < 4; i++)
        buf_scale[i] = 1.0f;
    memset(buf_a, 0x38, sizeof buf_a);
    memset(buf_b, 0x38, sizeof buf_b);
    t.a_scale = buf_scale + 1;
    ck_assert_int_eq(w8a8_scaled_mm_cpu(ctx, &p, &t), W8A8_OK);
    w8a8_context_close(ctx);
}
END_TEST

/* Every problem the GPU test and `w8a8 check` generate passes validation. */
START_TEST(generated_problems_are_valid)
{
    w8a8_context *ctx = test_ctx_open();
    pgen_rng rng;
    pgen_rng_seed(&rng, 1);
    int count = pgen_trait_count();
    ck_assert_int_ge(count, 200);
    for (int i = 0; i < 3 * count; i++) {
        w8a8_problem p;
        pgen_problem(&rng, i, &p);
        char text[256];
        pgen_problem_describe(&p, text, sizeof text);
        ck_assert_msg(w8a8_problem_validate(ctx, &p) == W8A8_OK, "%s: %s", text, w8a8_errmsg(ctx));
    }
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(cpu_only_context_has_no_device)
{
    w8a8_context_options o = {0};
    o.flags = W8A8_CONTEXT_CPU_ONLY;
    w8a8_context *ctx = NULL;
    ck_assert_int_eq(w8a8_context_open(&ctx, &o), W8A8_OK);
    w8a8_problem p = base_problem();
    w8a8_tensors t = base_tensors();
    ck_assert_int_eq(w8a8_scaled_mm_reference(ctx, &p, &t, NULL), W8A8_NO_DEVICE);
    ck_assert_uint_eq(launches(ctx), 0);
    w8a8_context_close(ctx);
}
END_TEST

/* The child: opens a context (with the driver path pointing nowhere) and calls the reference
 * with a valid problem. Exit 0 when it got W8A8_NO_DEVICE and launched nothing. */
static int no_device_child(void)
{
    w8a8_context *ctx = NULL;
    if (w8a8_context_open(&ctx, NULL) != W8A8_OK)
        return 2;
    w8a8_problem p = base_problem();
    w8a8_tensors t = base_tensors();
    w8a8_status st = w8a8_scaled_mm_reference(ctx, &p, &t, NULL);
    w8a8_context_stats s;
    w8a8_context_stats_get(ctx, &s);
    int ok = st == W8A8_NO_DEVICE && s.launches == 0 && !w8a8_context_has_device(ctx);
    if (!ok)
        fprintf(stderr, "child: %s: %s\n", w8a8_status_string(st), w8a8_errmsg(ctx));
    w8a8_context_close(ctx);
    return ok ? 0 : 1;
}

START_TEST(missing_driver_gives_no_device)
{
    /* A fresh process: the driver is loaded once per process, and this one may have loaded
     * it already. */
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("W8A8_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
        execl("/proc/self/exe", "check_validate", NO_DEVICE_CHILD, (char *)NULL);
        _exit(3);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], NO_DEVICE_CHILD) == 0)
        return no_device_child();
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("validate");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, null_arguments);
    tcase_add_test(tc, sizes);
    tcase_add_test(tc, dtypes);
    tcase_add_test(tc, strides);
    tcase_add_test(tc, scale_layouts);
    tcase_add_test(tc, zero_points);
    tcase_add_test(tc, accumulation);
    tcase_add_test(tc, tensor_pointers);
    tcase_add_test(tc, scalar_scale_alignment);
    tcase_add_test(tc, generated_problems_are_valid);
    tcase_add_test(tc, cpu_only_context_has_no_device);
    tcase_add_test(tc, missing_driver_gives_no_device);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
