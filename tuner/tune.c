/* The autotuner (w8a8_tune): for each problem, the candidates of every space that applies are
 * compiled in parallel (NVRTC), planned, verified against the reference kernel and timed in
 * two passes (successive halving: a quick pass for all, more samples for the best few). Every
 * measurement goes to the user's cache database as soon as it is taken, so an interrupted run
 * resumes where it stopped; a rerun skips (key, family, config) already measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nvrtc.h>

#include "cache.h"
#include "dispatch.h"
#include "gemm.h"
#include "space.h"
#include "tune.h"

#define TUNE_QUICK_SAMPLES 5
#define TUNE_FINAL_SAMPLES 30
#define TUNE_FINALISTS 4
#define TUNE_QUICK_BATCH_US 300.0
#define TUNE_FINAL_BATCH_US 1000.0
#define TUNE_DEFINES_BYTES 1024
#define TUNE_MAX_SPACES 16

typedef struct candidate {
    const gemm_family *family;
    char template_name[64];
    char arch[16];
    char space[64];
    char config[W8A8_CONFIG_BYTES];
    double rank;
    size_t space_pos;         /* rank position inside its own space (ranks of two spaces are
                                 in different units and never compared) */
    size_t order;             /* position in the list as collected (space order) */
    bool is_default;
    bool measured_before;     /* the database has an "ok" row: not measured again */
    bool compiled;            /* cubin built and accepted */
    w8a8_kernel_info info;
    char error[256];
    gemm_plan plan;
    bool usable;              /* planned, verified and timed in the quick pass */
    double quick_us, final_us;
    double verify_error;
} candidate;

typedef struct candidate_list {
    candidate *items;
    size_t count, cap;
} candidate_list;

/* One w8a8_tune call. */
typedef struct tune_run {
    w8a8_context *ctx;
    w8a8_tune_options options;
    w8a8_tune_progress_fn progress;
    void *user;
    bool refresh_dispatch;   /* not from online mode: the dispatcher's lock is held then */
    double started;
    bool budget_spent;
    double problem_deadline; /* a fair share of what is left, per problem; 0: none */
    double quick_deadline;   /* the part of that share the quick pass may use */
    bool problem_cut;        /* a deadline stopped this problem's work early */
    cache_device cache_dev;
    space_device space_dev;
    int driver_version, nvrtc_version;
    /* the problem at hand */
    size_t problem_index;
    w8a8_problem problem;
    cache_key key;
    const char *space_label;
    double best_us;
    char best_config[W8A8_CONFIG_BYTES + 64];
} tune_run;

/* ---- progress and budget ------------------------------------------------------------------- */

static bool budget_left(tune_run *run)
{
    double now = util_now();
    if (run->options.budget_seconds > 0 && now - run->started >= run->options.budget_seconds)
        run->budget_spent = true;
    bool left = !run->budget_spent && !(run->problem_deadline > 0 && now >= run->problem_deadline);
    run->problem_cut |= !left;
    return left;
}

/* The quick pass leaves a quarter of the problem's share to the finalists. */
static bool quick_budget_left(tune_run *run)
{
    bool left = budget_left(run) && !(run->quick_deadline > 0 && util_now() >= run->quick_deadline);
    run->problem_cut |= !left;
    return left;
}

/* Each problem may spend what is left divided by the problems left (a problem that finishes
 * early leaves its share to the next), so one big space cannot starve the others. */
static void problem_budget_start(tune_run *run)
{
    run->problem_deadline = run->quick_deadline = 0;
    run->problem_cut = false;
    if (run->options.budget_seconds <= 0)
        return;
    double now = util_now();
    double left = run->options.budget_seconds - (now - run->started);
    size_t problems_left = run->options.problem_count - run->problem_index;
    double share = left / (double)(problems_left ? problems_left : 1);
    run->problem_deadline = now + share;
    run->quick_deadline = now + 0.75 * share;
}

static void report(tune_run *run, w8a8_tune_phase phase, size_t done, size_t total,
                   const char *config, const w8a8_tune_measurement *m, const w8a8_tune_result *r)
{
    if (!run->progress)
        return;
    w8a8_tune_progress p = {
        .phase = phase, .problem_index = run->problem_index,
        .problem_count = run->options.problem_count, .problem = &run->problem,
        .space = run->space_label, .done = done, .total = total, .config = config,
        .best_us = run->best_us, .best_config = run->best_us >= 0 ? run->best_config : NULL,
        .elapsed_seconds = util_now() - run->started,
        .budget_seconds = run->options.budget_seconds, .measurement = m, .result = r};
    run->progress(&p, run->user);
}

/* ---- candidates ----------------------------------------------------------------------------- */

static candidate *list_add(w8a8_context *ctx, candidate_list *l)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        candidate *grown = realloc(l->items, cap * sizeof *grown);
        if (!grown) {
            errorf(ctx, W8A8_NO_MEMORY, "out of host memory for candidates");
            return NULL;
        }
        l->items = grown;
        l->cap = cap;
    }
    candidate *c = &l->items[l->count++];
    memset(c, 0, sizeof *c);
    c->quick_us = c->final_us = c->verify_error = -1.0;
    return c;
}

static candidate *list_find(candidate_list *l, const gemm_family *f, const char *config)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].family == f && strcmp(l->items[i].config, config) == 0)
            return &l->items[i];
    return NULL;
}

static candidate *add_config(tune_run *run, candidate_list *l, const space *s,
                             const gemm_family *f, const char *config, double rank,
                             size_t space_pos)
{
    candidate *c = list_add(run->ctx, l);
    if (!c)
        return NULL;
    c->family = f;
    snprintf(c->template_name, sizeof c->template_name, "%s", space_template(s));
    /* An arch-specific target ("sm_90a") is compiled as such; a portable one ("sm_80": from
     * sm_80 on) for the device's own arch, as the family's plan will, so the cubin the pool
     * builds is the one plan finds in the store. */
    const char *arch = space_arch(s);
    size_t len = strlen(arch);
    snprintf(c->arch, sizeof c->arch, "%s", len && arch[len - 1] == 'a' ? arch : run->ctx->arch);
    snprintf(c->space, sizeof c->space, "%s", space_name(s));
    snprintf(c->config, sizeof c->config, "%s", config);
    c->rank = rank;
    c->space_pos = space_pos;
    c->order = l->count - 1;
    if (!run->options.force) {
        bool found = false;
        if (cache_has_measurement(run->ctx, &run->key, f->name, config, &found) == W8A8_OK)
            c->measured_before = found;
        error_clear(run->ctx);
    }
    return c;
}

/* The ranked valid configs of one space (at most max_candidates) plus its default. */
static w8a8_status add_space(tune_run *run, const space *s, candidate_list *l)
{
    w8a8_context *ctx = run->ctx;
    bool applies = false;
    w8a8_status st = space_applies(ctx, s, &run->problem, &run->space_dev, &applies);
    if (st != W8A8_OK || !applies)
        return st;
    const gemm_family *f = gemm_family_find(space_template(s));
    if (!f || !f->supports(ctx, &run->problem))
        return W8A8_OK;
    /* The reference kernel is the oracle and the dispatcher's last fallback, never a
     * candidate: timing it on large shapes would eat the budget (a second a launch) and a
     * problem no other family measured would record it as the winner. Only a space named
     * explicitly (--space) tunes it. */
    if (f == &gemm_family_reference && !(run->options.space && *run->options.space))
        return W8A8_OK;
    space_enumeration e;
    memset(&e, 0, sizeof e);
    if ((st = space_enumerate(ctx, s, &run->problem, &run->space_dev, &e)) != W8A8_OK)
        return st;
    size_t limit = e.count;
    if (run->options.max_candidates > 0 && (size_t)run->options.max_candidates < limit)
        limit = (size_t)run->options.max_candidates;
    for (size_t i = 0; i < limit && st == W8A8_OK; i++)
        if (!add_config(run, l, s, f, e.candidates[i].config, e.candidates[i].rank, i))
            st = W8A8_NO_MEMORY;
    space_enumeration_free(&e);
    char config[W8A8_CONFIG_BYTES];
    if (st == W8A8_OK && space_default(ctx, s, &run->problem, &run->space_dev, config,
                                       sizeof config) == W8A8_OK) {
        candidate *c = list_find(l, f, config);
        if (!c && !(c = add_config(run, l, s, f, config, INFINITY, limit)))
            st = W8A8_NO_MEMORY;
        if (c)
            c->is_default = true;
    }
    error_clear(ctx);
    return st;
}

/* Loads the spaces to tune: the one named in the options, or every built-in. */
static w8a8_status spaces_load(tune_run *run, space **spaces, size_t *count)
{
    *count = 0;
    if (run->options.space && *run->options.space) {
        w8a8_status st = space_load(run->ctx, run->options.space, &spaces[0]);
        if (st == W8A8_OK)
            *count = 1;
        return st;
    }
    const char *const *names = space_builtin_names();
    for (size_t i = 0; names && names[i] && *count < TUNE_MAX_SPACES; i++) {
        space *s = NULL;
        w8a8_status st = space_load(run->ctx, names[i], &s);
        if (st != W8A8_OK) {
            for (size_t j = 0; j < *count; j++)
                space_free(spaces[j]);
            *count = 0;
            return st;
        }
        spaces[(*count)++] = s;
    }
    return W8A8_OK;
}

/* ---- compiling ------------------------------------------------------------------------------ */

typedef struct compile_job {
    tune_run *run;
    candidate **items;
} compile_job;

/* On a pool thread: NVRTC is thread-safe, errors are kept per thread. */
static void compile_one(void *user, size_t index)
{
    compile_job *job = user;
    w8a8_context *ctx = job->run->ctx;
    candidate *c = job->items[index];
    char defines[TUNE_DEFINES_BYTES];
    jit_cubin cubin;
    memset(&cubin, 0, sizeof cubin);
    w8a8_status st = gemm_defines(ctx, &job->run->problem, c->config, defines, sizeof defines);
    if (st == W8A8_OK)
        st = jit_cubin_get(ctx, c->template_name, defines, c->arch, &cubin);
    if (st != W8A8_OK) {
        snprintf(c->error, sizeof c->error, "%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
        return;
    }
    c->info = cubin.info;
    jit_cubin_free(&cubin);
    c->compiled = !c->info.rejected;
    if (c->info.rejected)
        snprintf(c->error, sizeof c->error, "%s", c->info.reject_reason);
}

/* Compiles the candidates [from, to) still to measure (NVRTC on the pool). */
static w8a8_status compile_range(tune_run *run, candidate_list *l, size_t from, size_t to)
{
    candidate **todo = malloc((to > from ? to - from : 1) * sizeof *todo);
    if (!todo)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    size_t count = 0;
    for (size_t i = from; i < to; i++)
        if (!l->items[i].measured_before || l->items[i].is_default)
            todo[count++] = &l->items[i];
    compile_job job = {run, todo};
    if (count)
        pool_run(run->options.threads, count, compile_one, &job);
    report(run, W8A8_TUNE_PHASE_COMPILE, to, l->count, count ? todo[count - 1]->config : NULL,
           NULL, NULL);
    free(todo);
    return W8A8_OK;
}

/* ---- recording -------------------------------------------------------------------------------- */

static void template_hash(w8a8_context *ctx, const char *template_name, char out[65])
{
    char name[96];
    const char *text = NULL;
    size_t size = 0;
    bool owned = false;
    out[0] = '\0';
    snprintf(name, sizeof name, "%s.cuh", template_name);
    if (source_read(ctx, "templates", name, &text, &size, &owned) != W8A8_OK) {
        error_clear(ctx);
        return;
    }
    const void *buffers[1] = {text};
    util_sha256_hex(buffers, &size, 1, out);
    if (owned)
        free((void *)text);
}

/* Writes one measurement (unless it is the default's repeat of an existing row) and tells the
 * progress callback. */
static w8a8_status record(tune_run *run, const candidate *c, const char *status,
                          const timing_result *t, int pass)
{
    w8a8_tune_measurement m;
    memset(&m, 0, sizeof m);
    snprintf(m.family, sizeof m.family, "%s", c->family->name);
    snprintf(m.config, sizeof m.config, "%s", c->config);
    snprintf(m.status, sizeof m.status, "%s", status);
    m.median_us = t ? t->median_us : -1.0;
    m.spread_us = t ? t->spread_us : -1.0;
    m.samples = t ? t->samples : 0;
    m.batch = t ? t->batch : 0;
    m.verify_error = c->verify_error;
    m.registers = c->info.registers;
    m.spills = c->info.spill_stores + c->info.spill_loads;
    m.compile_ms = c->info.compile_ms;
    m.pass = pass;
    m.is_default = c->is_default;
    w8a8_status st = W8A8_OK;
    if (!c->measured_before) {
        cache_measurement row;
        memset(&row, 0, sizeof row);
        snprintf(row.family, sizeof row.family, "%s", m.family);
        snprintf(row.config, sizeof row.config, "%s", m.config);
        snprintf(row.status, sizeof row.status, "%s", status);
        row.median_us = m.median_us;
        row.spread_us = m.spread_us;
        row.samples = m.samples;
        row.verify_error = m.verify_error;
        row.verified = strcmp(status, "ok") == 0;
        row.registers = m.registers;
        row.spills = m.spills;
        row.compile_ms = m.compile_ms;
        template_hash(run->ctx, c->template_name, row.template_hash);
        row.driver_version = run->driver_version;
        row.nvrtc_version = run->nvrtc_version;
        snprintf(row.lib_version, sizeof row.lib_version, "%s", W8A8JIT_VERSION_STRING);
        row.timestamp = (int64_t)time(NULL);
        st = cache_put_measurement(run->ctx, &run->key, &row);
    }
    report(run, W8A8_TUNE_PHASE_MEASURED, 0, 0, c->config, &m, NULL);
    return st;
}

/* Errors after which the CUDA context is unusable (a kernel faulted). */
static bool cuda_error_sticky(int code)
{
    switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_MISALIGNED_ADDRESS: case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_HARDWARE_STACK_ERROR: case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC: case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE: case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return true;
    default:
        return false;
    }
}

/* ---- timing ----------------------------------------------------------------------------------- */

static w8a8_status launch_plan(w8a8_context *ctx, void *user, const w8a8_problem *problem,
                               const w8a8_tensors *tensors, CUdeviceptr workspace, CUstream stream)
{
    (void)workspace;
    const gemm_plan *plan = user;
    return plan->family->run(ctx, plan, problem, tensors, stream);
}

static void note_best(tune_run *run, const candidate *c, double us)
{
    if (us > 0 && (run->best_us < 0 || us < run->best_us)) {
        run->best_us = us;
        snprintf(run->best_config, sizeof run->best_config, "%s %s", c->family->name, c->config);
    }
}

/* A failure of one candidate is recorded and the run goes on, unless the GPU context is gone
 * or the database cannot be written. */
static w8a8_status candidate_failed(tune_run *run, candidate *c, const char *status,
                                    w8a8_status st)
{
    snprintf(c->error, sizeof c->error, "%s: %s", w8a8_status_string(st), w8a8_errmsg(run->ctx));
    int code = w8a8_error_cuda(run->ctx);
    bool fatal = st == W8A8_CUDA_ERROR && cuda_error_sticky(code);
    char message[W8A8_ERRMSG_BYTES];
    snprintf(message, sizeof message, "%s", w8a8_errmsg(run->ctx));
    w8a8_status written = record(run, c, status, NULL, 1);
    if (fatal)
        return errorf(run->ctx, st, "%s %s: %s (the CUDA context is unusable now)",
                      c->family->name, c->config, message);
    return written;
}

/* Quick pass of one candidate: plan, verify, time. */
static w8a8_status quick_one(tune_run *run, timing_buffers *b, candidate *c, size_t *failed_verify)
{
    w8a8_context *ctx = run->ctx;
    w8a8_status st = c->family->plan(ctx, &run->problem, c->config, &c->plan);
    if (st != W8A8_OK)
        return candidate_failed(run, c, "compile_error", st);
    c->plan.family = c->family;
    bool passed = false;
    st = timing_verify(ctx, b, launch_plan, &c->plan, &c->verify_error, &passed);
    if (st != W8A8_OK)
        return candidate_failed(run, c, "launch_error", st);
    if (!passed) {
        (*failed_verify)++;
        snprintf(c->error, sizeof c->error, "verification failed: error %.3g of max |ref|",
                 c->verify_error);
        return record(run, c, "verify_failed", NULL, 1);
    }
    timing_result t;
    st = timing_measure(ctx, b, launch_plan, &c->plan, run->options.quick_samples,
                        TUNE_QUICK_BATCH_US, &t);
    if (st != W8A8_OK)
        return candidate_failed(run, c, "launch_error", st);
    c->quick_us = t.median_us;
    c->usable = true;
    note_best(run, c, t.median_us);
    return record(run, c, "ok", &t, 1);
}

static w8a8_status quick_range(tune_run *run, timing_buffers *b, candidate_list *l, size_t from,
                               size_t to, w8a8_tune_result *res)
{
    w8a8_status st = W8A8_OK;
    for (size_t i = from; i < to && st == W8A8_OK; i++) {
        candidate *c = &l->items[i];
        if (!c->compiled)
            continue;
        /* Until one candidate of this problem has a time (the space's default comes first),
         * only the whole budget stops the quick pass: on a cold cubin store the first chunk's
         * compiles can use up a problem's share, and the problem would end unmeasured. */
        bool none_timed = res->timed == 0;
        if (!quick_budget_left(run) && !(none_timed && !run->budget_spent))
            break;
        report(run, W8A8_TUNE_PHASE_QUICK, i, l->count, c->config, NULL, NULL);
        st = quick_one(run, b, c, &res->verify_failed);
        res->timed += c->usable;
    }
    return st;
}

static int by_quick_time(const void *x, const void *y)
{
    const candidate *a = *(candidate *const *)x, *b = *(candidate *const *)y;
    return (a->quick_us > b->quick_us) - (a->quick_us < b->quick_us);
}

/* The best few of the quick pass, with more samples. */
static w8a8_status final_pass(tune_run *run, timing_buffers *b, candidate_list *l)
{
    candidate **usable = malloc((l->count ? l->count : 1) * sizeof *usable);
    if (!usable)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    size_t count = 0;
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].usable)
            usable[count++] = &l->items[i];
    qsort(usable, count, sizeof *usable, by_quick_time);
    size_t finalists = (size_t)run->options.finalists < count ? (size_t)run->options.finalists : count;
    w8a8_status st = W8A8_OK;
    for (size_t i = 0; i < finalists && st == W8A8_OK && budget_left(run); i++) {
        candidate *c = usable[i];
        report(run, W8A8_TUNE_PHASE_FINAL, i, finalists, c->config, NULL, NULL);
        timing_result t;
        st = timing_measure(run->ctx, b, launch_plan, &c->plan, run->options.final_samples,
                            TUNE_FINAL_BATCH_US, &t);
        if (st != W8A8_OK) {
            st = candidate_failed(run, c, "launch_error", st);
            continue;
        }
        c->final_us = t.median_us;
        note_best(run, c, t.median_us);
        st = record(run, c, "ok", &t, 2);
    }
    report(run, W8A8_TUNE_PHASE_FINAL, finalists, finalists, NULL, NULL, NULL);
    free(usable);
    return st;
}

/* ---- one problem ------------------------------------------------------------------------------ */

/* The key's winner after this run: the database's (exact device), else this run's best. */
static void result_finish(tune_run *run, candidate_list *l, w8a8_tune_result *res)
{
    res->best_us = -1.0;
    res->default_us = -1.0;
    for (size_t i = 0; i < l->count; i++) {
        const candidate *c = &l->items[i];
        double us = c->final_us > 0 ? c->final_us : c->quick_us;
        if (c->is_default && !res->default_config[0]) {
            snprintf(res->default_config, sizeof res->default_config, "%s", c->config);
            res->default_us = us;
        }
        if (us > 0 && (res->best_us < 0 || us < res->best_us)) {
            res->best_us = us;
            snprintf(res->family, sizeof res->family, "%s", c->family->name);
            snprintf(res->config, sizeof res->config, "%s", c->config);
        }
    }
    cache_winner w;
    memset(&w, 0, sizeof w);
    if (cache_lookup(run->ctx, &run->key, &w) == W8A8_OK && w.match == CACHE_EXACT) {
        snprintf(res->family, sizeof res->family, "%s", w.family);
        snprintf(res->config, sizeof res->config, "%s", w.config);
        res->best_us = w.median_us;
    }
    error_clear(run->ctx);
}

static w8a8_status candidates_collect(tune_run *run, space **spaces, size_t nspaces,
                                      candidate_list *l, w8a8_tune_result *res)
{
    for (size_t i = 0; i < nspaces; i++) {
        w8a8_status st = add_space(run, spaces[i], l);
        if (st != W8A8_OK)
            return st;
    }
    res->candidates = l->count;
    for (size_t i = 0; i < l->count; i++)
        res->skipped += l->items[i].measured_before && !l->items[i].is_default;
    return W8A8_OK;
}

/* Compiles and quick-times the candidates chunk by chunk in list order (defaults first, then
 * by rank), so a budget spent part-way leaves the best-ranked configs measured instead of
 * everything compiled and nothing timed. */
static w8a8_status compile_and_time(tune_run *run, candidate_list *l, timing_buffers *b,
                                    w8a8_tune_result *res)
{
    size_t chunk = (size_t)run->options.threads * 2;
    w8a8_status st = W8A8_OK;
    for (size_t from = 0; from < l->count && st == W8A8_OK && quick_budget_left(run); from += chunk) {
        size_t to = from + chunk < l->count ? from + chunk : l->count;
        st = compile_range(run, l, from, to);
        bool any = false;
        for (size_t i = from; i < to && st == W8A8_OK; i++) {
            candidate *c = &l->items[i];
            bool failed = !c->compiled && !c->info.rejected && c->error[0];
            res->compiled += c->compiled;
            res->rejected += c->info.rejected;
            res->compile_failed += failed;
            any |= c->compiled;
            if (failed || c->info.rejected)
                st = record(run, c, failed ? "compile_error" : "rejected", NULL, 1);
        }
        if (st == W8A8_OK && any && !b->base)
            st = timing_buffers_create(run->ctx, &run->problem, 4.0, 0, b);
        if (st == W8A8_OK && b->base)
            st = quick_range(run, b, l, from, to, res);
    }
    return st;
}

/* Rank position first, then space order: the spaces' candidates interleave (the best of
 * each, then the second of each, …), so a budget cut part-way leaves every family measured
 * on its own best-ranked configs; a space's ranks are in its own units. */
static int by_space_pos(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    if (a->space_pos != b->space_pos)
        return a->space_pos < b->space_pos ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static void interleave_spaces(candidate_list *l)
{
    qsort(l->items, l->count, sizeof *l->items, by_space_pos);
}

/* Defaults first (the baseline of "vs default", measured even on a tight budget); the rest
 * keep their order. */
static void defaults_first(candidate_list *l)
{
    size_t front = 0;
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].is_default) {
            candidate moved = l->items[i];
            memmove(&l->items[front + 1], &l->items[front], (i - front) * sizeof moved);
            l->items[front++] = moved;
        }
}

static w8a8_status tune_problem(tune_run *run, space **spaces, size_t nspaces,
                                w8a8_tune_result *res)
{
    w8a8_context *ctx = run->ctx;
    double started = util_now();
    candidate_list l = {0};
    problem_budget_start(run);
    timing_buffers b;
    memset(&b, 0, sizeof b);
    run->best_us = -1.0;
    run->best_config[0] = '\0';
    cache_key_make(&run->key, &run->problem, &run->cache_dev);
    w8a8_status st = candidates_collect(run, spaces, nspaces, &l, res);
    if (st == W8A8_OK && l.count == 0)
        st = errorf(ctx, W8A8_UNSUPPORTED, "no tuning space applies to this problem on %s",
                    run->space_dev.name);
    if (st == W8A8_OK)
        report(run, W8A8_TUNE_PHASE_PROBLEM, 0, l.count, NULL, NULL, NULL);
    interleave_spaces(&l);
    defaults_first(&l);
    if (st == W8A8_OK)
        st = compile_and_time(run, &l, &b, res);
    if (st == W8A8_OK && b.base)
        st = final_pass(run, &b, &l);
    timing_buffers_destroy(ctx, &b);
    char message[W8A8_ERRMSG_BYTES];
    snprintf(message, sizeof message, "%s", w8a8_errmsg(ctx));
    result_finish(run, &l, res);
    if (st == W8A8_OK && run->refresh_dispatch)
        dispatch_refresh(ctx, &run->problem);
    free(l.items);
    res->seconds = util_now() - started;
    if (st == W8A8_OK && (run->budget_spent || run->problem_cut))
        st = W8A8_BUDGET_SPENT;
    res->status = st;
    if (st != W8A8_OK && st != W8A8_BUDGET_SPENT)
        errorf(ctx, st, "%s", message);
    report(run, W8A8_TUNE_PHASE_DONE, 1, 1, NULL, NULL, res);
    return st;
}

/* ---- the run ------------------------------------------------------------------------------- */

static w8a8_status run_setup(tune_run *run)
{
    w8a8_context *ctx = run->ctx;
    w8a8_tune_options *o = &run->options;
    if (o->quick_samples <= 0)
        o->quick_samples = TUNE_QUICK_SAMPLES;
    if (o->final_samples <= 0)
        o->final_samples = TUNE_FINAL_SAMPLES;
    if (o->finalists <= 0)
        o->finalists = TUNE_FINALISTS;
    if (o->threads <= 0)
        o->threads = pool_cpu_count();
    w8a8_status st = context_make_current(ctx);
    if (st == W8A8_OK)
        st = cache_device_from_ctx(ctx, &run->cache_dev);
    if (st == W8A8_OK)
        st = space_device_from_ctx(ctx, &run->space_dev);
    if (st != W8A8_OK)
        return st;
    int major = 0, minor = 0;
    ctx->cu->cuDriverGetVersion(&run->driver_version);
    nvrtcVersion(&major, &minor);
    run->nvrtc_version = major * 1000 + minor * 10;
    return W8A8_OK;
}

static w8a8_status tune_all(w8a8_context *ctx, const w8a8_tune_options *options,
                            w8a8_tune_progress_fn progress, void *user, bool refresh,
                            w8a8_tune_report *out)
{
    tune_run run = {.ctx = ctx, .options = *options, .progress = progress, .user = user,
                    .refresh_dispatch = refresh, .started = util_now()};
    space *spaces[TUNE_MAX_SPACES];
    size_t nspaces = 0;
    w8a8_tune_result *results = calloc(options->problem_count, sizeof *results);
    if (!results)
        return errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    w8a8_status st = run_setup(&run);
    if (st == W8A8_OK)
        st = spaces_load(&run, spaces, &nspaces);
    for (size_t i = 0; i < options->problem_count; i++) { /* what a problem not reached says */
        results[i].problem = options->problems[i];
        results[i].problem.m = cache_m_bucket(options->problems[i].m);
        results[i].status = st != W8A8_OK ? st : W8A8_BUDGET_SPENT;
        results[i].best_us = results[i].default_us = -1.0;
    }
    w8a8_status overall = st;
    char message[W8A8_ERRMSG_BYTES] = "";
    for (size_t i = 0; i < options->problem_count && st == W8A8_OK; i++) {
        w8a8_tune_result *res = &results[i];
        run.problem_index = i;
        run.problem = res->problem;
        run.problem_deadline = run.quick_deadline = 0; /* the previous problem's share */
        w8a8_status one = validate_problem(ctx, &run.problem);
        if (one != W8A8_OK)
            res->status = one;
        else if (!budget_left(&run))
            res->status = one = W8A8_BUDGET_SPENT;
        else
            one = tune_problem(&run, spaces, nspaces, res);
        if (one != W8A8_OK && one != W8A8_BUDGET_SPENT && overall == W8A8_OK) {
            overall = one;
            snprintf(message, sizeof message, "problem %zu (%lldx%lldx%lld): %s", i,
                     (long long)run.problem.m, (long long)run.problem.n,
                     (long long)run.problem.k, w8a8_errmsg(ctx));
        }
        if (one == W8A8_CUDA_ERROR || one == W8A8_CACHE_ERROR || one == W8A8_NO_MEMORY)
            break; /* the GPU or the database is gone: the next problems would fail alike */
    }
    for (size_t i = 0; i < nspaces; i++)
        space_free(spaces[i]);
    if (out) {
        out->results = results;
        out->count = options->problem_count;
        out->seconds = util_now() - run.started;
        out->budget_spent = run.budget_spent;
    } else {
        free(results);
    }
    if (overall != W8A8_OK)
        return message[0] ? errorf(ctx, overall, "%s", message) : overall;
    return run.budget_spent ? errorf(ctx, W8A8_BUDGET_SPENT, "the tuning budget of %.0f s ran out",
                                     options->budget_seconds)
                            : W8A8_OK;
}

w8a8_status w8a8_tune(w8a8_context *ctx, const w8a8_tune_options *options,
                      w8a8_tune_progress_fn progress, void *user, w8a8_tune_report *report_out)
{
    if (report_out)
        memset(report_out, 0, sizeof *report_out);
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!options)
        return errorf(ctx, W8A8_INVALID, "options is NULL");
    if (!options->problems || options->problem_count == 0)
        return errorf(ctx, W8A8_INVALID, "options.problems: no problem to tune");
    error_clear(ctx);
    return tune_all(ctx, options, progress, user, true, report_out);
}

void w8a8_tune_report_free(w8a8_tune_report *report_in)
{
    if (!report_in)
        return;
    free(report_in->results);
    memset(report_in, 0, sizeof *report_in);
}

w8a8_status tune_problem_online(w8a8_context *ctx, const w8a8_problem *problem,
                                double budget_seconds)
{
    w8a8_tune_options options = {.problems = problem, .problem_count = 1,
                                 .budget_seconds = budget_seconds};
    return tune_all(ctx, &options, NULL, NULL, false, NULL);
}
