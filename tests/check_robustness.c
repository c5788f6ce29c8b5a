/* Robustness of the public API (CPU only): every function of w8a8jit.h that makes sense
 * without a GPU, called with NULL pointers, a NULL context, garbage enums, negative and huge
 * sizes, garbage strides and scale layouts, bad strings (NULL, "", very long, not UTF-8),
 * missing, unreadable and garbage files and folders passed as files. Each call must return a
 * w8a8_status (a message and the code kept on the context when it is not W8A8_OK), must not
 * print and must not crash; the suite runs under the sanitize build too, where an overflow or
 * undefined behaviour prints (UBSan) or aborts (ASan) and so fails the test.
 * Bad matmul, quantization and weight problems are check_bad_input.c, random problems through
 * the same entry points check_fuzz.c; shared helpers robustness.h. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robustness.h"

/* Host memory passed where device pointers go: a CPU-only context must never read it. */
static _Alignas(256) unsigned char fake_device[FAKE_DEVICE_BYTES];

/* ---- names, enums and NULL everywhere ------------------------------------------------------- */

START_TEST(enums_and_names)
{
    robust_quiet q;
    robust_quiet_begin(&q);
    ck_assert_int_eq(w8a8_version_number(), W8A8JIT_VERSION_NUMBER);
    ck_assert_str_eq(w8a8_version_string(), W8A8JIT_VERSION_STRING);
    static const int garbage[] = {-1, 77, W8A8_HUNG + 1, 255, 0x7FFFFFFF, (int)0x80000000};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        int v = garbage[i];
        ck_assert_str_eq(w8a8_status_string((w8a8_status)v), "W8A8_UNKNOWN");
        ck_assert_ptr_null(w8a8_dtype_name((w8a8_dtype)v));
        ck_assert_uint_eq(w8a8_dtype_size((w8a8_dtype)v), 0);
        ck_assert_ptr_null(w8a8_scale_kind_name((w8a8_scale_kind)v));
        ck_assert_ptr_null(w8a8_quant_mode_name((w8a8_quant_mode)v));
        ck_assert_ptr_null(w8a8_tune_mode_name((w8a8_tune_mode)v));
    }
    w8a8_dtype dtype = W8A8_E4M3;
    w8a8_tune_mode mode = W8A8_TUNE_OFF;
    for (int i = 0; robust_bad_string(i) != ROBUST_BAD_STRING_END; i++) {
        const char *s = robust_bad_string(i);
        ck_assert_int_eq(w8a8_dtype_parse(s, &dtype), W8A8_INVALID);
        if (s && !*s) /* "" is a documented spelling of off */
            ck_assert_int_eq(w8a8_tune_mode_parse(s, &mode), W8A8_OK);
        else
            FAILS(NULL, w8a8_tune_mode_parse(s, &mode));
    }
    ck_assert_int_eq(w8a8_dtype_parse("e4m3", NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_dtype_parse("E4M3 ", &dtype), W8A8_INVALID);
    FAILS(NULL, w8a8_tune_mode_parse("online", NULL));
    FAILS(NULL, w8a8_tune_mode_parse("onlinex", &mode));
    w8a8_problem_init(NULL, -1, -1, -1, (w8a8_dtype)77, (w8a8_dtype)77);
    w8a8_free(NULL);
    w8a8_context_close(NULL);
    w8a8_space_result_free(NULL);
    w8a8_space_plan_free(NULL);
    w8a8_tune_report_free(NULL);
    w8a8_space_result zero_result = {0};
    w8a8_space_result_free(&zero_result);
    w8a8_space_plan zero_plan = {0};
    w8a8_space_plan_free(&zero_plan);
    w8a8_tune_report zero_report = {0};
    w8a8_tune_report_free(&zero_report);
    const char *const *names = w8a8_space_names();
    ck_assert_ptr_nonnull(names);
    ck_assert_ptr_nonnull(w8a8_template_names(NULL));
    robust_quiet_end(&q);
}
END_TEST

/* Every function that takes a context, with none. */
START_TEST(null_context)
{
    robust_quiet q;
    robust_quiet_begin(&q);
    w8a8_problem p = robust_good_problem();
    static _Alignas(16) unsigned char host[4096];
    w8a8_tensors t = {host, host, host, (float *)host, (float *)host, NULL, NULL, NULL};
    w8a8_quant_problem qp = {.m = 4, .k = 32, .in_type = W8A8_BF16, .out_type = W8A8_E4M3,
                             .mode = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_quant_tensors qt = {host, host + 1024, (float *)(host + 2048), NULL, NULL};
    w8a8_linear_problem lp = {.m = 4, .n = 16, .k = 32, .x_type = W8A8_BF16, .w_type = W8A8_E4M3,
                              .out_type = W8A8_BF16, .x_quant = W8A8_QUANT_DYNAMIC_TOKEN};
    w8a8_linear_tensors lt = {host, host, host, (float *)host, NULL, NULL, NULL, NULL, NULL};
    int64_t rows[2] = {1, 1}, count = 0;
    float scales[2] = {1, 1}, scale = 0;
    size_t bytes = 0;
    double us = 0;
    w8a8_explain explain;
    w8a8_device_info info;
    w8a8_context_stats stats;
    w8a8_kernel_info kinfo;
    char *log = (char *)1, config[W8A8_SPACE_CONFIG_BYTES];
    w8a8_space_result result;
    w8a8_space_plan plan;
    w8a8_bench_result bench;
    w8a8_tune_options topts = {.problems = &p, .problem_count = 1};
    w8a8_tune_report report;
    w8a8_cache_prune_options prune = {.keep_winners = 1};
    const char *srcs[1] = {"x.db"};

    EXPECT(NULL, w8a8_context_open(NULL, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_context_has_device(NULL), 0);
    ck_assert_int_eq(w8a8_error_cuda(NULL), 0);
    ck_assert_int_eq(w8a8_error_nvrtc(NULL), 0);
    ck_assert_ptr_nonnull(w8a8_errmsg(NULL));
    ck_assert_ptr_nonnull(w8a8_cache_warnings(NULL));
    EXPECT(NULL, w8a8_context_device_info(NULL, &info), W8A8_INVALID);
    EXPECT(NULL, w8a8_context_stats_get(NULL, &stats), W8A8_INVALID);
    EXPECT(NULL, w8a8_problem_validate(NULL, &p), W8A8_INVALID);
    EXPECT(NULL, w8a8_scaled_mm(NULL, &p, &t, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_scaled_mm_reference(NULL, &p, &t, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_scaled_mm_cpu(NULL, &p, &t), W8A8_INVALID);
    EXPECT(NULL, w8a8_kernel_compile(NULL, "reference_gemm", "", "sm_80", &kinfo, &log), W8A8_INVALID);
    ck_assert_ptr_null(log);
    EXPECT(NULL, w8a8_quantize(NULL, &qp, &qt, NULL), W8A8_INVALID);
    /* The quantization helpers need no context; bad input still fails with a message. */
    EXPECT(NULL, w8a8_quant_problem_validate(NULL, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_quantize_cpu(NULL, NULL, &qt), W8A8_INVALID);
    EXPECT(NULL, w8a8_linear_problems(NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_linear_workspace_size(NULL, NULL, &bytes), W8A8_INVALID);
    EXPECT(NULL, w8a8_linear(NULL, &lp, &lt, fake_device, sizeof fake_device, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_requantize_fused(NULL, W8A8_E4M3, 16, rows, 2, host, host, scales,
                                              &scale, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_expand_scales(NULL, rows, 2, scales, scales, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_e4m3fn_to_fnuz(NULL, host, 16, scales, 1, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_requantize_fused_cpu(NULL, W8A8_E4M3, 16, NULL, 2, host, host,
                                                  scales, &scale), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_expand_scales_cpu(NULL, rows, 2, NULL, scales), W8A8_INVALID);
    EXPECT(NULL, w8a8_weight_e4m3fn_to_fnuz_cpu(NULL, NULL, 16, scales, 1), W8A8_INVALID);
    EXPECT(NULL, w8a8_space_enumerate(NULL, "reference_gemm", &p, "sm_80", &result), W8A8_INVALID);
    EXPECT(NULL, w8a8_space_default(NULL, "reference_gemm", &p, "sm_80", config, sizeof config),
           W8A8_INVALID);
    EXPECT(NULL, w8a8_space_compile_plan(NULL, "reference_gemm", "sm_80", 1, &plan), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_list(NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_explain(NULL, &p, &explain), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_explain_device(NULL, &p, NULL, &explain), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_export(NULL, "x.sql", 0, &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_import(NULL, "x.sql", &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_merge(NULL, "x.db", srcs, 1, &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_cache_prune(NULL, &prune, &count), W8A8_INVALID);
    EXPECT(NULL, w8a8_dispatch_set_tune_mode(NULL, W8A8_TUNE_OFF), W8A8_INVALID);
    EXPECT(NULL, w8a8_dispatch_warm(NULL, &p), W8A8_INVALID);
    EXPECT(NULL, w8a8_dispatch_explain(NULL, &p, &explain), W8A8_INVALID);
    EXPECT(NULL, w8a8_tune(NULL, &topts, NULL, NULL, &report), W8A8_INVALID);
    ck_assert_uint_eq(report.count, 0);
    EXPECT(NULL, w8a8_bench_time(NULL, &p, NULL, NULL, NULL, &bench), W8A8_INVALID);
    EXPECT(NULL, w8a8_bench_host_overhead(NULL, &p, 10, &us, NULL), W8A8_INVALID);
    robust_quiet_end(&q);
}
END_TEST

/* Every function that takes pointers, with a context and NULL for each pointer. */
START_TEST(null_arguments)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    w8a8_problem p = robust_good_problem();
    int64_t rows[2] = {1, 1};
    float scales[2] = {1, 1}, scale = 0;
    static _Alignas(16) unsigned char host[4096];
    char config[W8A8_SPACE_CONFIG_BYTES];
    w8a8_space_result result;
    w8a8_space_plan plan;
    w8a8_explain explain;
    w8a8_bench_result bench;
    double us;
    size_t bytes;
    w8a8_quant_problem qp;
    w8a8_problem mm;
    w8a8_tune_options topts = {0};
    w8a8_tune_report report;

    EXPECT(ctx, w8a8_context_device_info(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_context_stats_get(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_problem_validate(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm(ctx, &p, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_reference(ctx, &p, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_scaled_mm_cpu(ctx, &p, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_kernel_compile(ctx, NULL, NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_quant_problem_validate(ctx, NULL), W8A8_INVALID);
    ck_assert_int_eq(w8a8_quant_rows_out(NULL), -1);
    EXPECT(ctx, w8a8_quantize(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_quantize_cpu(ctx, NULL, NULL), W8A8_INVALID);
    w8a8_quant_problem good_q = {.m = 4, .k = 32, .in_type = W8A8_BF16, .out_type = W8A8_E4M3};
    EXPECT(ctx, w8a8_quantize(ctx, &good_q, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &good_q, NULL), W8A8_INVALID);
    w8a8_quant_tensors qt = {0};
    EXPECT(ctx, w8a8_quantize_cpu(ctx, &good_q, &qt), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear_problems(ctx, NULL, &qp, &mm), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear_workspace_size(ctx, NULL, &bytes), W8A8_INVALID);
    w8a8_linear_problem lp = {.m = 4, .n = 16, .k = 32, .x_type = W8A8_BF16, .w_type = W8A8_E4M3,
                              .out_type = W8A8_BF16, .x_quant = W8A8_QUANT_DYNAMIC_TOKEN};
    EXPECT_OK_CLEAN(ctx, w8a8_linear_problems(ctx, &lp, NULL, NULL));
    EXPECT(ctx, w8a8_linear_workspace_size(ctx, &lp, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, NULL, NULL, NULL, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, NULL, fake_device, sizeof fake_device, NULL), W8A8_INVALID);
    w8a8_linear_tensors lt = {0};
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device, sizeof fake_device, NULL), W8A8_INVALID);
    lt = (w8a8_linear_tensors){fake_device, fake_device, fake_device, (float *)fake_device,
                               NULL, NULL, NULL, NULL, NULL};
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, NULL, sizeof fake_device, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device + 1, sizeof fake_device, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_linear(ctx, &lp, &lt, fake_device, sizeof fake_device, NULL), W8A8_NO_DEVICE);
    /* Weight utilities: each pointer NULL in turn. */
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, NULL, 2, host, host, scales,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, NULL, host, scales,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, host, NULL, scales,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, host, host, NULL,
                                                 &scale), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused_cpu(ctx, W8A8_E4M3, 16, rows, 2, host, host, scales,
                                                 NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_requantize_fused(ctx, W8A8_E4M3, 16, rows, 2, host, host, NULL,
                                             &scale, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, NULL, 2, scales, scales), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, 2, NULL, scales), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales_cpu(ctx, rows, 2, scales, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_expand_scales(ctx, rows, 2, scales, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, NULL, 16, scales, 1), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, host, 16, NULL, 1), W8A8_INVALID);
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, NULL, 0, NULL, 1), W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "scales"));
    EXPECT_OK_CLEAN(ctx, w8a8_weight_e4m3fn_to_fnuz_cpu(ctx, NULL, 0, NULL, 0));
    EXPECT(ctx, w8a8_weight_e4m3fn_to_fnuz(ctx, NULL, 16, scales, 1, NULL), W8A8_INVALID);
    /* Spaces, cache, dispatcher, tuner, benchmarks. */
    EXPECT(ctx, w8a8_space_enumerate(ctx, NULL, &p, "sm_80", &result), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", NULL, "sm_80", &result), W8A8_INVALID);
    ck_assert_ptr_null(result.configs);
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, "sm_80", NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, NULL, &p, "sm_80", config, sizeof config), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, "reference_gemm", NULL, "sm_80", config, sizeof config),
           W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, "reference_gemm", &p, "sm_80", NULL, 64), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_default(ctx, "reference_gemm", &p, "sm_80", config, 0), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_compile_plan(ctx, NULL, "sm_80", 0, &plan), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_compile_plan(ctx, "reference_gemm", NULL, 0, &plan), W8A8_INVALID);
    EXPECT(ctx, w8a8_space_compile_plan(ctx, "reference_gemm", "sm_80", 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_list(ctx, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_explain(ctx, NULL, &explain), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_explain(ctx, &p, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_explain_device(ctx, NULL, NULL, &explain), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_export(ctx, NULL, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_import(ctx, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_merge(ctx, NULL, NULL, 0, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_merge(ctx, "x.db", NULL, 3, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_cache_prune(ctx, NULL, NULL), W8A8_INVALID);
    w8a8_cache_prune_options none = {0};
    EXPECT(ctx, w8a8_cache_prune(ctx, &none, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_warm(ctx, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_explain(ctx, NULL, &explain), W8A8_INVALID);
    EXPECT(ctx, w8a8_dispatch_explain(ctx, &p, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_tune(ctx, NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_tune(ctx, &topts, NULL, NULL, &report), W8A8_INVALID);
    topts.problem_count = 3; /* problems NULL */
    EXPECT(ctx, w8a8_tune(ctx, &topts, NULL, NULL, &report), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_time(ctx, NULL, NULL, NULL, NULL, &bench), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_time(ctx, &p, NULL, NULL, NULL, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_host_overhead(ctx, NULL, 10, &us, NULL), W8A8_INVALID);
    EXPECT(ctx, w8a8_bench_host_overhead(ctx, &p, 10, NULL, NULL), W8A8_INVALID);
    robust_env_end(&env);
}
END_TEST

/* ---- contexts with hostile options ---------------------------------------------------------- */

/* What a context with odd options must still survive: the cache, the spaces, the JIT. */
static void exercise_context(w8a8_context *ctx, const char *dir)
{
    char path[1024];
    w8a8_problem p = robust_good_problem();
    w8a8_explain explain;
    w8a8_device_info info;
    w8a8_space_result result;
    char config[W8A8_SPACE_CONFIG_BYTES];
    int64_t count;
    CALL(ctx, w8a8_context_device_info(ctx, &info));
    ck_assert_int_eq(w8a8_context_has_device(ctx), 0);
    ck_assert_ptr_nonnull(w8a8_cache_warnings(ctx));
    CALL(ctx, w8a8_cache_explain(ctx, &p, &explain));
    CALL(ctx, w8a8_dispatch_explain(ctx, &p, &explain));
    snprintf(path, sizeof path, "%s/garbage.db/out.sql", dir); /* under a file: fails as root */
    FAILS(ctx, w8a8_cache_export(ctx, path, 0, &count));
    w8a8_cache_prune_options prune = {.keep_winners = 1, .stale = 1, .older_than = INT64_MAX};
    CALL(ctx, w8a8_cache_prune(ctx, &prune, &count));
    CALL(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, "sm_80", &result));
    w8a8_space_result_free(&result);
    CALL(ctx, w8a8_space_default(ctx, "reference_gemm", &p, "sm_80", config, sizeof config));
    char *log = NULL;
    CALL(ctx, w8a8_kernel_compile(ctx, "reference_gemm", "A=", "sm_80", NULL, &log));
    w8a8_free(log);
    CALL(ctx, w8a8_kernel_compile(ctx, "no_such_template", "", "sm_80", NULL, NULL));
}

START_TEST(hostile_context_options)
{
    robust_quiet q;
    robust_quiet_begin(&q);
    char dir[512], path[1024], other[1024];
    test_mkdtemp(dir, sizeof dir);
    robust_make_hostile_files(dir);
    /* A template folder of garbage: scripts/ shadows the embedded spaces, templates/ a
     * template (the JIT calls below never get as far as NVRTC). */
    unsigned char garbage[512];
    memset(garbage, 0xFE, sizeof garbage);
    snprintf(path, sizeof path, "%s/scripts", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    robust_make_hostile_files(path);
    robust_write_bytes(path, "reference_gemm.lua", garbage, sizeof garbage);
    robust_write_text(path, "sm90_gemm.lua", "while true do end");
    snprintf(path, sizeof path, "%s/templates", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    robust_write_bytes(path, "reference_gemm.cuh", garbage, sizeof garbage);
    /* Options whose paths are bad strings. Paths the context may write (kernel_dir, cache_db)
     * stay inside dir: bad names there, or a path too long for any buffer; the read-only
     * ones (cache_path, template_dir) get the bad strings themselves. */
    for (int i = 0; robust_bad_string(i) != ROBUST_BAD_STRING_END; i++) {
        const char *s = robust_bad_string(i);
        for (int field = 0; field < 4; field++) {
            char bad_path[1024];
            const char *value = s;
            if (field < 2 && s != robust_long_text) {
                if (!s || !*s || s[0] == '.' || s[0] == '/')
                    continue; /* the defaults, or somewhere outside dir */
                snprintf(bad_path, sizeof bad_path, "%s/%s", dir, s);
                value = bad_path;
            }
            snprintf(path, sizeof path, "%s/kernels", dir);
            snprintf(other, sizeof other, "%s/tuning.db", dir);
            w8a8_context_options o = {.kernel_dir = path, .cache_db = other,
                                      .flags = W8A8_CONTEXT_CPU_ONLY};
            switch (field) {
            case 0: o.kernel_dir = value; break;
            case 1: o.cache_db = value; break;
            case 2: o.cache_path = value; break;
            case 3: o.template_dir = value; break;
            }
            w8a8_context *ctx = NULL;
            w8a8_status st = CALL(ctx, w8a8_context_open(&ctx, &o));
            size_t limit = field == 2 ? 4096 : 1024; /* cache_path holds a list */
            if (value && strlen(value) >= limit) {
                ck_assert_int_eq(st, W8A8_INVALID); /* never a silently truncated path */
                ck_assert_ptr_nonnull(ctx);
                ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "too long"));
            } else {
                ck_assert_msg(st == W8A8_OK, "bad string %d in field %d: %s", i, field,
                              w8a8_errmsg(ctx));
                exercise_context(ctx, dir);
            }
            w8a8_context_close(ctx);
        }
    }
    /* Device ordinals and flags that mean nothing. */
    static const int ordinals[] = {-1, 1 << 30, (int)0x80000000};
    for (size_t i = 0; i < sizeof ordinals / sizeof ordinals[0]; i++) {
        w8a8_context_options o = {0};
        snprintf(path, sizeof path, "%s/kernels", dir);
        snprintf(other, sizeof other, "%s/tuning.db", dir);
        o.kernel_dir = path;
        o.cache_db = other;
        o.device_ordinal = ordinals[i];
        o.flags = 0xFFFFFFFFu;
        w8a8_context *ctx = NULL;
        if (CALL(ctx, w8a8_context_open(&ctx, &o)) == W8A8_OK)
            exercise_context(ctx, dir);
        w8a8_context_close(ctx);
    }
    /* The user database is garbage, a folder, a truncated file, a file under a file; the
     * read-only layers are garbage, folders, missing, or a path list of separators. */
    static const char *const dbs[] = {"garbage.db", "folder.db", "truncated.db",
                                      "garbage.db/sub.db", "garbage.lua", "unreadable.lua"};
    static const char *const layers[] = {"garbage.db", "folder.db", "garbage.sql", "drop.sql",
                                         "truncated.db", "nonexistent.db"};
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
        char cache_path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, dbs[i]);
        snprintf(cache_path, sizeof cache_path, ":::%s/%s::%s:%s/\xff", dir,
                 layers[i], dir, dir);
        snprintf(other, sizeof other, "%s/kernels", dir);
        w8a8_context_options o = {.kernel_dir = other, .cache_db = path,
                                  .cache_path = cache_path, .flags = W8A8_CONTEXT_CPU_ONLY};
        w8a8_context *ctx = NULL;
        EXPECT(ctx, w8a8_context_open(&ctx, &o), W8A8_OK);
        exercise_context(ctx, dir);
        int64_t added = 0;
        snprintf(path, sizeof path, "%s/%s", dir, layers[i]);
        CALL(ctx, w8a8_cache_import(ctx, path, &added));
        w8a8_context_close(ctx);
    }
    /* The template folder of garbage. */
    {
        snprintf(other, sizeof other, "%s/kernels", dir);
        snprintf(path, sizeof path, "%s/tuning.db", dir);
        w8a8_context_options o = {.kernel_dir = other, .cache_db = path, .template_dir = dir,
                                  .flags = W8A8_CONTEXT_CPU_ONLY};
        w8a8_context *ctx = NULL;
        EXPECT(ctx, w8a8_context_open(&ctx, &o), W8A8_OK);
        exercise_context(ctx, dir);
        w8a8_problem p = robust_good_problem();
        w8a8_space_result result;
        static const char *const spaces[] = {"garbage", "syntax", "number", "error", "badfields",
                                             "bytecode", "empty", "unreadable", "folder"};
        for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++) {
            FAILS(ctx, w8a8_space_enumerate(ctx, spaces[i], &p, "sm_90", &result));
            ck_assert_ptr_null(result.configs);
        }
        w8a8_context_close(ctx);
    }
    test_remove_tree(dir);
    robust_quiet_end(&q);
}
END_TEST

/* ---- the JIT ------------------------------------------------------------------------------- */

START_TEST(kernel_compile_bad_strings)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    w8a8_kernel_info info;
    char *log = NULL;
    /* Template names and arches: nothing reaches NVRTC. */
    for (int i = 0; robust_bad_string(i) != ROBUST_BAD_STRING_END; i++) {
        const char *s = robust_bad_string(i);
        FAILS(ctx, w8a8_kernel_compile(ctx, s, "", "sm_80", &info, &log));
        w8a8_free(log);
        FAILS(ctx, w8a8_kernel_compile(ctx, "reference_gemm", "", s, &info, &log));
        w8a8_free(log);
    }
    static const char *const arches[] = {"sm_75", "sm_90b", "SM_90", "sm_8", "sm_800", "compute_90",
                                         "sm_90a ", "--gpu-architecture=sm_90"};
    for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
        EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", "", arches[i], NULL, NULL),
               W8A8_INVALID);
    /* Defines that the prologue refuses (so nothing reaches NVRTC either). */
    static const char *const defines[] = {"=", "A=", "=1", "A=1;B=2", "A=\"x\"", "A=$(rm -rf /)",
                                          "A=1 B", "A=1,,,B", "\xff=1", "A=\xff", "A B=1",
                                          "A=1\n#include </dev/zero>", "A=1)"};
    for (size_t i = 0; i < sizeof defines / sizeof defines[0]; i++) {
        log = (char *)1;
        EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", defines[i], "sm_80", &info, &log),
               W8A8_INVALID);
        ck_assert_ptr_null(log);
    }
    /* A long list of short items ending in a bad one: the prologue grows past any fixed
     * multiple of short inputs before the bad item stops it. */
    size_t items = 2000;
    char *many = malloc(items * 4 + 8);
    ck_assert_ptr_nonnull(many);
    for (size_t i = 0; i < items; i++)
        memcpy(many + 4 * i, "a=1,", 4);
    strcpy(many + 4 * items, "!");
    EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", many, "sm_80", NULL, NULL),
           W8A8_INVALID);
    memset(many, 'a', items * 4);
    strcpy(many + 4 * items, "=1 !");
    EXPECT(ctx, w8a8_kernel_compile(ctx, "reference_gemm", many, "sm_80", NULL, NULL),
           W8A8_INVALID);
    free(many);
    const char *const *names = w8a8_template_names(ctx);
    ck_assert_ptr_nonnull(names);
    for (size_t i = 0; names[i]; i++)
        ck_assert(names[i][0] != '\0');
    robust_env_end(&env);
}
END_TEST

/* ---- spaces -------------------------------------------------------------------------------- */

START_TEST(space_bad_strings_and_files)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    const char *dir = env.dir;
    char path[1024];
    robust_make_hostile_files(dir);
    w8a8_problem p = robust_good_problem();
    w8a8_space_result result;
    w8a8_space_plan plan;
    char config[W8A8_SPACE_CONFIG_BYTES];
    for (int i = 0; robust_bad_string(i) != ROBUST_BAD_STRING_END; i++) {
        const char *s = robust_bad_string(i);
        FAILS(ctx, w8a8_space_enumerate(ctx, s, &p, "sm_90", &result));
        ck_assert_ptr_null(result.configs);
        ck_assert_uint_eq(result.count, 0);
        FAILS(ctx, w8a8_space_default(ctx, s, &p, "sm_90", config, sizeof config));
        FAILS(ctx, w8a8_space_compile_plan(ctx, s, "sm_90", 0, &plan));
        ck_assert_ptr_null(plan.items);
        /* The same string as the arch (NULL: the context's device, which it lacks). */
        FAILS(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, s, &result));
        ck_assert_ptr_null(result.configs);
        FAILS(ctx, w8a8_space_default(ctx, "reference_gemm", &p, s, config, sizeof config));
        FAILS(ctx, w8a8_space_compile_plan(ctx, "reference_gemm", s, 0, &plan));
    }
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &p, NULL, &result), W8A8_NO_DEVICE);
    static const char *const files[] = {"garbage.lua", "syntax.lua", "number.lua", "error.lua",
                                        "badfields.lua", "bytecode.lua", "empty.lua",
                                        "unreadable.lua", "folder.lua", "\xff\xfe.lua",
                                        "missing.lua", "garbage.db"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        /* unreadable.lua names no template: it fails for root, who can read it, too. */
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FAILS(ctx, w8a8_space_enumerate(ctx, path, &p, "sm_90", &result));
        ck_assert_ptr_null(result.configs);
        FAILS(ctx, w8a8_space_default(ctx, path, &p, "sm_90", config, sizeof config));
        FAILS(ctx, w8a8_space_compile_plan(ctx, path, "sm_90", 0, &plan));
        ck_assert_ptr_null(plan.items);
    }
    /* Garbage problems into a good space. */
    w8a8_problem bad = p;
    bad.a_type = (w8a8_dtype)77;
    EXPECT(ctx, w8a8_space_enumerate(ctx, "reference_gemm", &bad, "sm_90", &result), W8A8_INVALID);
    bad = p;
    bad.b_scale.kind = (w8a8_scale_kind)-3;
    EXPECT(ctx, w8a8_space_default(ctx, "sm90_gemm", &bad, "sm_90a", config, sizeof config),
           W8A8_INVALID);
    bad = p;
    bad.m = -1;
    EXPECT(ctx, w8a8_space_enumerate(ctx, "sm90_gemm", &bad, "sm_90a", &result), W8A8_INVALID);
    bad = p;
    bad.m = bad.n = bad.k = INT64_MAX;
    for (const char *const *name = w8a8_space_names(); *name; name++) {
        CALL(ctx, w8a8_space_enumerate(ctx, *name, &bad, "sm_90a", &result));
        w8a8_space_result_free(&result);
        /* A config buffer too small for any configuration but "" (a space without params). */
        CALL(ctx, w8a8_space_default(ctx, *name, &p, "sm_90a", config, 1));
        ck_assert_uint_lt(strlen(config), 1);
        CALL(ctx, w8a8_space_compile_plan(ctx, *name, "sm_90a", SIZE_MAX, &plan));
        w8a8_space_plan_free(&plan);
    }
    robust_env_end(&env);
}
END_TEST

/* ---- the cache ----------------------------------------------------------------------------- */

static int count_rows(void *user, const w8a8_cache_entry *entry)
{
    (void)entry;
    ++*(int *)user;
    return 0;
}

START_TEST(cache_bad_input)
{
    robust_env env;
    w8a8_context *ctx = robust_env_begin(&env);
    const char *dir = env.dir;
    char path[1024], dst[1024];
    robust_make_hostile_files(dir);
    w8a8_problem p = robust_good_problem();
    w8a8_explain explain;
    int64_t count = 0;
    int visited = 0;
    /* Filters of garbage. */
    w8a8_problem garbage;
    memset(&garbage, 0xA5, sizeof garbage);
    w8a8_cache_filter filter = {0xFFFFFFFFu, &garbage, "\xff\xfe", robust_long_text};
    CALL(ctx, w8a8_cache_list(ctx, &filter, count_rows, &visited));
    filter = (w8a8_cache_filter){W8A8_CACHE_UNTUNED, NULL, "", ""};
    CALL(ctx, w8a8_cache_list(ctx, &filter, count_rows, &visited));
    /* Explain with a device whose strings are not terminated, and other garbage. */
    w8a8_cache_device device;
    memset(&device, 'x', sizeof device);
    CALL(ctx, w8a8_cache_explain_device(ctx, &p, &device, &explain));
    memset(&device, 0xFF, sizeof device);
    CALL(ctx, w8a8_cache_explain_device(ctx, &garbage, &device, &explain));
    EXPECT(ctx, w8a8_cache_explain_device(ctx, &p, NULL, &explain), W8A8_NO_DEVICE);
    w8a8_problem bad = p;
    bad.m = INT64_MAX;
    CALL(ctx, w8a8_cache_explain_device(ctx, &bad, &device, &explain));
    bad.m = -1;
    EXPECT(ctx, w8a8_cache_explain_device(ctx, &bad, &device, &explain), W8A8_INVALID);
    /* Export: bad strings, folders, unwritable places. */
    for (int i = 0; robust_bad_string(i) != ROBUST_BAD_STRING_END; i++)
        FAILS(ctx, w8a8_cache_export(ctx, robust_bad_string(i), 0, &count));
    static const char *const exports[] = {"folder.sql", "garbage.db/x.sql", "x.txt", "x.db",
                                          "x.SQL", ".sql"};
    for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, exports[i]);
        w8a8_status st = CALL(ctx, w8a8_cache_export(ctx, path, 0xFFFFFFFFu, &count));
        if (i < 5)
            ck_assert_int_ne(st, W8A8_OK);
    }
    /* Import: bad strings, missing, folders, garbage, an .sql that drops tables. */
    for (int i = 0; robust_bad_string(i) != ROBUST_BAD_STRING_END; i++)
        FAILS(ctx, w8a8_cache_import(ctx, robust_bad_string(i), &count));
    static const char *const imports[] = {"garbage.db", "garbage.sql", "drop.sql", "folder.db",
                                          "folder.sql", "truncated.db", "garbage.lua",
                                          "missing.db", "missing.sql", "unreadable.lua"};
    for (size_t i = 0; i < sizeof imports / sizeof imports[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, imports[i]);
        w8a8_status st = CALL(ctx, w8a8_cache_import(ctx, path, &count));
        if (i < 5) /* the others may legitimately add nothing (an empty or missing file) */
            ck_assert_int_ne(st, W8A8_OK);
        ck_assert_int_eq(count, 0);
    }
    /* Merge: every source hostile in turn, NULL entries, hostile destinations. */
    snprintf(dst, sizeof dst, "%s/merged.db", dir);
    for (size_t i = 0; i < sizeof imports / sizeof imports[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, imports[i]);
        const char *srcs[3] = {path, NULL, path};
        CALL(ctx, w8a8_cache_merge(ctx, dst, srcs, 1, &count));
        FAILS(ctx, w8a8_cache_merge(ctx, dst, srcs, 3, &count));
        ck_assert_int_eq(count, 0);
        snprintf(dst, sizeof dst, "%s/%s", dir, imports[i]);
        const char *none[1] = {NULL};
        FAILS(ctx, w8a8_cache_merge(ctx, dst, none, 1, &count));
        snprintf(dst, sizeof dst, "%s/merged.db", dir);
    }
    for (int i = 0; robust_bad_string(i) != ROBUST_BAD_STRING_END; i++) {
        const char *srcs[1] = {robust_bad_string(i)};
        FAILS(ctx, w8a8_cache_merge(ctx, dst, srcs, 1, &count));
        if (i <= 3) /* NULL, "", too long: the others would name a new file in the cwd */
            FAILS(ctx, w8a8_cache_merge(ctx, robust_bad_string(i), srcs, 0, &count));
    }
    /* Prune with every option set to extremes. */
    w8a8_cache_prune_options prune = {.keep_winners = -1, .stale = 77, .older_than = INT64_MIN};
    CALL(ctx, w8a8_cache_prune(ctx, &prune, &count));
    prune.older_than = INT64_MAX;
    CALL(ctx, w8a8_cache_prune(ctx, &prune, &count));
    ck_assert_ptr_nonnull(w8a8_cache_warnings(ctx));
    robust_env_end(&env);
}
END_TEST

int main(void)
{
    robust_fill_long_text(); /* before the forks */
    Suite *s = suite_create("robustness");
    TCase *api = tcase_create("api");
    tcase_set_timeout(api, 300);
    tcase_add_test(api, enums_and_names);
    tcase_add_test(api, null_context);
    tcase_add_test(api, null_arguments);
    tcase_add_test(api, hostile_context_options);
    tcase_add_test(api, kernel_compile_bad_strings);
    tcase_add_test(api, space_bad_strings_and_files);
    tcase_add_test(api, cache_bad_input);
    suite_add_tcase(s, api);
    return test_run_suite(s);
}
