/* The autotuner (w8a8_tune): a run plans every key first (tune_plan.c: the spaces' ranked
 * candidates, evaluated in parallel) and hands every distinct kernel to the compile queue
 * (kernel_queue.c), which compiles each once on every core while the keys are timed (tune.c),
 * on the calling thread alone or with one thread per device: each device's thread takes the
 * next key and publishes its result, which later keys may seed from; the compile queue is told
 * the earliest key in progress. More devices are contexts the caller opened on other GPUs of
 * the same model; each writes its measurements through its own connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_run.h"

#define TUNE_QUICK_SAMPLES 5
#define TUNE_FINAL_SAMPLES 30
#define TUNE_FINALISTS 8

/* The next key for this device (keys go out in order, one at a time); false when none is left.
 * The compile queue is told the earliest key any device is timing. */
static bool key_take(tune_run *run, size_t *key)
{
    tune_shared *sh = run->shared;
    pthread_mutex_lock(&sh->lock);
    bool ok = sh->next < run->options.problem_count;
    *key = sh->next;
    sh->next += ok;
    sh->active[run->device_index] = ok ? *key : SIZE_MAX;
    size_t earliest = SIZE_MAX;
    for (size_t d = 0; d < sh->devices; d++)
        earliest = sh->active[d] < earliest ? sh->active[d] : earliest;
    pthread_mutex_unlock(&sh->lock);
    if (earliest != SIZE_MAX)
        kq_set_current(run->kernels, earliest);
    return ok;
}

/* One device's timing thread: takes keys until none is left or an error leaves its GPU or
 * the database unusable. The first other error is kept in run->failed / failure. */
static void tune_keys(tune_run *run)
{
    w8a8_context *ctx = run->ctx;
    tune_shared *sh = run->shared;
    size_t i;
    while (key_take(run, &i)) {
        problem_plan *plan = &run->plans[i];
        w8a8_tune_result res = sh->results[i]; /* this thread's key: no other writes it */
        run->problem_index = i;
        run->problem = plan->problem;
        run->problem_deadline = run->quick_deadline = run->problem_share = 0; /* the last key's */
        w8a8_status one = plan->status;
        if (one != W8A8_OK)
            errorf(ctx, one, "%s", plan->message);
        else if (!tune_budget_left(run))
            one = W8A8_BUDGET_SPENT;
        else if ((one = tune_plan_seed(run, i)) == W8A8_OK)
            one = tune_problem(run, plan, &res);
        res.status = one;
        pthread_mutex_lock(&sh->lock);
        sh->results[i] = res;
        sh->finished[i] = true;
        pthread_mutex_unlock(&sh->lock);
        if (one != W8A8_OK && one != W8A8_BUDGET_SPENT && run->failed == W8A8_OK) {
            run->failed = one;
            snprintf(run->failure, sizeof run->failure, "problem %zu (%lldx%lldx%lld): %s", i,
                     (long long)run->problem.m, (long long)run->problem.n,
                     (long long)run->problem.k, w8a8_errmsg(ctx));
        }
        if (one == W8A8_CUDA_ERROR || one == W8A8_CACHE_ERROR || one == W8A8_NO_MEMORY ||
            one == W8A8_HUNG)
            break; /* the GPU or the database is gone: the next problems would fail alike */
    }
    pthread_mutex_lock(&sh->lock);
    sh->active[run->device_index] = SIZE_MAX;
    pthread_mutex_unlock(&sh->lock);
}

static void *device_thread(void *arg)
{
    tune_run *run = arg;
    w8a8_status st = context_make_current(run->ctx);
    if (st == W8A8_OK)
        tune_keys(run);
    else if (run->failed == W8A8_OK) {
        run->failed = st;
        snprintf(run->failure, sizeof run->failure, "%s", w8a8_errmsg(run->ctx));
    }
    return NULL;
}

/* The copy of `main` another device's thread works with: its own context, device, profile
 * and memo; the plans, spaces, queue and shared state are the same. */
static w8a8_status device_run_make(const tune_run *main, w8a8_context *ctx, size_t index,
                                   tune_run *out)
{
    *out = *main;
    out->ctx = ctx;
    out->device_index = index;
    memset(&out->profile, 0, sizeof out->profile);
    out->hash_count = 0;
    out->failed = W8A8_OK;
    out->failure[0] = '\0';
    if (!ctx || ctx == main->ctx)
        return errorf(main->ctx, W8A8_INVALID, "more_contexts[%zu] is NULL or ctx itself",
                      index - 1);
    cache_device dev;
    w8a8_status st = context_make_current(ctx);
    if (st == W8A8_OK)
        st = cache_device_from_ctx(ctx, &dev);
    if (st != W8A8_OK)
        return errorf(main->ctx, st, "more_contexts[%zu]: %s", index - 1, w8a8_errmsg(ctx));
    if (strcmp(dev.name, main->cache_dev.name) != 0 || dev.sm_count != main->cache_dev.sm_count ||
        dev.memory_bytes != main->cache_dev.memory_bytes || strcmp(dev.arch, main->cache_dev.arch))
        return errorf(main->ctx, W8A8_INVALID,
                      "more_contexts[%zu] is a %s (%d SMs), the first device a %s (%d SMs): tune "
                      "different models separately", index - 1, dev.name, dev.sm_count,
                      main->cache_dev.name, main->cache_dev.sm_count);
    out->cache_dev = dev;
    return context_make_current(main->ctx);
}

static void profile_add(w8a8_tune_profile *to, const w8a8_tune_profile *from)
{
    to->compile_wait_seconds += from->compile_wait_seconds;
    to->buffers_seconds += from->buffers_seconds;
    to->reference_seconds += from->reference_seconds;
    to->verify_seconds += from->verify_seconds;
    to->timing_seconds += from->timing_seconds;
    to->record_seconds += from->record_seconds;
    to->candidates_timed += from->candidates_timed;
}

/* Times every planned key: on the calling thread alone, or with one thread per device. */
static w8a8_status tune_devices(tune_run *run)
{
    size_t extra = run->options.more_context_count;
    if (extra == 0) {
        tune_keys(run);
        return W8A8_OK;
    }
    if (extra + 1 > TUNE_MAX_DEVICES)
        return errorf(run->ctx, W8A8_INVALID, "more_context_count: at most %d devices in all",
                      TUNE_MAX_DEVICES);
    if (!run->options.more_contexts)
        return errorf(run->ctx, W8A8_INVALID, "more_contexts is NULL");
    tune_run *runs = calloc(extra, sizeof *runs);
    if (!runs)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    w8a8_status st = W8A8_OK;
    for (size_t d = 0; d < extra && st == W8A8_OK; d++)
        st = device_run_make(run, run->options.more_contexts[d], d + 1, &runs[d]);
    pthread_t ids[TUNE_MAX_DEVICES];
    size_t started = 0;
    run->shared->devices = 1 + extra;
    for (size_t d = 0; d < extra && st == W8A8_OK; d++) {
        run->shared->active[d + 1] = SIZE_MAX;
        if (pthread_create(&ids[started], NULL, device_thread, &runs[d]) == 0)
            started++;
    }
    run->shared->devices = 1 + started;
    if (st == W8A8_OK)
        tune_keys(run);
    for (size_t d = 0; d < started; d++) {
        pthread_join(ids[d], NULL);
        profile_add(&run->profile, &runs[d].profile);
        run->budget_spent |= runs[d].budget_spent;
        if (run->failed == W8A8_OK && runs[d].failed != W8A8_OK) {
            run->failed = runs[d].failed;
            snprintf(run->failure, sizeof run->failure, "%s", runs[d].failure);
        }
    }
    free(runs);
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
    run->watchdog_seconds = timing_watchdog_seconds(o->watchdog_seconds);
    w8a8_status st = context_make_current(ctx);
    if (st == W8A8_OK)
        st = cache_device_from_ctx(ctx, &run->cache_dev);
    if (st == W8A8_OK)
        st = space_device_from_ctx(ctx, &run->space_dev);
    if (st != W8A8_OK)
        return st;
    run->space_dev.named = o->space && *o->space;
    ctx->cu->cuDriverGetVersion(&run->driver_version);
    run->nvrtc_version = cache_nvrtc_version();
    return W8A8_OK;
}

/* The compile pool's share of the profile. */
static void profile_finish(tune_run *run)
{
    kq_stats k;
    kq_stats_get(run->kernels, &k);
    w8a8_tune_profile *p = &run->profile;
    p->compile_wait_seconds = k.wait_seconds;
    p->kernels = k.kernels;
    p->kernels_compiled = k.compiled_fresh;
    p->kernels_from_store = k.from_store;
    p->kernels_unused = k.kernels - (k.built + k.rejected + k.failed);
    p->compile_threads = k.threads;
    p->compile_busy_seconds = k.busy_seconds;
    p->compile_wall_seconds = k.wall_seconds;
    p->pool_utilization = k.wall_seconds > 0 ? k.busy_seconds / (k.threads * k.wall_seconds) : 0;
    if (p->pool_utilization > 1) /* the timing thread compiled too */
        p->pool_utilization = 1;
}

static w8a8_status tune_all(w8a8_context *ctx, const w8a8_tune_options *options,
                            w8a8_tune_progress_fn progress, void *user, bool refresh,
                            w8a8_tune_report *out)
{
    tune_shared shared = {.devices = 1};
    pthread_mutex_init(&shared.lock, NULL);
    tune_run run = {.shared = &shared, .ctx = ctx, .options = *options, .progress = progress,
                    .user = user, .started = util_now(), .best_us = -1.0};
    w8a8_tune_result *results = calloc(options->problem_count, sizeof *results);
    shared.finished = calloc(options->problem_count, sizeof *shared.finished);
    shared.results = results;
    w8a8_status st = results && shared.finished ? run_setup(&run)
                                                 : errorf(ctx, W8A8_NO_MEMORY, "out of host memory");
    if (st == W8A8_OK)
        st = tune_plan_all(&run);
    for (size_t i = 0; results && i < options->problem_count; i++) { /* what a key not reached says */
        results[i].problem = options->problems[i];
        results[i].problem.m = cache_m_bucket(options->problems[i].m);
        results[i].status = st != W8A8_OK ? st : W8A8_BUDGET_SPENT;
        results[i].best_us = results[i].default_us = -1.0;
    }
    if (st == W8A8_OK)
        st = tune_devices(&run);
    if (st != W8A8_OK && run.failed == W8A8_OK) {
        run.failed = st;
        snprintf(run.failure, sizeof run.failure, "%s", w8a8_errmsg(ctx));
    }
    for (size_t i = 0; refresh && results && i < options->problem_count; i++)
        if (shared.finished[i] && (results[i].status == W8A8_OK ||
                                   results[i].status == W8A8_BUDGET_SPENT))
            context_key_tuned(ctx, &results[i].problem);
    if (run.kernels)
        profile_finish(&run);
    tune_plan_free(&run);
    free(shared.finished);
    pthread_mutex_destroy(&shared.lock);
    if (out && results) {
        out->results = results;
        out->count = options->problem_count;
        out->seconds = util_now() - run.started;
        out->budget_spent = run.budget_spent;
        out->profile = run.profile;
    } else {
        free(results);
    }
    if (run.failed != W8A8_OK)
        return errorf(ctx, run.failed, "%s", run.failure);
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
    if (options->seed_space != 0 && options->seed_space != 1)
        return errorf(ctx, W8A8_INVALID, "options.seed_space: %d is not 0 or 1",
                      options->seed_space);
    if (options->final_settle_ms < 0 || options->final_settle_ms > 1000)
        return errorf(ctx, W8A8_INVALID, "options.final_settle_ms: %d is not 0..1000",
                      options->final_settle_ms);
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
