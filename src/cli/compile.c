/* w8a8 compile: builds kernels with NVRTC without a GPU — named templates with given defines,
 * every valid config of a space (--space FILE), every embedded space's compile set (--all), or
 * every winner of the tuning caches (--winners) — and prints registers, shared memory, spills
 * and compile time per kernel. With --rank it compiles nothing and prints a space's ranked
 * configs for given shapes instead. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gemm.h"
#include "jit.h"
#include "quant.h"
#include "space.h"
#include "tune.h"

typedef struct job {
    char template_name[64];
    char label[768];   /* what the user sees: the config, or the defines */
    char defines[768]; /* what the template gets */
    w8a8_kernel_info info;
    w8a8_status status;
    char error[512];
} job;

typedef struct job_list {
    job *items;
    size_t count, cap;
    const char *arch;
    w8a8_context *ctx;
    size_t next, done;
    pthread_mutex_t lock;
    bool json, progress;
} job_list;

static job *job_add(job_list *l)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        job *grown = realloc(l->items, cap * sizeof *grown);
        if (!grown)
            return NULL;
        l->items = grown;
        l->cap = cap;
    }
    job *j = &l->items[l->count++];
    memset(j, 0, sizeof *j);
    return j;
}

static void job_print(const job_list *l, const job *j)
{
    if (l->json) {
        printf("{\"template\": \"%s\", \"arch\": \"%s\", \"config\": ", j->template_name, l->arch);
        cli_json_string(stdout, j->label);
        printf(", \"status\": \"%s\", \"registers\": %d, \"shared_bytes\": %d, \"spill_stores\": %d, "
               "\"spill_loads\": %d, \"stack_bytes\": %d, \"compile_ms\": %.1f, \"from_disk\": %s, "
               "\"rejected\": %s",
               j->status == W8A8_OK ? "ok" : w8a8_status_string(j->status), j->info.registers,
               j->info.shared_bytes, j->info.spill_stores, j->info.spill_loads, j->info.stack_bytes,
               j->info.compile_ms, j->info.from_disk ? "true" : "false",
               j->info.rejected ? "true" : "false");
        if (j->info.rejected) {
            printf(", \"reject_reason\": ");
            cli_json_string(stdout, j->info.reject_reason);
        }
        if (j->status != W8A8_OK) {
            printf(", \"error\": ");
            cli_json_string(stdout, j->error);
        }
        printf("}\n");
        return;
    }
    if (j->status != W8A8_OK) {
        printf("%-16s %-6s %-48s FAILED %s\n", j->template_name, l->arch, j->label, j->error);
        return;
    }
    printf("%-16s %-6s %-48s %4d regs %6d B smem %4d/%-4d spill %8.1f ms%s%s%s\n",
           j->template_name, l->arch, j->label, j->info.registers, j->info.shared_bytes,
           j->info.spill_stores, j->info.spill_loads, j->info.compile_ms,
           j->info.from_disk ? " (stored)" : "", j->info.rejected ? "  REJECTED: " : "",
           j->info.rejected ? j->info.reject_reason : "");
}

static void *worker(void *arg)
{
    job_list *l = arg;
    for (;;) {
        pthread_mutex_lock(&l->lock);
        size_t i = l->next++;
        pthread_mutex_unlock(&l->lock);
        if (i >= l->count)
            return NULL;
        job *j = &l->items[i];
        if (!j->error[0]) { /* (a job whose defines failed has its error already) */
            j->status =
                w8a8_kernel_compile(l->ctx, j->template_name, j->defines, l->arch, &j->info, NULL);
            if (j->status != W8A8_OK)
                snprintf(j->error, sizeof j->error, "%s", w8a8_errmsg(l->ctx));
        }
        pthread_mutex_lock(&l->lock);
        l->done++;
        job_print(l, j);
        if (l->progress)
            fprintf(stderr, "\r[%zu/%zu] compiled", l->done, l->count);
        fflush(stdout);
        pthread_mutex_unlock(&l->lock);
    }
}

/* Whether a job of the list from `first` on already compiles (template, defines): configs that
 * differ only in launch arguments (sm90_gemm's raster and group) share one kernel. slots is
 * an open-addressing table of job indices + 1 over those jobs, `count` slots (a power of two,
 * at least twice the jobs); the new job's index goes in when it is not a duplicate. */
static bool job_seen(const job_list *l, size_t *slots, size_t count, size_t index)
{
    const job *j = &l->items[index];
    size_t i = (size_t)util_hash_text(util_hash_text(UTIL_HASH_SEED, j->template_name),
                                      j->defines) & (count - 1);
    for (; slots[i]; i = (i + 1) & (count - 1)) {
        const job *other = &l->items[slots[i] - 1];
        if (strcmp(other->template_name, j->template_name) == 0 &&
            strcmp(other->defines, j->defines) == 0)
            return true;
    }
    slots[i] = index + 1;
    return false;
}

/* Drops the jobs from `first` on that compile a kernel an earlier one of them compiles (by
 * job_seen), keeping the first of each and the order; a job that failed before compiling
 * (its error set) always stays. */
static w8a8_status job_list_drop_repeats(w8a8_context *ctx, job_list *l, size_t first)
{
    size_t slot_count = 16;
    while (slot_count < 2 * (l->count - first))
        slot_count *= 2;
    size_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    size_t kept = first;
    for (size_t i = first; i < l->count; i++) {
        if (kept != i)
            l->items[kept] = l->items[i];
        if (l->items[kept].error[0] || !job_seen(l, slots, slot_count, kept))
            kept++;
    }
    l->count = kept;
    free(slots);
    return W8A8_OK;
}

/* Adds every (problem, config) the space wants compiled for arch, at most max_configs per
 * problem (in rank order; 0 means all), each distinct kernel once. *skipped: the space does
 * not target arch. */
static w8a8_status add_space(w8a8_context *ctx, job_list *l, const char *name_or_path,
                             size_t max_configs, bool *skipped)
{
    space *s = NULL;
    w8a8_status st = space_load(ctx, name_or_path, &s);
    if (st != W8A8_OK)
        return st;
    *skipped = !space_targets_arch(s, l->arch);
    space_device dev;
    space_compile_plan plan = {0};
    if (!*skipped && (st = space_device_nominal(ctx, l->arch, &dev)) == W8A8_OK)
        st = space_compile_plan_make(ctx, s, &dev, max_configs, &plan);
    const size_t first = l->count;
    for (size_t i = 0; st == W8A8_OK && i < plan.count; i++) {
        job *j = job_add(l);
        if (!j) {
            st = errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
            break;
        }
        snprintf(j->template_name, sizeof j->template_name, "%s", space_template(s));
        st = gemm_family_defines(gemm_family_find(space_template(s)), ctx,
                                 &plan.items[i].problem, plan.items[i].config, j->defines,
                                 sizeof j->defines);
        snprintf(j->label, sizeof j->label, "%s", j->defines);
    }
    if (st == W8A8_OK) /* configs that differ only in launch arguments share a kernel */
        st = job_list_drop_repeats(ctx, l, first);
    space_compile_plan_free(&plan);
    space_free(s);
    return st;
}

/* --winners: every key's winner in the caches (the user database and W8A8_CACHE_PATH's
 * files) whose kernel builds for the list's arch (the family's own arch, or the device's),
 * with the defines the family's plan compiles it with (gemm_family_defines: shape
 * specialization, promoted sums, rows of A), each distinct kernel once. A winner whose
 * defines cannot be made (a config its family refuses now) becomes a failed job; winners of
 * families this build does not have are counted in `unknown`. */
typedef struct winners_walk {
    job_list *l;
    size_t unknown;
    w8a8_status st;
} winners_walk;

static int add_winner(void *user, const w8a8_cache_entry *e)
{
    winners_walk *w = user;
    const gemm_family *family = gemm_family_find(e->family);
    if (!family) {
        w->unknown++;
        return 0;
    }
    if (strcmp(family->arch ? family->arch : e->device.arch, w->l->arch) != 0)
        return 0;
    job *j = job_add(w->l);
    if (!j) {
        w->st = errorf(w->l->ctx, W8A8_NO_MEMORY, "out of host memory");
        return 1;
    }
    snprintf(j->template_name, sizeof j->template_name, "%s", family->name);
    w8a8_status st = gemm_family_defines(family, w->l->ctx, &e->problem, e->config, j->defines,
                                         sizeof j->defines);
    if (st != W8A8_OK) {
        j->status = st;
        snprintf(j->error, sizeof j->error, "%s", w8a8_errmsg(w->l->ctx));
        snprintf(j->label, sizeof j->label, "%s (%lld,%lld,%lld)", e->config,
                 (long long)e->problem.m, (long long)e->problem.n, (long long)e->problem.k);
        return 0;
    }
    snprintf(j->label, sizeof j->label, "%s", j->defines);
    return 0;
}

static w8a8_status add_winners(w8a8_context *ctx, job_list *l, size_t *unknown)
{
    winners_walk w = {.l = l, .st = W8A8_OK};
    const size_t first = l->count;
    w8a8_cache_filter filter = {.flags = W8A8_CACHE_WINNERS};
    w8a8_status st = w8a8_cache_list(ctx, &filter, add_winner, &w);
    *unknown = w.unknown;
    if (st == W8A8_OK)
        st = w.st;
    /* keys whose winners build the same kernel (raster, group; shared cubins) compile once */
    return st == W8A8_OK ? job_list_drop_repeats(ctx, l, first) : st;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: w8a8 compile --arch sm_80|sm_86|sm_89|sm_90|sm_90a [options] [TEMPLATE...]\n"
            "Compiles kernels with NVRTC (no GPU needed); prints registers, shared memory,\n"
            "spills and compile time per kernel; exits 1 if any compile fails.\n"
            "  TEMPLATE...        templates to compile with --define (e.g. reference_gemm)\n"
            "  --define DEFS      NAME=VALUE,... for the named templates\n"
            "  --space FILE|NAME  every valid config of a space's compile problems\n"
            "  --all              every embedded space whose arch fits --arch, and the\n"
            "                     quantization kernels\n"
            "  --winners          every key's winner in the tuning caches ($W8A8_CACHE_DB and\n"
            "                     $W8A8_CACHE_PATH) whose kernel builds for --arch, with the\n"
            "                     defines the dispatcher compiles it with\n"
            "  --check            compile nothing: make each kernel's defines (the config\n"
            "                     parsed and checked by its family, as a plan does) and list\n"
            "                     the configs refused; exit 1 if any (e.g. --winners --check:\n"
            "                     the cache rows this build cannot run)\n"
            "  --max-configs N    per problem, the N best-ranked configs (default: all for\n"
            "                     --space, 8 for --all)\n"
            "  --jobs N           parallel NVRTC compiles (default: CPU count)\n"
            "  --json             one JSON object per kernel (per config with --rank)\n"
            "  --rank M,N,K       with --space: compile nothing; print the space's valid\n"
            "                     configs for that shape in the tuner's order (position,\n"
            "                     rank(), config; --max-configs N: the first N) on the\n"
            "                     nominal device of --arch, the space named as tune --space\n"
            "                     names it; repeatable; --dtype, --scale, --out, --accum as\n"
            "                     for tune\n");
}

#define COMPILE_MAX_RANK_SHAPES 256

typedef struct compile_args {
    const char *arch, *defines, *space;
    bool all, json, winners, check;
    long max_configs, jobs;
    const char *templates[32];
    int ntemplates;
    long long rank_shapes[COMPILE_MAX_RANK_SHAPES][3]; /* --rank M,N,K */
    size_t rank_count;
    cli_problem_spec spec;                            /* --dtype, --scale, --out, --accum */
} compile_args;

static int parse_args(int argc, char **argv, compile_args *a)
{
    memset(a, 0, sizeof *a);
    a->max_configs = -1;
    a->jobs = sysconf(_SC_NPROCESSORS_ONLN);
    a->spec.ab_type = W8A8_E4M3;
    a->spec.out_type = W8A8_BF16;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        int r = cli_problem_option(argc, argv, &i, &a->spec);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--rank") == 0 && has_value) {
            long long *shape = a->rank_shapes[a->rank_count];
            if (a->rank_count == COMPILE_MAX_RANK_SHAPES)
                return cli_usage_error("compile: at most %d --rank shapes", COMPILE_MAX_RANK_SHAPES);
            if (!cli_parse_shape(argv[++i], &shape[0], &shape[1], &shape[2]))
                return cli_usage_error("compile: --rank wants M,N,K (positive), got '%s'", argv[i]);
            a->rank_count++;
        } else if (strcmp(arg, "--arch") == 0 && has_value) {
            a->arch = argv[++i];
        } else if (strcmp(arg, "--define") == 0 && has_value) {
            a->defines = argv[++i];
        } else if (strcmp(arg, "--space") == 0 && has_value) {
            a->space = argv[++i];
        } else if ((strcmp(arg, "--max-configs") == 0 || strcmp(arg, "--jobs") == 0) &&
                   has_value) {
            const char *v = argv[++i];
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 1 || n > 1000000)
                return cli_usage_error("compile: %s wants a positive count, got '%s'", arg, v);
            if (strcmp(arg, "--jobs") == 0)
                a->jobs = n;
            else
                a->max_configs = n;
        } else if (strcmp(arg, "--all") == 0) {
            a->all = true;
        } else if (strcmp(arg, "--winners") == 0) {
            a->winners = true;
        } else if (strcmp(arg, "--json") == 0) {
            a->json = true;
        } else if (strcmp(arg, "--check") == 0) {
            a->check = true;
        } else if (arg[0] == '-') {
            return cli_usage_error("compile: unknown option or missing value: '%s'", arg);
        } else if (a->ntemplates < 32) {
            a->templates[a->ntemplates++] = arg;
        } else {
            return cli_usage_error("compile: too many templates");
        }
    }
    if (!a->arch)
        return cli_usage_error("compile: --arch is required (sm_80, sm_86, sm_89, sm_90, sm_90a)");
    if (!jit_arch_supported(a->arch))
        return cli_usage_error("compile: --arch %s is not one of sm_80, sm_86, sm_89, sm_90, "
                               "sm_90a", a->arch);
    if (!a->all && !a->space && !a->winners && a->ntemplates == 0)
        return cli_usage_error("compile: name templates, --space FILE, --all or --winners");
    if (a->rank_count && (!a->space || a->all || a->winners || a->ntemplates))
        return cli_usage_error("compile: --rank goes with --space alone");
    if (a->check && a->rank_count)
        return cli_usage_error("compile: --check compiles nothing already with --rank");
    if (a->jobs < 1)
        a->jobs = 1;
    return -1;
}

static w8a8_status collect_jobs(w8a8_context *ctx, const compile_args *a, job_list *l)
{
    w8a8_status st = W8A8_OK;
    bool skipped = false;
    for (int i = 0; i < a->ntemplates && st == W8A8_OK; i++) {
        job *j = job_add(l);
        if (!j)
            return W8A8_NO_MEMORY;
        snprintf(j->template_name, sizeof j->template_name, "%s", a->templates[i]);
        snprintf(j->defines, sizeof j->defines, "%s", a->defines ? a->defines : "");
        snprintf(j->label, sizeof j->label, "%s", a->defines ? a->defines : "(no defines)");
    }
    if (a->space)
        st = add_space(ctx, l, a->space, a->max_configs < 0 ? 0 : (size_t)a->max_configs,
                       &skipped);
    if (st == W8A8_OK && a->space && skipped)
        fprintf(stderr, "w8a8: compile: space %s does not target %s\n", a->space, a->arch);
    if (st == W8A8_OK && a->winners) {
        size_t unknown = 0;
        st = add_winners(ctx, l, &unknown);
        if (st == W8A8_OK && unknown)
            fprintf(stderr, "w8a8: compile: %zu winner%s of families this build does not have "
                            "skipped\n", unknown, unknown == 1 ? "" : "s");
    }
    if (a->all) {
        /* quant has no tuning space: its compile set lives beside its host code */
        for (size_t i = 0; quant_compile_defines(i) && st == W8A8_OK; i++) {
            job *j = job_add(l);
            if (!j)
                return W8A8_NO_MEMORY;
            snprintf(j->template_name, sizeof j->template_name, "quant");
            snprintf(j->defines, sizeof j->defines, "%s", quant_compile_defines(i));
            snprintf(j->label, sizeof j->label, "%s", j->defines);
        }
        /* nor has the tuner's verification kernel */
        for (size_t i = 0; timing_compile_defines(i) && st == W8A8_OK; i++) {
            job *j = job_add(l);
            if (!j)
                return W8A8_NO_MEMORY;
            snprintf(j->template_name, sizeof j->template_name, "%s", TIMING_VERIFY_TEMPLATE);
            snprintf(j->defines, sizeof j->defines, "%s", timing_compile_defines(i));
            snprintf(j->label, sizeof j->label, "%s", j->defines);
        }
        const char *const *names = space_builtin_names();
        for (size_t i = 0; names[i] && st == W8A8_OK; i++)
            st = add_space(ctx, l, names[i], a->max_configs < 0 ? 8 : (size_t)a->max_configs,
                           &skipped);
    }
    return st;
}

/* --rank: the space's valid configs per shape, in the tuner's order. */
static int print_ranks(w8a8_context *ctx, const compile_args *a)
{
    space *s = NULL;
    space_device dev;
    w8a8_status st = space_load(ctx, a->space, &s);
    if (st == W8A8_OK)
        st = space_device_nominal(ctx, a->arch, &dev);
    dev.named = true; /* named on the command line, as `w8a8 tune --space` names it */
    for (size_t i = 0; i < a->rank_count && st == W8A8_OK; i++) {
        const long long *shape = a->rank_shapes[i];
        w8a8_problem p;
        cli_problem_make(&p, shape[0], shape[1], shape[2], &a->spec);
        bool applies = false;
        space_enumeration e = {0};
        st = space_applies(ctx, s, &p, &dev, &applies);
        if (st == W8A8_OK && applies)
            st = space_enumerate(ctx, s, &p, &dev, &e);
        if (st != W8A8_OK)
            break;
        size_t shown = a->max_configs >= 0 && (size_t)a->max_configs < e.count
                           ? (size_t)a->max_configs : e.count;
        for (size_t j = 0; j < shown; j++) {
            if (a->json) {
                printf("{\"m\": %lld, \"n\": %lld, \"k\": %lld, \"space\": ", shape[0], shape[1],
                       shape[2]);
                cli_json_string(stdout, space_name(s));
                double rank = e.candidates[j].rank; /* math.huge is a rank; JSON has no inf */
                printf(", \"position\": %zu, \"rank\": ", j);
                if (isfinite(rank))
                    printf("%.17g", rank);
                else
                    fputs("null", stdout);
                printf(", \"config\": ");
                cli_json_string(stdout, e.candidates[j].config);
                printf("}\n");
            } else {
                printf("%lld,%lld,%lld %5zu %12.6g %s\n", shape[0], shape[1], shape[2], j,
                       e.candidates[j].rank, e.candidates[j].config);
            }
        }
        fprintf(stderr, "w8a8: %s at %lld,%lld,%lld on %s: %s%zu valid of %zu configs, %zu shown\n",
                space_name(s), shape[0], shape[1], shape[2], dev.name,
                applies ? "" : "does not apply; ", e.count, e.total, shown);
        space_enumeration_free(&e);
    }
    space_free(s);
    return st == W8A8_OK ? 0 : cli_fail_ctx(ctx, st);
}

int cmd_compile(int argc, char **argv)
{
    compile_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    w8a8_context *ctx = cli_open(W8A8_CONTEXT_CPU_ONLY);
    if (!ctx)
        return 1;
    if (a.rank_count) {
        rc = print_ranks(ctx, &a);
        w8a8_context_close(ctx);
        return rc;
    }
    job_list l = {.arch = a.arch, .ctx = ctx, .json = a.json, .progress = cli_is_tty()};
    pthread_mutex_init(&l.lock, NULL);
    w8a8_status st = collect_jobs(ctx, &a, &l);
    if (st != W8A8_OK) {
        rc = cli_fail_ctx(ctx, st);
    } else if (a.check) {
        /* the jobs whose defines could not be made hold their status and error already */
        size_t refused = 0;
        for (size_t i = 0; i < l.count; i++)
            if (l.items[i].status != W8A8_OK) {
                job_print(&l, &l.items[i]);
                refused++;
            }
        fprintf(stderr, "w8a8: checked %zu kernel%s for %s (nothing compiled): %zu refused\n",
                l.count, l.count == 1 ? "" : "s", a.arch, refused);
        rc = refused ? 1 : 0;
        if (l.count == 0)
            rc = cli_fail("compile: nothing to check for %s", a.arch);
    } else {
        double t0 = util_now();
        pthread_t threads[64];
        long n = a.jobs < 64 ? a.jobs : 64;
        for (long i = 0; i < n; i++)
            pthread_create(&threads[i], NULL, worker, &l);
        for (long i = 0; i < n; i++)
            pthread_join(threads[i], NULL);
        size_t failed = 0, rejected = 0;
        for (size_t i = 0; i < l.count; i++) {
            failed += l.items[i].status != W8A8_OK;
            rejected += l.items[i].status == W8A8_OK && l.items[i].info.rejected;
        }
        if (l.progress)
            fputc('\n', stderr);
        fprintf(stderr, "w8a8: compiled %zu kernel%s for %s in %.1f s: %zu failed, %zu rejected\n",
                l.count, l.count == 1 ? "" : "s", a.arch, util_now() - t0, failed, rejected);
        rc = failed ? 1 : 0;
        if (l.count == 0)
            rc = cli_fail("compile: nothing to compile for %s", a.arch);
    }
    free(l.items);
    pthread_mutex_destroy(&l.lock);
    w8a8_context_close(ctx);
    return rc;
}
