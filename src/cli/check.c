/* w8a8 check: runs the reference kernel on the GPU over random problems of every trait
 * combination (dtype pair × scale granularities × out dtype × bias × zero point) and compares
 * each with the CPU reference, printing the worst relative error per case class. The same
 * problem generator drives tests/check_gpu_reference.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "problem_gen.h"

#define CHECK_DEFAULT_SEED 1
#define CHECK_MAX_FAILURES_SHOWN 20
#define CHECK_DESCRIPTION_BYTES 320

typedef struct check_options {
    bool json;
    unsigned long long seed;
    int count; /* 0 = one problem per trait combination */
} check_options;

typedef struct check_class {
    int cases, failures;
    double worst_rel, worst_ratio; /* rel_error and rel_error / tolerance */
} check_class;

typedef struct check_report {
    check_class classes[PGEN_CLASS_COUNT];
    int cases, failures;
    char failed[CHECK_MAX_FAILURES_SHOWN][CHECK_DESCRIPTION_BYTES];
} check_report;

static int check_usage(void)
{
    printf("usage: w8a8 check [--count N] [--seed N] [--json]\n"
           "Runs the reference kernel on the GPU over random problems of every dtype pair,\n"
           "scale granularity, out dtype, bias and zero point, compares each with the CPU\n"
           "reference and prints the worst relative error per case class. Exits 1 if any\n"
           "problem exceeds its bound. Without a device it says \"no CUDA device\" and exits 0.\n"
           "  --count N   problems to run (default: one per trait combination, %d)\n"
           "  --seed N    random seed (default %d)\n"
           "  --json      one JSON object instead of the table\n",
           pgen_trait_count(), CHECK_DEFAULT_SEED);
    return 0;
}

/* Returns -1 to go on, else the exit status. */
static int check_parse(int argc, char **argv, check_options *o)
{
    o->json = false;
    o->seed = CHECK_DEFAULT_SEED;
    o->count = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char *end = NULL;
        if (strcmp(arg, "--json") == 0) {
            o->json = true;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            return check_usage();
        } else if (strcmp(arg, "--seed") == 0 && i + 1 < argc) {
            o->seed = strtoull(argv[++i], &end, 10);
            if (!*argv[i] || *end)
                return cli_usage_error("check: --seed wants a number, not '%s'", argv[i]);
        } else if (strcmp(arg, "--count") == 0 && i + 1 < argc) {
            long value = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || value < 1 || value > 1000000)
                return cli_usage_error("check: --count wants 1…1000000, not '%s'", argv[i]);
            o->count = (int)value;
        } else {
            return cli_usage_error("check: unknown or incomplete option '%s'", arg);
        }
    }
    return -1;
}

/* GPU and CPU on one case; both outputs poisoned first. */
static w8a8_status check_case(w8a8_context *ctx, const pgen_case *c, pgen_result *result)
{
    unsigned char *gpu_out = malloc(c->out_bytes), *cpu_out = malloc(c->out_bytes);
    w8a8_status st = W8A8_NO_MEMORY;
    if (gpu_out && cpu_out) {
        memset(cpu_out, 0xFF, c->out_bytes);
        st = pgen_run_reference_gpu(ctx, c, gpu_out);
        w8a8_tensors t = pgen_case_tensors(c, cpu_out);
        if (st == W8A8_OK)
            st = w8a8_scaled_mm_cpu(ctx, &c->problem, &t);
        if (st == W8A8_OK)
            pgen_compare(&c->problem, gpu_out, cpu_out, result);
    }
    free(gpu_out);
    free(cpu_out);
    return st;
}

static void check_record(check_report *report, const w8a8_problem *p, const pgen_result *r)
{
    check_class *cl = &report->classes[pgen_class_index(p)];
    cl->cases++;
    report->cases++;
    cl->worst_rel = fmax(cl->worst_rel, r->rel_error);
    cl->worst_ratio = fmax(cl->worst_ratio, r->rel_error / r->tolerance);
    if (r->ok)
        return;
    cl->failures++;
    if (report->failures < CHECK_MAX_FAILURES_SHOWN) {
        char text[CHECK_DESCRIPTION_BYTES - 64];
        pgen_problem_describe(p, text, sizeof text);
        snprintf(report->failed[report->failures], CHECK_DESCRIPTION_BYTES,
                 "%s: rel %.3e > %.3e, %lld non-finite, %lld padding bytes", text, r->rel_error,
                 r->tolerance, (long long)r->bad_values, (long long)r->bad_padding);
    }
    report->failures++;
}

static w8a8_status check_run(w8a8_context *ctx, const check_options *o, check_report *report)
{
    int count = o->count ? o->count : pgen_trait_count();
    w8a8_problem *problems = calloc((size_t)count, sizeof *problems);
    if (!problems)
        return W8A8_NO_MEMORY;
    pgen_rng rng;
    pgen_rng_seed(&rng, o->seed);
    for (int i = 0; i < count; i++)
        pgen_problem(&rng, i, &problems[i]);
    bool progress = cli_is_tty() && !o->json;
    if (progress)
        fprintf(stderr, "check: compiling reference kernels…\r");
    pgen_prewarm(ctx, problems, count);
    w8a8_status st = W8A8_OK;
    for (int i = 0; i < count && st == W8A8_OK; i++) {
        pgen_case c;
        pgen_result r;
        st = pgen_case_create(ctx, &rng, &problems[i], &c);
        if (st == W8A8_OK)
            st = check_case(ctx, &c, &r);
        if (st == W8A8_OK)
            check_record(report, &problems[i], &r);
        pgen_case_destroy(&c);
        if (progress)
            fprintf(stderr, "\rcheck: %d/%d problems  ", i + 1, count);
    }
    if (progress)
        fprintf(stderr, "\n");
    free(problems);
    return st;
}

static void check_print_text(const check_report *report)
{
    printf("%-24s %6s %12s %10s %s\n", "class", "cases", "worst rel", "of bound", "failed");
    for (int i = 0; i < PGEN_CLASS_COUNT; i++) {
        const check_class *cl = &report->classes[i];
        if (!cl->cases)
            continue;
        char name[64];
        pgen_class_name(i, name, sizeof name);
        printf("%-24s %6d %12.3e %9.1f%% %d\n", name, cl->cases, cl->worst_rel,
               100.0 * cl->worst_ratio, cl->failures);
    }
    for (int i = 0; i < report->failures && i < CHECK_MAX_FAILURES_SHOWN; i++)
        printf("FAIL %s\n", report->failed[i]);
    printf("%d problems, %d failed\n", report->cases, report->failures);
}

static void check_print_json(const check_report *report, const check_options *o)
{
    printf("{\"has_device\": true, \"seed\": %llu, \"problems\": %d, \"failures\": %d, "
           "\"classes\": [", o->seed, report->cases, report->failures);
    bool first = true;
    for (int i = 0; i < PGEN_CLASS_COUNT; i++) {
        const check_class *cl = &report->classes[i];
        if (!cl->cases)
            continue;
        char name[64];
        pgen_class_name(i, name, sizeof name);
        printf("%s{\"class\": ", first ? "" : ", ");
        cli_json_string(stdout, name);
        printf(", \"cases\": %d, \"worst_rel\": %.6e, \"bound_fraction\": %.6f, \"failures\": %d}",
               cl->cases, cl->worst_rel, cl->worst_ratio, cl->failures);
        first = false;
    }
    printf("], \"failed\": [");
    for (int i = 0; i < report->failures && i < CHECK_MAX_FAILURES_SHOWN; i++) {
        printf("%s", i ? ", " : "");
        cli_json_string(stdout, report->failed[i]);
    }
    printf("]}\n");
}

static int check_no_device(w8a8_context *ctx, bool json)
{
    w8a8_device_info info;
    const char *why = "no CUDA device";
    if (w8a8_context_device_info(ctx, &info) == W8A8_OK && info.no_device_reason[0])
        why = info.no_device_reason;
    if (json) {
        printf("{\"has_device\": false, \"reason\": ");
        cli_json_string(stdout, why);
        printf("}\n");
    } else {
        printf("%s; nothing to check\n", why);
    }
    return 0;
}

int cmd_check(int argc, char **argv)
{
    check_options o;
    int rc = check_parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    w8a8_context *ctx = cli_open(0);
    if (!ctx)
        return 1;
    if (!w8a8_context_has_device(ctx)) {
        rc = check_no_device(ctx, o.json);
        w8a8_context_close(ctx);
        return rc;
    }
    check_report *report = calloc(1, sizeof *report);
    if (!report) {
        w8a8_context_close(ctx);
        return cli_fail("check: out of memory");
    }
    w8a8_status st = check_run(ctx, &o, report);
    if (st != W8A8_OK) {
        rc = cli_fail_ctx(ctx, st);
    } else {
        if (o.json)
            check_print_json(report, &o);
        else
            check_print_text(report);
        rc = report->failures ? cli_fail("check: %d of %d problems differ from the CPU reference",
                                         report->failures, report->cases)
                              : 0;
    }
    free(report);
    w8a8_context_close(ctx);
    return rc;
}
