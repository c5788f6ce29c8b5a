/* Tuning one key of a run (the run itself is tune_run.c): its candidates in list order, each
 * kernel taken from the compile queue (kernel_queue.c), planned, verified against the
 * reference kernel on sampled rows and timed in two passes (successive halving: a quick pass
 * for all, more samples for the best few), within the key's share of the budget. Every
 * measurement goes to the user's cache database as soon as it is taken, so an interrupted run
 * resumes where it stopped; a rerun skips (key, family, config) already measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tune_run.h"

#define TUNE_QUICK_BATCH_US 300.0
#define TUNE_FINAL_BATCH_US 1000.0

/* ---- progress and budget ------------------------------------------------------------------- */

bool tune_budget_left(tune_run *run)
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
    bool left = tune_budget_left(run) && !(run->quick_deadline > 0 && util_now() >= run->quick_deadline);
    run->problem_cut |= !left;
    return left;
}

/* The problem's share runs from `start`. */
static void problem_budget_from(tune_run *run, double start)
{
    run->problem_deadline = start + run->problem_share;
    run->quick_deadline = start + 0.75 * run->problem_share;
}

/* Each problem may spend what is left divided by the problems left (a problem that finishes
 * early leaves its share to the next), so one big space cannot starve the others. */
static void problem_budget_start(tune_run *run)
{
    run->problem_deadline = run->quick_deadline = run->problem_share = 0;
    run->problem_cut = false;
    if (run->options.budget_seconds <= 0)
        return;
    double now = util_now();
    double left = run->options.budget_seconds - (now - run->started);
    pthread_mutex_lock(&run->shared->lock);
    size_t problems_left = run->options.problem_count - run->shared->next + 1; /* with this one */
    size_t devices = run->shared->devices;
    pthread_mutex_unlock(&run->shared->lock);
    /* each device takes one key at a time: a key may use devices × left / keys left */
    double share = left * (double)devices / (double)problems_left;
    if (share > left)
        share = left;
    run->problem_share = share;
    problem_budget_from(run, now);
    kq_set_horizon(run->kernels, share / (double)devices); /* per key, on one device */
}

/* c: the candidate the event is about (its config and space), or NULL. */
static void report_on(tune_run *run, w8a8_tune_phase phase, size_t index,
                      const w8a8_problem *problem, size_t done, size_t total, const candidate *c,
                      const w8a8_tune_measurement *m, const w8a8_tune_result *r)
{
    if (!run->progress)
        return;
    pthread_mutex_lock(&run->shared->lock);
    w8a8_tune_progress p = {
        .phase = phase, .problem_index = index,
        .problem_count = run->options.problem_count, .problem = problem,
        .space = c ? c->space : NULL, .done = done, .total = total, .config = c ? c->config : NULL,
        .best_us = run->best_us, .best_config = run->best_us >= 0 ? run->best_config : NULL,
        .elapsed_seconds = util_now() - run->started,
        .budget_seconds = run->options.budget_seconds, .measurement = m, .result = r};
    run->progress(&p, run->user);
    pthread_mutex_unlock(&run->shared->lock);
}

static void report(tune_run *run, w8a8_tune_phase phase, size_t done, size_t total,
                   const candidate *c, const w8a8_tune_measurement *m, const w8a8_tune_result *r)
{
    report_on(run, phase, run->problem_index, &run->problem, done, total, c, m, r);
}

void tune_report_planned(tune_run *run, size_t planned)
{
    size_t last = planned ? planned - 1 : 0;
    report_on(run, W8A8_TUNE_PHASE_PLAN, last, &run->plans[last].problem, planned,
              run->options.problem_count, NULL, NULL, NULL);
}

/* ---- recording -------------------------------------------------------------------------------- */

/* Memoized for the run: a template does not change under it. */
const char *tune_template_hash(tune_run *run, const char *template_name)
{
    for (size_t i = 0; i < run->hash_count; i++)
        if (strcmp(run->hash_names[i], template_name) == 0)
            return run->hash_values[i];
    static _Thread_local char unmemoized[65];
    char *out = unmemoized;
    if (run->hash_count < TUNE_MAX_SPACES) {
        snprintf(run->hash_names[run->hash_count], sizeof run->hash_names[0], "%s", template_name);
        out = run->hash_values[run->hash_count++];
    }
    if (cache_template_hash(run->ctx, template_name, out) != W8A8_OK) {
        out[0] = '\0'; /* a row without a hash is still a measurement */
        error_clear(run->ctx);
    }
    return out;
}

/* A key's measurements are written in batches, one transaction each: when RECORD_BATCH_ROWS
 * wait or the oldest has waited RECORD_BATCH_SECONDS, at a hang (before the run stops) and when
 * the key ends (before its winner is read back). A transaction per row cost 0.36 ms a row
 * (H100 host, 7 s of a 120 s tune). A process killed from outside loses at most the rows of
 * its last second of measuring; the run that resumes times them again. */
#define RECORD_BATCH_ROWS 512
#define RECORD_BATCH_SECONDS 1.0

typedef struct record_batch {
    cache_measurement rows[RECORD_BATCH_ROWS];
    size_t count;
    double since; /* when the oldest waiting row was added */
} record_batch;

/* count rows of the key in one transaction, timed as database time. */
static w8a8_status record_write(tune_run *run, const cache_measurement *rows, size_t count)
{
    double t0 = util_now();
    w8a8_status st = cache_put_measurements(run->ctx, &run->key, rows, count);
    run->profile.record_seconds += util_now() - t0;
    return st;
}

/* Writes the key's waiting rows (none: W8A8_OK). */
static w8a8_status record_flush(tune_run *run)
{
    record_batch *batch = run->pending;
    if (!batch || batch->count == 0)
        return W8A8_OK;
    w8a8_status st = record_write(run, batch->rows, batch->count);
    batch->count = 0;
    return st;
}

/* Queues row for the database, writing the batch when it is due (or row alone, with no batch). */
static w8a8_status record_row(tune_run *run, const cache_measurement *row, bool now)
{
    record_batch *batch = run->pending;
    if (!batch)
        return record_write(run, row, 1);
    if (batch->count == 0)
        batch->since = util_now();
    batch->rows[batch->count++] = *row;
    if (now || batch->count == RECORD_BATCH_ROWS ||
        util_now() - batch->since >= RECORD_BATCH_SECONDS)
        return record_flush(run);
    return W8A8_OK;
}

/* Writes one measurement (unless it is the default's repeat of an existing row; a hang is
 * always written, at once: it must keep the config from being launched again) and tells the
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
    m.rank_position = c->space_pos == SIZE_MAX ? -1 : (long)c->space_pos;
    m.explored = c->explored;
    m.cache_seed = c->cache_seed != 0;
    m.variant = c->variant;
    w8a8_status st = W8A8_OK;
    if (!c->measured_before || strcmp(status, "hung") == 0) {
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
        snprintf(row.template_hash, sizeof row.template_hash, "%s",
                 tune_template_hash(run, c->template_name));
        row.driver_version = run->driver_version;
        row.nvrtc_version = run->nvrtc_version;
        snprintf(row.lib_version, sizeof row.lib_version, "%s", W8A8JIT_VERSION_STRING);
        row.timestamp = (int64_t)time(NULL);
        st = record_row(run, &row, strcmp(status, "hung") == 0);
    }
    report(run, W8A8_TUNE_PHASE_MEASURED, 0, 0, c, &m, NULL);
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
 * (a sticky CUDA error, or a kernel the watchdog gave up on: recorded as "hung", whatever the
 * step) or the database cannot be written. */
static w8a8_status candidate_failed(tune_run *run, candidate *c, const char *status,
                                    w8a8_status st, int pass)
{
    snprintf(c->error, sizeof c->error, "%s: %s", w8a8_status_string(st), w8a8_errmsg(run->ctx));
    int code = w8a8_error_cuda(run->ctx);
    bool hung = st == W8A8_HUNG;
    bool fatal = hung || (st == W8A8_CUDA_ERROR && cuda_error_sticky(code));
    char message[W8A8_ERRMSG_BYTES];
    snprintf(message, sizeof message, "%s", w8a8_errmsg(run->ctx));
    w8a8_status written = record(run, c, hung ? "hung" : status, NULL, pass);
    if (hung)
        return errorf(run->ctx, st, "%s %s: %s. %s; tune again in a new process to resume%s",
                      c->family->name, c->config, message,
                      written == W8A8_OK ? "Recorded as \"hung\"" : "It could not be recorded",
                      written == W8A8_OK ? " (this config is skipped from now on)" : "");
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
        return candidate_failed(run, c, "compile_error", st, 1);
    c->plan.family = c->family;
    bool passed = false;
    double t0 = util_now();
    if (!b->reference_out) { /* the first verification runs the reference: counted apart */
        st = timing_verify_prepare(ctx, b);
        double t1 = util_now();
        run->profile.reference_seconds += t1 - t0;
        t0 = t1;
        if (st != W8A8_OK)
            return st; /* the oracle itself failed: nothing of this key can be verified */
    }
    st = timing_verify(ctx, b, launch_plan, &c->plan, &c->verify_error, &passed);
    double t1 = util_now();
    run->profile.verify_seconds += t1 - t0;
    if (st != W8A8_OK)
        return candidate_failed(run, c, "launch_error", st, 1);
    if (!passed) {
        (*failed_verify)++;
        snprintf(c->error, sizeof c->error, "verification failed: error %.3g of max |ref|",
                 c->verify_error);
        return record(run, c, "verify_failed", NULL, 1);
    }
    timing_result t;
    st = timing_measure(ctx, b, launch_plan, &c->plan, run->options.quick_samples,
                        TUNE_QUICK_BATCH_US, 0, false, &t);
    run->profile.timing_seconds += util_now() - t1;
    if (st != W8A8_OK)
        return candidate_failed(run, c, "launch_error", st, 1);
    c->quick_us = t.median_us;
    c->usable = true;
    run->profile.candidates_timed++;
    note_best(run, c, t.median_us);
    return record(run, c, "ok", &t, 1);
}

/* The candidate's kernel from the compile queue (waiting for it, or compiling it here); a
 * kernel that failed or was rejected is recorded as such. *ready: it can be timed. */
static w8a8_status candidate_compiled(tune_run *run, candidate *c, size_t position,
                                      size_t count, w8a8_tune_result *res, bool *ready)
{
    *ready = false;
    if (!c->has_kernel) { /* its defines could not be made: c->error says why */
        res->compile_failed++;
        return record(run, c, "compile_error", NULL, 1);
    }
    report(run, W8A8_TUNE_PHASE_COMPILE, position, count, c, NULL, NULL);
    const kq_kernel *k = kq_wait(run->kernels, c->kernel);
    c->info = k->info;
    if (!k->compiled) {
        snprintf(c->error, sizeof c->error, "%s", k->error);
        res->rejected += k->info.rejected;
        res->compile_failed += !k->info.rejected;
        return record(run, c, k->info.rejected ? "rejected" : "compile_error", NULL, 1);
    }
    res->compiled++;
    *ready = true;
    return W8A8_OK;
}

/* The quick pass over the key's list in order (defaults, seeds, then by rank), each kernel
 * taken from the compile queue as it is reached; the input buffers are made when the first
 * candidate is ready. */
static w8a8_status quick_pass(tune_run *run, candidate_list *l, timing_buffers *b,
                              w8a8_tune_result *res)
{
    w8a8_status st = W8A8_OK;
    for (size_t i = 0; i < l->count && st == W8A8_OK; i++) {
        candidate *c = &l->items[i];
        if (candidate_skipped(c))
            continue;
        /* Until one candidate of this problem has a time (the space's default comes first),
         * only the whole budget stops the quick pass: on a cold cubin store the first
         * compiles can use up a problem's share, and the problem would end unmeasured. */
        bool none_timed = res->timed == 0;
        if (!quick_budget_left(run) && !(none_timed && !run->budget_spent))
            break;
        bool ready = false;
        st = candidate_compiled(run, c, i, l->count, res, &ready);
        if (st != W8A8_OK || !ready)
            continue;
        if (!b->base) {
            double t0 = util_now();
            st = timing_buffers_create(run->ctx, &run->problem, 4.0, 0, b);
            b->watchdog_seconds = run->watchdog_seconds;
            run->profile.buffers_seconds += util_now() - t0;
            if (st != W8A8_OK)
                break;
        }
        report(run, W8A8_TUNE_PHASE_QUICK, i, l->count, c, NULL, NULL);
        st = quick_one(run, b, c, &res->verify_failed);
        res->timed += c->usable;
        /* The share runs from the first time: the wait for the first kernels is the compile
         * pool's start-up (the first key on a cold store timed its default alone), not the
         * key's search. The whole budget still bounds the run: later keys share less. */
        if (none_timed && c->usable && run->problem_share > 0)
            problem_budget_from(run, util_now());
    }
    return st;
}

static int by_quick_time(const void *x, const void *y)
{
    const candidate *a = *(candidate *const *)x, *b = *(candidate *const *)y;
    if (a->quick_us != b->quick_us)
        return (a->quick_us > b->quick_us) - (a->quick_us < b->quick_us);
    return (a->order > b->order) - (a->order < b->order); /* ties: the list's order */
}

/* The usable candidates of l that are not variants, fastest quick time first (malloc'ed; NULL
 * with the error set when out of memory); *finalists: how many of them, from the first, are
 * the finalists (options.finalists, or all when fewer). */
static candidate **quick_order(tune_run *run, candidate_list *l, size_t *finalists)
{
    candidate **out = malloc((l->count ? l->count : 1) * sizeof *out);
    size_t count = 0;
    *finalists = 0;
    if (!out) {
        errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
        return NULL;
    }
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].usable && !l->items[i].variant)
            out[count++] = &l->items[i];
    qsort(out, count, sizeof *out, by_quick_time);
    *finalists = (size_t)run->options.finalists < count ? (size_t)run->options.finalists : count;
    return out;
}

/* The best few of the quick pass, with more samples, timed as replays of a CUDA graph of their
 * batch: the way a serving engine replays them and `w8a8 bench --graph` and peers.py time, with
 * every launch queued at once, so no gap a host busy compiling leaves between launches enters
 * the recorded time. (Prompted by a swap-AB row of 80 CTAs at 16×10240×8192 that tuned at
 * 23.5 µs and benched at 29.9; later runs showed that config at 23 or 30 µs from one process to
 * the next whatever the launch mode, bench/results-2026-11-26-s16.)
 * The samples come in TUNE_FINAL_ROUNDS rounds over the finalists, each round starting one
 * finalist (with its variants) further, and a finalist's time is the median of its round
 * medians. Timed one after the other, the first finalists ran cooler: under continuous load an
 * H200 reaches its 700 W cap within a second and its clock falls from 1,980 MHz to
 * 1,400–1,700 MHz (bench/results-2026-11-26-s21, Y10), which favoured the quick pass's best,
 * timed first.
 * Rounds alone left a finalist's round medians 7 % apart (median; Y14); options.final_settle_ms
 * of idle before each timing brings that to 0.2 % (Y15), idle before each round does not (Y16). */
#define TUNE_FINAL_ROUNDS 3

/* A finalist's rounds folded into one timing: timing_stats of its round medians (with at most
 * three rounds, its p10..p90 spread is their range), every sample counted. */
static timing_result final_fold(const timing_result *parts, int rounds)
{
    timing_result t;
    memset(&t, 0, sizeof t);
    double medians[TUNE_FINAL_ROUNDS];
    t.min_us = parts[0].min_us;
    for (int r = 0; r < rounds; r++) {
        medians[r] = parts[r].median_us;
        t.min_us = parts[r].min_us < t.min_us ? parts[r].min_us : t.min_us;
        t.samples += parts[r].samples;
        t.host_us += parts[r].host_us / rounds;
        t.batch = parts[r].batch;
    }
    timing_stats(medians, rounds, &t.median_us, &t.spread_us);
    return t;
}

/* The finalists: the `finalists` best of the quick pass, each in a group with the variants
 * variants_pass timed of it. Rounds rotate the groups (round r starts r groups further) and
 * time a group's members forward in even rounds, backward in odd ones: a variant is timed
 * next to its finalist, and neither is always the later one, as the GPU warms up through a
 * round (bench/results-2026-11-28-s39/: D9 timed the variants after all the finalists, D10
 * beside them). */
static w8a8_status final_pass(tune_run *run, timing_buffers *b, candidate_list *l)
{
    size_t groups = 0, n = 0;
    candidate **usable = quick_order(run, l, &groups);
    if (!usable)
        return W8A8_NO_MEMORY;
    int rounds = run->options.final_samples >= 2 * TUNE_FINAL_ROUNDS ? TUNE_FINAL_ROUNDS : 1;
    int per_round = (run->options.final_samples + rounds - 1) / rounds;
    size_t all = l->count ? l->count : 1;
    candidate **fin = malloc(all * sizeof *fin);          /* the finalists, group after group */
    size_t *first = malloc((groups + 1) * sizeof *first); /* each group's start in fin */
    timing_result *parts = malloc(all * (size_t)rounds * sizeof *parts);
    int *done = calloc(all, sizeof *done); /* rounds timed; -1: failed */
    w8a8_status st = W8A8_OK;
    if (!fin || !first || !parts || !done)
        st = errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    for (size_t g = 0; g < groups && st == W8A8_OK; g++) {
        first[g] = n;
        fin[n++] = usable[g];
        size_t parent = (size_t)(usable[g] - l->items);
        for (size_t i = 0; i < l->count; i++)
            if (l->items[i].usable && l->items[i].variant && l->items[i].parent == parent)
                fin[n++] = &l->items[i];
    }
    if (st == W8A8_OK)
        first[groups] = n;
    bool left = true;
    for (int r = 0; r < rounds && st == W8A8_OK && left; r++) {
        size_t step = 0;
        for (size_t gi = 0; gi < groups && st == W8A8_OK && left; gi++) {
            size_t g = (gi + (size_t)r) % groups, size = first[g + 1] - first[g];
            for (size_t k = 0; k < size && st == W8A8_OK && (left = tune_budget_left(run)); k++) {
                size_t i = first[g] + (r % 2 ? size - 1 - k : k);
                if (done[i] < 0)
                    continue;
                candidate *c = fin[i];
                report(run, W8A8_TUNE_PHASE_FINAL, (size_t)r * n + step++, (size_t)rounds * n, c,
                       NULL, NULL);
                timing_result *t = &parts[i * (size_t)rounds + (size_t)done[i]];
                if (run->options.final_settle_ms > 0) { /* see w8a8_tune_options */
                    const struct timespec settle = {0, run->options.final_settle_ms * 1000000L};
                    nanosleep(&settle, NULL);
                }
                double t0 = util_now();
                st = timing_measure(run->ctx, b, launch_plan, &c->plan, per_round,
                                    TUNE_FINAL_BATCH_US, 0, true, t);
                run->profile.timing_seconds += util_now() - t0;
                if (st != W8A8_OK) {
                    done[i] = -1;
                    st = candidate_failed(run, c, "launch_error", st, 2);
                    continue;
                }
                done[i]++;
            }
        }
    }
    /* a finalist keeps its quick time when the budget left it no round */
    for (size_t i = 0; i < n && st == W8A8_OK; i++) {
        if (done[i] <= 0)
            continue;
        candidate *c = fin[i];
        timing_result t = final_fold(parts + i * (size_t)rounds, done[i]);
        c->final_us = t.median_us;
        note_best(run, c, t.median_us);
        st = record(run, c, "ok", &t, 2);
    }
    if (st == W8A8_OK)
        report(run, W8A8_TUNE_PHASE_FINAL, (size_t)rounds * n, (size_t)rounds * n, NULL, NULL,
               NULL);
    free(usable);
    free(fin);
    free(first);
    free(parts);
    free(done);
    return st;
}

/* ---- variants of the finalists ----------------------------------------------------------- */

/* The run's space a candidate came from (NULL when none of its spaces has that name). */
static const space *candidate_space(const tune_run *run, const candidate *c)
{
    for (size_t i = 0; i < run->space_count; i++)
        if (strcmp(space_name(run->spaces[i]), c->space) == 0)
            return run->spaces[i];
    return NULL;
}

/* Whether config has an item "name=...". */
static bool config_names(const char *config, const char *name)
{
    size_t len = strlen(name);
    for (const char *item = config; item; item = strchr(item, ',')) {
        item += *item == ',';
        if (strncmp(item, name, len) == 0 && item[len] == '=')
            return true;
    }
    return false;
}

/* A space's `variants` (space.h: launch arguments outside its cross product) on the quick
 * pass's finalists: each finalist's config with one name=value item appended, unless it
 * names that parameter already or was measured before (a rerun measures nothing new),
 * planned, verified and timed as the quick pass times a candidate (same kernel: nothing to
 * compile). The final pass takes those with a time beside their finalists. */
static w8a8_status variants_pass(tune_run *run, problem_plan *plan, timing_buffers *b,
                                 w8a8_tune_result *res)
{
    candidate_list *l = &plan->list;
    size_t n = 0;
    candidate **usable = quick_order(run, l, &n);
    if (!usable)
        return W8A8_NO_MEMORY;
    size_t *parents = malloc((n ? n : 1) * sizeof *parents); /* indices: adding variants may
                                                                 move the list */
    for (size_t j = 0; parents && j < n; j++)
        parents[j] = (size_t)(usable[j] - l->items);
    free(usable);
    if (!parents)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    size_t first = l->count;
    w8a8_status st = W8A8_OK;
    for (size_t j = 0; j < n && st == W8A8_OK; j++) {
        size_t parent = parents[j];
        /* a default measured before is timed again only as the key's anchor ("vs default") */
        const space *s = l->items[parent].measured_before
                             ? NULL
                             : candidate_space(run, &l->items[parent]);
        for (int v = 0; s && v < space_variant_count(s) && st == W8A8_OK; v++) {
            const space_param *variant = space_variant_at(s, v);
            if (config_names(l->items[parent].config, variant->name))
                continue;
            for (int k = 0; k < variant->count && st == W8A8_OK; k++) {
                char config[W8A8_CONFIG_BYTES];
                int len = snprintf(config, sizeof config, "%s,%s=%lld",
                                   l->items[parent].config, variant->name,
                                   (long long)variant->values[k]);
                candidate *c = NULL;
                if (len > 0 && (size_t)len < sizeof config)
                    st = tune_plan_variant(run, plan, s, parent, config, &c);
                if (c) {
                    res->candidates++;
                    res->skipped += candidate_skipped(c);
                }
            }
        }
    }
    free(parents);
    for (size_t i = first; i < l->count && st == W8A8_OK && tune_budget_left(run); i++) {
        candidate *c = &l->items[i];
        if (candidate_skipped(c))
            continue;
        report(run, W8A8_TUNE_PHASE_QUICK, i, l->count, c, NULL, NULL);
        st = quick_one(run, b, c, &res->verify_failed);
        res->timed += c->usable;
    }
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

w8a8_status tune_problem(tune_run *run, problem_plan *plan, w8a8_tune_result *res)
{
    w8a8_context *ctx = run->ctx;
    double started = util_now();
    candidate_list *l = &plan->list;
    problem_budget_start(run);
    timing_buffers b;
    memset(&b, 0, sizeof b);
    run->best_us = -1.0;
    run->best_config[0] = '\0';
    run->key = plan->key;
    res->candidates = l->count;
    for (size_t i = 0; i < l->count; i++)
        res->skipped += candidate_skipped(&l->items[i]);
    report(run, W8A8_TUNE_PHASE_PROBLEM, 0, l->count, NULL, NULL, NULL);
    run->pending = calloc(1, sizeof *run->pending); /* NULL: each row is written alone */
    w8a8_status st = quick_pass(run, l, &b, res);
    if (st == W8A8_OK && b.base)
        st = variants_pass(run, plan, &b, res);
    if (st == W8A8_OK && b.base)
        st = final_pass(run, &b, l);
    timing_buffers_destroy(ctx, &b);
    if (st == W8A8_OK) {
        st = record_flush(run);
    } else if (run->pending && run->pending->count) { /* keep st's message, not the write's */
        char kept[W8A8_ERRMSG_BYTES];
        snprintf(kept, sizeof kept, "%s", w8a8_errmsg(ctx));
        record_flush(run);
        errorf(ctx, st, "%s", kept);
    }
    free(run->pending);
    run->pending = NULL;
    char message[W8A8_ERRMSG_BYTES];
    snprintf(message, sizeof message, "%s", w8a8_errmsg(ctx));
    result_finish(run, l, res);
    res->seconds = util_now() - started;
    if (st == W8A8_OK && (run->budget_spent || run->problem_cut))
        st = W8A8_BUDGET_SPENT;
    res->status = st;
    if (st != W8A8_OK && st != W8A8_BUDGET_SPENT)
        errorf(ctx, st, "%s", message);
    report(run, W8A8_TUNE_PHASE_DONE, 1, 1, NULL, NULL, res);
    return st;
}
