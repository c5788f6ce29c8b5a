/* `w8a8 cache`: list, show, explain, export, import, merge and prune the tuning databases.
 * Global options anywhere on the line: --db PATH (the user database; sets W8A8_CACHE_DB for
 * this run) and --json (listings print one JSON object per line). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

#define SECONDS_PER_DAY 86400

static const char usage_text[] =
    "usage: w8a8 cache [--db PATH] [--json] <subcommand> …\n"
    "  list [--all] [--untuned] [--arch SM] [--device NAME]\n"
    "        each key's winner in every layer (--all: every measurement; --untuned: the keys\n"
    "        record mode saw miss)\n"
    "  show M,N,K [--dtype T] [--out T] [--scale A,B] [--accum A] [--arch SM] [--device NAME]\n"
    "        every measurement of one key (M is rounded up to its bucket)\n"
    "  explain M,N,K … [--dtype T] [--out T] [--scale A,B] [--accum A]\n"
    "        [--on ARCH:NAME:SMS:BYTES]\n"
    "        the kernel the dispatcher would run and why (--on: the cache's answer for\n"
    "        another device, no GPU needed)\n"
    "  export FILE.sql|FILE.csv [--winners]   write the user database as SQL or CSV\n"
    "  import FILE.sql|FILE.db                add a file's rows to the user database\n"
    "  merge DST.db SRC…                      DST = DST ∪ SRC… (duplicates skipped)\n"
    "  prune [--stale] [--keep-winners] [--older-than DAYS]\n"
    "        delete rows of the user database\n";

/* The command line after the global options are taken out. */
typedef struct cache_args {
    int argc;
    char **argv; /* malloc'ed, argc entries at most those of the command line */
    bool json;
    const char *db; /* --db's path, or NULL */
} cache_args;

static int usage_error(const char *message, const char *arg)
{
    cli_usage_error("cache: %s%s%s", message, arg ? " " : "", arg ? arg : "");
    fputs(usage_text, stderr);
    return 2;
}

/* ---- printing ------------------------------------------------------------------------------- */

static void json_number(FILE *f, const char *name, double value)
{
    fprintf(f, ",\"%s\":", name);
    if (isfinite(value))
        fprintf(f, "%.17g", value);
    else
        fputs("null", f);
}

static void json_text(FILE *f, const char *name, const char *value)
{
    fprintf(f, ",\"%s\":", name);
    cli_json_string(f, value);
}

static const char *azp_name(w8a8_azp_kind azp)
{
    return azp == W8A8_AZP_TOKEN ? "token" : azp == W8A8_AZP_TENSOR ? "tensor" : "none";
}

static void print_entry_json(const w8a8_cache_entry *e)
{
    const w8a8_problem *p = &e->problem;
    fputs("{\"source\":", stdout);
    cli_json_string(stdout, e->source);
    json_text(stdout, "arch", e->device.arch);
    json_text(stdout, "device", e->device.name);
    printf(",\"sm_count\":%d,\"memory_bytes\":%llu", e->device.sm_count,
           (unsigned long long)e->device.memory_bytes);
    json_text(stdout, "a_type", w8a8_dtype_name(p->a_type));
    json_text(stdout, "b_type", w8a8_dtype_name(p->b_type));
    json_text(stdout, "out_type", w8a8_dtype_name(p->out_type));
    json_text(stdout, "bias_type", w8a8_dtype_name(p->bias_type));
    json_text(stdout, "a_scale", w8a8_scale_kind_name(p->a_scale.kind));
    json_text(stdout, "b_scale", w8a8_scale_kind_name(p->b_scale.kind));
    printf(",\"a_group_rows\":%d,\"a_group_k\":%d,\"b_group_rows\":%d,\"b_group_k\":%d,"
           "\"a_k_major\":%d",
           p->a_scale.group_rows, p->a_scale.group_k, p->b_scale.group_rows, p->b_scale.group_k,
           p->a_scale.k_major);
    json_text(stdout, "azp", azp_name(p->azp));
    printf(",\"n\":%lld,\"k\":%lld,\"m_bucket\":%lld", (long long)p->n, (long long)p->k,
           (long long)p->m);
    json_text(stdout, "accum", w8a8_accum_name(p->accum));
    json_text(stdout, "status", e->status);
    if (strcmp(e->status, "untuned") == 0) {
        printf(",\"count\":%lld,\"last_m\":%lld}\n", (long long)e->untuned_count,
               (long long)e->last_m);
        return;
    }
    json_text(stdout, "family", e->family);
    json_text(stdout, "config", e->config);
    json_number(stdout, "median_us", e->median_us);
    json_number(stdout, "spread_us", e->spread_us);
    printf(",\"samples\":%d", e->samples);
    json_number(stdout, "verify_error", e->verify_error);
    printf(",\"verified\":%s,\"registers\":%d,\"spills\":%d", e->verified ? "true" : "false",
           e->registers, e->spills);
    json_number(stdout, "compile_ms", e->compile_ms);
    json_text(stdout, "template_hash", e->template_hash);
    printf(",\"driver_version\":%d,\"nvrtc_version\":%d", e->driver_version, e->nvrtc_version);
    json_text(stdout, "lib_version", e->lib_version);
    printf(",\"timestamp\":%lld,\"winner\":%s}\n", (long long)e->timestamp,
           e->is_winner ? "true" : "false");
}

/* "e4m3→bf16 tensor/row" plus bias and zero point when present. */
static void problem_label(const w8a8_problem *p, char *out, size_t size)
{
    int used = snprintf(out, size, "%s", w8a8_dtype_name(p->a_type));
    if (p->b_type != p->a_type)
        used += snprintf(out + used, size - (size_t)used, "×%s", w8a8_dtype_name(p->b_type));
    used += snprintf(out + used, size - (size_t)used, "→%s %s/%s", w8a8_dtype_name(p->out_type),
                     w8a8_scale_kind_name(p->a_scale.kind), w8a8_scale_kind_name(p->b_scale.kind));
    if (p->bias_type != W8A8_DTYPE_NONE)
        used += snprintf(out + used, size - (size_t)used, " +bias:%s",
                         w8a8_dtype_name(p->bias_type));
    if (p->azp != W8A8_AZP_NONE)
        used += snprintf(out + used, size - (size_t)used, " azp:%s", azp_name(p->azp));
    if (p->accum == W8A8_ACCUM_PROMOTED)
        snprintf(out + used, size - (size_t)used, " promoted");
}

static int print_entry(void *user, const w8a8_cache_entry *e)
{
    if (*(bool *)user) {
        print_entry_json(e);
        return 0;
    }
    char label[128];
    problem_label(&e->problem, label, sizeof label);
    printf("%-6s %s (%d SMs)  %s  N=%lld K=%lld M≤%lld  ", e->device.arch, e->device.name,
           e->device.sm_count, label, (long long)e->problem.n, (long long)e->problem.k,
           (long long)e->problem.m);
    if (strcmp(e->status, "untuned") == 0)
        printf("missed %lld× (last M=%lld)\n", (long long)e->untuned_count, (long long)e->last_m);
    else
        printf("%s %s  %.3f us ±%.3f  %s%s  [%s]\n", e->family, e->config, e->median_us,
               e->spread_us, e->status, e->is_winner ? " *" : "", e->source);
    return 0;
}

static void print_warnings(w8a8_context *ctx)
{
    const char *warnings = w8a8_cache_warnings(ctx);
    while (warnings && *warnings) {
        const char *end = strchr(warnings, '\n');
        int length = end ? (int)(end - warnings) : (int)strlen(warnings);
        fprintf(stderr, "w8a8: warning: %.*s\n", length, warnings);
        warnings += length + (end ? 1 : 0);
    }
}

/* ---- list and show -------------------------------------------------------------------------- */

/* Options shared by list, show and explain; returns 1 consumed, 0 not ours, -1 error. */
typedef struct listing_options {
    w8a8_cache_filter filter;
    cli_problem_spec spec;
    long long (*shapes)[3]; /* malloc'ed: as many as the arguments, at most */
    size_t shape_count;
    const char *on;
    bool all;
} listing_options;

static int listing_option(cache_args *a, int *i, listing_options *o)
{
    const char *arg = a->argv[*i];
    int consumed = cli_problem_option(a->argc, a->argv, i, &o->spec);
    if (consumed != 0)
        return consumed;
    bool takes_value = strcmp(arg, "--arch") == 0 || strcmp(arg, "--device") == 0 ||
                       strcmp(arg, "--on") == 0;
    if (takes_value && *i + 1 >= a->argc) {
        usage_error("this option needs a value:", arg);
        return -1;
    }
    if (strcmp(arg, "--arch") == 0)
        o->filter.arch = a->argv[++*i];
    else if (strcmp(arg, "--device") == 0)
        o->filter.device_name = a->argv[++*i];
    else if (strcmp(arg, "--on") == 0)
        o->on = a->argv[++*i];
    else if (strcmp(arg, "--all") == 0)
        o->all = true;
    else if (strcmp(arg, "--untuned") == 0)
        o->filter.flags |= W8A8_CACHE_UNTUNED;
    else if (arg[0] != '-') {
        long long *s = o->shapes[o->shape_count];
        if (!cli_parse_shape(arg, &s[0], &s[1], &s[2])) {
            usage_error("expected M,N,K, got", arg);
            return -1;
        }
        o->shape_count++;
    } else {
        usage_error("unknown option", arg);
        return -1;
    }
    return 1;
}

static int parse_listing(cache_args *a, listing_options *o)
{
    memset(o, 0, sizeof *o);
    o->shapes = malloc((size_t)(a->argc > 0 ? a->argc : 1) * sizeof *o->shapes);
    if (!o->shapes) {
        cli_fail("out of memory");
        return -1;
    }
    o->spec.ab_type = W8A8_E4M3;
    o->spec.out_type = W8A8_BF16;
    o->spec.a_scale = o->spec.b_scale = W8A8_SCALE_TENSOR;
    for (int i = 1; i < a->argc; i++)
        if (listing_option(a, &i, o) < 0)
            return -1;
    return 0;
}

static int list_or_show(cache_args *a, listing_options *o_in, bool show);

static int cache_list_or_show(cache_args *a, bool show)
{
    listing_options o;
    int rc = parse_listing(a, &o) < 0 ? 2 : list_or_show(a, &o, show);
    free(o.shapes);
    return rc;
}

static int list_or_show(cache_args *a, listing_options *o_in, bool show)
{
    listing_options o = *o_in;
    if (show != (o.shape_count == 1))
        return usage_error(show ? "show needs one M,N,K" : "list takes no shape", NULL);
    if (!show && !o.all && !(o.filter.flags & W8A8_CACHE_UNTUNED))
        o.filter.flags |= W8A8_CACHE_WINNERS;
    w8a8_problem problem;
    if (show) {
        cli_problem_make(&problem, o.shapes[0][0], o.shapes[0][1], o.shapes[0][2], &o.spec);
        o.filter.problem = &problem;
    }
    w8a8_context *ctx = cli_open(W8A8_CONTEXT_CPU_ONLY);
    if (!ctx)
        return 1;
    w8a8_status st = w8a8_cache_list(ctx, &o.filter, print_entry, &a->json);
    print_warnings(ctx);
    int rc = st == W8A8_OK ? 0 : cli_fail_ctx(ctx, st);
    w8a8_context_close(ctx);
    return rc;
}

/* ---- explain -------------------------------------------------------------------------------- */

/* "ARCH:NAME:SMS:BYTES" (NAME may not contain ':'); false if malformed. */
static bool parse_device(const char *text, w8a8_cache_device *d)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL, *arch = strtok_r(copy, ":", &save), *name = strtok_r(NULL, ":", &save);
    char *sms = strtok_r(NULL, ":", &save), *bytes = strtok_r(NULL, ":", &save);
    if (!arch || !name || !sms || !bytes || strtok_r(NULL, ":", &save))
        return false;
    memset(d, 0, sizeof *d);
    snprintf(d->arch, sizeof d->arch, "%s", arch);
    snprintf(d->name, sizeof d->name, "%s", name);
    char *end = NULL;
    d->sm_count = (int)strtol(sms, &end, 10);
    if (*end || d->sm_count <= 0)
        return false;
    d->memory_bytes = strtoull(bytes, &end, 10);
    return *end == '\0';
}

static void print_explain(const long long *shape, const w8a8_explain *e, bool json)
{
    if (!json) {
        printf("%lld,%lld,%lld  %s", shape[0], shape[1], shape[2], e->match);
        if (e->family[0])
            printf("  %s %s", e->family, e->config);
        printf("  — %s%s%s%s\n", e->reason, e->source[0] ? " [" : "", e->source,
               e->source[0] ? "]" : "");
        return;
    }
    printf("{\"m\":%lld,\"n\":%lld,\"k\":%lld,\"m_bucket\":%lld", shape[0], shape[1], shape[2],
           (long long)e->m_bucket);
    json_text(stdout, "match", e->match);
    json_text(stdout, "device_match", e->device_match);
    printf(",\"foreign\":%s", e->foreign ? "true" : "false");
    json_text(stdout, "family", e->family);
    json_text(stdout, "config", e->config);
    printf(",\"measured_bucket\":%lld", (long long)e->measured_bucket);
    json_number(stdout, "median_us", e->median_us);
    json_text(stdout, "device", e->device_name);
    json_text(stdout, "source", e->source);
    json_text(stdout, "reason", e->reason);
    fputs("}\n", stdout);
}

static int explain(cache_args *a, listing_options *o_in);

static int cache_explain(cache_args *a)
{
    listing_options o;
    int rc = parse_listing(a, &o) < 0 ? 2 : explain(a, &o);
    free(o.shapes);
    return rc;
}

static int explain(cache_args *a, listing_options *o_in)
{
    listing_options o = *o_in;
    if (o.shape_count == 0)
        return usage_error("explain needs at least one M,N,K", NULL);
    w8a8_cache_device device;
    if (o.on && !parse_device(o.on, &device))
        return usage_error("--on wants ARCH:NAME:SMS:BYTES, got", o.on);
    w8a8_context *ctx = cli_open(o.on ? W8A8_CONTEXT_CPU_ONLY : 0);
    if (!ctx)
        return 1;
    int rc = 0;
    for (size_t i = 0; i < o.shape_count && rc == 0; i++) {
        w8a8_problem p;
        w8a8_explain e;
        cli_problem_make(&p, o.shapes[i][0], o.shapes[i][1], o.shapes[i][2], &o.spec);
        w8a8_status st = o.on ? w8a8_cache_explain_device(ctx, &p, &device, &e)
                              : w8a8_dispatch_explain(ctx, &p, &e);
        if (st != W8A8_OK)
            rc = cli_fail_ctx(ctx, st);
        else
            print_explain(o.shapes[i], &e, a->json);
    }
    print_warnings(ctx);
    w8a8_context_close(ctx);
    return rc;
}

/* ---- export, import, merge, prune ----------------------------------------------------------- */

static int cache_export(cache_args *a)
{
    const char *path = NULL;
    uint32_t flags = 0;
    for (int i = 1; i < a->argc; i++) {
        if (strcmp(a->argv[i], "--winners") == 0)
            flags |= W8A8_CACHE_WINNERS;
        else if (a->argv[i][0] == '-' || path)
            return usage_error("export: unexpected", a->argv[i]);
        else
            path = a->argv[i];
    }
    if (!path)
        return usage_error("export needs FILE.sql or FILE.csv", NULL);
    w8a8_context *ctx = cli_open(W8A8_CONTEXT_CPU_ONLY);
    if (!ctx)
        return 1;
    int64_t rows = 0;
    w8a8_status st = w8a8_cache_export(ctx, path, flags, &rows);
    int rc = st == W8A8_OK ? 0 : cli_fail_ctx(ctx, st);
    if (rc == 0)
        fprintf(stderr, "w8a8: exported %lld row%s to %s\n", (long long)rows, rows == 1 ? "" : "s",
                path);
    w8a8_context_close(ctx);
    return rc;
}

static int cache_import_or_merge(cache_args *a, bool merge)
{
    int first = 1;
    for (int i = 1; i < a->argc; i++)
        if (a->argv[i][0] == '-')
            return usage_error("unknown option", a->argv[i]);
    if (merge ? a->argc < 3 : a->argc != 2)
        return usage_error(merge ? "merge needs DST and at least one SRC" : "import needs one FILE",
                           NULL);
    w8a8_context *ctx = cli_open(W8A8_CONTEXT_CPU_ONLY);
    if (!ctx)
        return 1;
    int64_t added = 0;
    w8a8_status st = merge ? w8a8_cache_merge(ctx, a->argv[first],
                                              (const char *const *)&a->argv[first + 1],
                                              (size_t)(a->argc - first - 1), &added)
                           : w8a8_cache_import(ctx, a->argv[first], &added);
    int rc = st == W8A8_OK ? 0 : cli_fail_ctx(ctx, st);
    if (rc == 0)
        fprintf(stderr, "w8a8: %lld new measurement%s\n", (long long)added, added == 1 ? "" : "s");
    w8a8_context_close(ctx);
    return rc;
}

static int cache_prune(cache_args *a)
{
    w8a8_cache_prune_options o = {0};
    for (int i = 1; i < a->argc; i++) {
        const char *arg = a->argv[i];
        if (strcmp(arg, "--stale") == 0) {
            o.stale = 1;
        } else if (strcmp(arg, "--keep-winners") == 0) {
            o.keep_winners = 1;
        } else if (strcmp(arg, "--older-than") == 0 && i + 1 < a->argc) {
            char *end = NULL;
            double days = strtod(a->argv[++i], &end);
            if (*end || !(days > 0))
                return usage_error("--older-than wants a positive number of days, got",
                                   a->argv[i]);
            o.older_than = (int64_t)time(NULL) - (int64_t)(days * SECONDS_PER_DAY);
        } else {
            return usage_error("prune: unexpected", arg);
        }
    }
    if (!o.stale && !o.keep_winners && !o.older_than)
        return usage_error("prune needs --stale, --keep-winners or --older-than DAYS", NULL);
    w8a8_context *ctx = cli_open(W8A8_CONTEXT_CPU_ONLY);
    if (!ctx)
        return 1;
    int64_t removed = 0;
    w8a8_status st = w8a8_cache_prune(ctx, &o, &removed);
    int rc = st == W8A8_OK ? 0 : cli_fail_ctx(ctx, st);
    if (rc == 0)
        fprintf(stderr, "w8a8: removed %lld measurement%s\n", (long long)removed,
                removed == 1 ? "" : "s");
    w8a8_context_close(ctx);
    return rc;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

/* Takes --db and --json out of argv[1..]; the subcommand becomes a->argv[0]. */
static int split_globals(int argc, char **argv, cache_args *a)
{
    memset(a, 0, sizeof *a);
    a->argv = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *a->argv);
    if (!a->argv) {
        cli_fail("out of memory");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            a->json = true;
        } else if (strcmp(argv[i], "--db") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return usage_error("--db needs a path", NULL);
            a->db = argv[++i];
            setenv("W8A8_CACHE_DB", a->db, 1);
        } else {
            a->argv[a->argc++] = argv[i];
        }
    }
    return 0;
}

static int cache_dispatch(cache_args *a);

/* A --db naming no file reads as an empty user database (one is created only where rows are
 * written): the reading subcommands say so, or a mistyped path would list nothing and exit 0. */
static void warn_missing_db(const char *path)
{
    struct stat st;
    if (path && stat(path, &st) != 0 && errno == ENOENT)
        fprintf(stderr, "w8a8: warning: %s: no such file; the user database reads as empty\n",
                path);
}

int cmd_cache(int argc, char **argv)
{
    cache_args a;
    int rc = split_globals(argc, argv, &a) != 0 ? 2 : cache_dispatch(&a);
    free(a.argv);
    return rc;
}

static int cache_dispatch(cache_args *a_in)
{
    cache_args a = *a_in;
    if (a.argc == 0)
        return usage_error("which subcommand?", NULL);
    const char *sub = a.argv[0];
    /* `cache SUB --help` too: the usage text covers every subcommand */
    bool help = strcmp(sub, "help") == 0;
    for (int i = 0; i < a.argc && !help; i++)
        help = strcmp(a.argv[i], "--help") == 0 || strcmp(a.argv[i], "-h") == 0;
    if (help) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(sub, "list") == 0 || strcmp(sub, "show") == 0 || strcmp(sub, "explain") == 0 ||
        strcmp(sub, "export") == 0)
        warn_missing_db(a.db);
    if (strcmp(sub, "list") == 0)
        return cache_list_or_show(&a, false);
    if (strcmp(sub, "show") == 0)
        return cache_list_or_show(&a, true);
    if (strcmp(sub, "explain") == 0)
        return cache_explain(&a);
    if (strcmp(sub, "export") == 0)
        return cache_export(&a);
    if (strcmp(sub, "import") == 0)
        return cache_import_or_merge(&a, false);
    if (strcmp(sub, "merge") == 0)
        return cache_import_or_merge(&a, true);
    if (strcmp(sub, "prune") == 0)
        return cache_prune(&a);
    return usage_error("unknown subcommand", sub);
}
