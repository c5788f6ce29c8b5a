/* The reference kernel on the GPU against the CPU reference (w8a8_scaled_mm_cpu):
 *  - every 8-bit code of every dtype decodes exactly on the device, on both operands;
 *  - one random problem per trait combination (dtype pair × A scale × B scale × out dtype ×
 *    bias × zero point; ≥ 200 problems) with odd shapes, padded strides and scale layouts,
 *    outputs poisoned before each run, data never zero; the worst relative error per case
 *    class is printed at the end;
 *  - more rows than one grid can cover (the grid-stride loop).
 * Exits 77 (skipped) without a device. Run with CK_FORK=no. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "numeric.h"
#include "problem_gen.h"
#include "testutil.h"

#define SEED 20240611u
#define POISON 0xFF
#define MAX_FAILURES_SHOWN 10

static w8a8_context *ctx;

/* Runs one case on the GPU and the CPU (both outputs poisoned first); fills *r. */
static void run_case(const pgen_case *c, pgen_result *r)
{
    unsigned char *gpu_out = malloc(c->out_bytes), *cpu_out = malloc(c->out_bytes);
    ck_assert(gpu_out && cpu_out);
    memset(gpu_out, 0, c->out_bytes); /* the device buffer is poisoned, not this one */
    memset(cpu_out, POISON, c->out_bytes);
    w8a8_status st = pgen_run_reference_gpu(ctx, c, gpu_out);
    ck_assert_msg(st == W8A8_OK, "reference kernel: %s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    w8a8_tensors t = pgen_case_tensors(c, cpu_out);
    st = w8a8_scaled_mm_cpu(ctx, &c->problem, &t);
    ck_assert_msg(st == W8A8_OK, "cpu reference: %s", w8a8_errmsg(ctx));
    pgen_compare(&c->problem, gpu_out, cpu_out, r);
    free(gpu_out);
    free(cpu_out);
}

/* A[m, 0] = code m (or B[n, 0] = code n), the other operand 1.0 at k = 0, zeros elsewhere:
 * out (fp32, unit scales) is the decoded code exactly. */
static void check_codes(w8a8_dtype a_type, w8a8_dtype b_type, bool codes_in_a, const char *config)
{
    enum { CODES = 256, K = 16, OTHER = 4 };
    w8a8_problem p;
    w8a8_problem_init(&p, codes_in_a ? CODES : 1, codes_in_a ? OTHER : CODES, K, a_type, W8A8_FP32);
    p.b_type = b_type;
    w8a8_dtype code_type = codes_in_a ? a_type : b_type, one_type = codes_in_a ? b_type : a_type;
    uint8_t one;
    num_store_f32(one_type, &one, 0, 1.0f);
    static uint8_t codes[CODES * K], ones[CODES * K];
    memset(codes, 0, sizeof codes);
    memset(ones, 0, sizeof ones);
    for (int i = 0; i < CODES; i++) {
        codes[i * K] = (uint8_t)i;
        ones[i * K] = one;
    }
    static float scale[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    pgen_case c = {.problem = p};
    gemm_problem_resolve(&p, &c.problem);
    c.a = codes_in_a ? codes : ones;
    c.b = codes_in_a ? ones : codes;
    c.a_bytes = (size_t)(p.m * K);
    c.b_bytes = (size_t)(p.n * K);
    c.a_scale = c.b_scale = scale;
    c.a_scale_bytes = c.b_scale_bytes = sizeof(float);
    c.out_bytes = (size_t)(p.m * p.n) * sizeof(float);
    float out[CODES * OTHER];
    w8a8_status st = pgen_run_reference_gpu_config(ctx, &c, config, out);
    ck_assert_msg(st == W8A8_OK, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
    for (int i = 0; i < CODES; i++) {
        float want, got = out[codes_in_a ? i * OTHER : i];
        num_load_f32(code_type, &codes[i * K], 0, &want);
        ck_assert_msg(isnan(want) ? isnan(got) : got == want,
                      "%s code 0x%02X in %s (%s): device %a, host %a", w8a8_dtype_name(code_type),
                      i, codes_in_a ? "A" : "B", config ? config : "native decode", (double)got,
                      (double)want);
    }
}

START_TEST(every_code_decodes_exactly)
{
    static const w8a8_dtype pairs[][2] = {{W8A8_E4M3, W8A8_E4M3}, {W8A8_E4M3, W8A8_E5M2},
                                          {W8A8_E5M2, W8A8_E4M3}, {W8A8_E5M2, W8A8_E5M2},
                                          {W8A8_INT8, W8A8_INT8}};
    /* FP8_DECODE_BITS=1 forces the integer decode of sm_80/86 on this GPU. */
    static const char *const configs[] = {NULL, "FP8_DECODE_BITS=1"};
    for (size_t c = 0; c < 2; c++)
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
            check_codes(pairs[i][0], pairs[i][1], true, configs[c]);
            check_codes(pairs[i][0], pairs[i][1], false, configs[c]);
        }
}
END_TEST

typedef struct class_stats {
    int cases, failures;
    double worst_rel, worst_ratio; /* rel_error and rel_error / tolerance */
} class_stats;

static void print_classes(const class_stats *classes)
{
    printf("%-24s %6s %12s %10s %s\n", "class", "cases", "worst rel", "of bound", "failed");
    for (int i = 0; i < PGEN_CLASS_COUNT; i++) {
        if (!classes[i].cases)
            continue;
        char name[64];
        pgen_class_name(i, name, sizeof name);
        printf("%-24s %6d %12.3e %9.1f%% %d\n", name, classes[i].cases, classes[i].worst_rel,
               100.0 * classes[i].worst_ratio, classes[i].failures);
    }
    fflush(stdout);
}

START_TEST(random_problems_match_cpu)
{
    int count = pgen_trait_count();
    ck_assert_int_ge(count, 200);
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED);
    w8a8_problem *problems = calloc((size_t)count, sizeof *problems);
    ck_assert_ptr_nonnull(problems);
    for (int i = 0; i < count; i++)
        pgen_problem(&rng, i, &problems[i]);
    pgen_prewarm(ctx, problems, count);
    w8a8_context_stats before;
    w8a8_context_stats_get(ctx, &before);
    class_stats classes[PGEN_CLASS_COUNT] = {{0}};
    int failures = 0;
    for (int i = 0; i < count; i++) {
        pgen_case c;
        ck_assert_int_eq(pgen_case_create(ctx, &rng, &problems[i], &c), W8A8_OK);
        pgen_result r;
        run_case(&c, &r);
        class_stats *cl = &classes[pgen_class_index(&problems[i])];
        cl->cases++;
        cl->worst_rel = fmax(cl->worst_rel, r.rel_error);
        cl->worst_ratio = fmax(cl->worst_ratio, r.rel_error / r.tolerance);
        if (!r.ok) {
            cl->failures++;
            if (failures++ < MAX_FAILURES_SHOWN) {
                char text[320];
                pgen_problem_describe(&problems[i], text, sizeof text);
                printf("FAIL %s: rel %.3e (bound %.3e), %lld non-finite, %lld padding bytes "
                       "written\n", text, r.rel_error, r.tolerance, (long long)r.bad_values,
                       (long long)r.bad_padding);
            }
        }
        pgen_case_destroy(&c);
    }
    print_classes(classes);
    w8a8_context_stats after;
    w8a8_context_stats_get(ctx, &after);
    ck_assert_uint_eq(after.launches - before.launches, (uint64_t)count);
    free(problems);
    ck_assert_msg(failures == 0, "%d of %d problems differ from the CPU reference", failures, count);
}
END_TEST

/* More rows than gridDim.y (≤ 65535 blocks of 8 rows) covers: the grid-stride loop. */
START_TEST(rows_beyond_one_grid)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 65535 * 8 + 9, 8, 16, W8A8_E4M3, W8A8_BF16);
    p.a_scale.kind = W8A8_SCALE_ROW;
    pgen_rng rng;
    pgen_rng_seed(&rng, SEED + 1);
    pgen_case c;
    ck_assert_int_eq(pgen_case_create(ctx, &rng, &p, &c), W8A8_OK);
    pgen_result r;
    run_case(&c, &r);
    ck_assert_msg(r.ok, "rel %.3e (bound %.3e), %lld non-finite", r.rel_error, r.tolerance,
                  (long long)r.bad_values);
    pgen_case_destroy(&c);
}
END_TEST

int main(void)
{
    test_require_gpu_or_skip("gpu_reference");
    ctx = test_ctx_open();
    Suite *s = suite_create("gpu_reference");
    TCase *tc = tcase_create("gpu_reference");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, every_code_decodes_exactly);
    tcase_add_test(tc, random_problems_match_cpu);
    tcase_add_test(tc, rows_beyond_one_grid);
    suite_add_tcase(s, tc);
    int status = test_run_suite(s);
    w8a8_context_close(ctx);
    return status;
}
