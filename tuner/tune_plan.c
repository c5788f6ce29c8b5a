/* Planning a tuning run before any timing: every key's candidates (the spaces' ranked configs
 * and defaults), with the spaces evaluated in parallel on the pool (each evaluation runs in a
 * fresh Lua state, so one loaded space serves every thread); then every distinct kernel named
 * by any key goes into the compile queue once, in the order the keys will need them, and the
 * queue starts compiling while the first key is timed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_run.h"

/* Keys evaluated per pool round: enough to keep the pool busy, few enough that their full
 * enumerations (a few MB each) do not pile up. */
#define PLAN_KEYS_PER_ROUND_PER_THREAD 2

/* One (key, space) evaluation on a pool thread. */
typedef struct space_eval {
    bool applies;
    const gemm_family *family; /* the space's family, when it may be tuned for the key */
    space_enumeration e;
    bool has_default;
    char default_config[W8A8_CONFIG_BYTES];
    w8a8_status status;
    char message[256];
} space_eval;

typedef struct plan_round {
    tune_run *run;
    size_t first;       /* the round's first key */
    space_eval *evals;  /* keys × spaces */
} plan_round;

/* ---- lists -------------------------------------------------------------------------------- */

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

/* ---- what the database knows of a key ------------------------------------------------------ */

typedef struct history_visit {
    tune_run *run;
    problem_plan *plan;
    size_t hung_cap, measured_cap;
    bool out_of_memory;
} history_visit;

/* A config's name in a key's measured set: a 64-bit hash of family and config. Two configs
 * sharing one (odds about 10^-12 for a key's few thousand rows) would only skip one candidate. */
static uint64_t measured_hash(const char *family, const char *config)
{
    return util_hash_text(util_hash_text(util_hash_text(UTIL_HASH_SEED, family), "\xff"), config);
}

/* Keeps a "hung" row of the key's product whose template is the one this run compiles (a row
 * of an older template does not count: the change may have fixed the hang), and the "ok" rows
 * of the user database on this very device: configs measured before. */
static int history_row(void *user, const cache_history_row *row)
{
    history_visit *v = user;
    problem_plan *p = v->plan;
    if (strcmp(row->status, "ok") == 0) {
        if (!row->user_layer || !row->exact_device)
            return 0;
        uint64_t *measured = util_reserve(p->measured, &v->measured_cap, p->measured_count,
                                     sizeof *measured);
        if (!measured) {
            v->out_of_memory = true;
            return 1;
        }
        p->measured = measured;
        p->measured[p->measured_count++] = measured_hash(row->family, row->config);
        return 0;
    }
    const char *hash = tune_template_hash(v->run, row->family);
    if (row->template_hash[0] && hash[0] && strcmp(row->template_hash, hash) != 0)
        return 0;
    hung_config *hung = util_reserve(p->hung, &v->hung_cap, p->hung_count, sizeof *hung);
    if (!hung) {
        v->out_of_memory = true;
        return 1;
    }
    p->hung = hung;
    hung_config *h = &p->hung[p->hung_count++];
    snprintf(h->family, sizeof h->family, "%s", row->family);
    snprintf(h->config, sizeof h->config, "%s", row->config);
    return 0;
}

static int by_hash(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Key p's history, read once before its candidates are listed: the configs that hung on this
 * product, in any layer (a hung kernel costs a GPU context, so none is ever launched again:
 * the run that saw it stopped; this is how the next one resumes past it), and those the user
 * database measured on this device (a resumed run goes past them). A database that cannot be
 * read hides none. */
static w8a8_status history_load(tune_run *run, problem_plan *p)
{
    history_visit v = {.run = run, .plan = p};
    double t0 = util_now();
    cache_key_history(run->ctx, &p->key, history_row, &v);
    error_clear(run->ctx);
    if (p->measured_count > 1)
        qsort(p->measured, p->measured_count, sizeof *p->measured, by_hash);
    run->profile.record_seconds += util_now() - t0;
    return v.out_of_memory ? errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory") : W8A8_OK;
}

static bool measured_before(const problem_plan *p, const gemm_family *f, const char *config)
{
    uint64_t h = measured_hash(f->name, config);
    return p->measured_count &&
           bsearch(&h, p->measured, p->measured_count, sizeof h, by_hash) != NULL;
}

static bool hung_before(const problem_plan *p, const gemm_family *f, const char *config)
{
    for (size_t i = 0; i < p->hung_count; i++)
        if (strcmp(p->hung[i].family, f->name) == 0 && strcmp(p->hung[i].config, config) == 0)
            return true;
    return false;
}

bool candidate_skipped(const candidate *c)
{
    return (c->measured_before && !c->is_default) || c->hung_before;
}

/* Adds a candidate of space s; asks the database whether it was measured before. */
static candidate *add_config(tune_run *run, problem_plan *p, const space *s, const gemm_family *f,
                             const char *config, double rank, size_t space_pos)
{
    candidate *c = list_add(run->ctx, &p->list);
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
    c->order = p->list.count - 1;
    c->hung_before = hung_before(p, f, config);
    c->measured_before = !run->options.force && measured_before(p, f, config);
    return c;
}

w8a8_status tune_plan_variant(tune_run *run, problem_plan *p, const space *s, size_t parent,
                              const char *config, candidate **out)
{
    const candidate from = p->list.items[parent]; /* adding may move the list */
    *out = NULL;
    if (list_find(&p->list, from.family, config))
        return W8A8_OK;
    candidate *c = add_config(run, p, s, from.family, config, from.rank, from.space_pos);
    if (!c)
        return W8A8_NO_MEMORY;
    c->variant = true;
    c->parent = parent;
    c->has_kernel = from.has_kernel;
    c->kernel = from.kernel;
    c->info = from.info;
    *out = c;
    return W8A8_OK;
}

/* ---- evaluating the spaces ------------------------------------------------------------------ */

/* The family of a space, when it may be tuned for the problem. The reference kernel is the
 * oracle and the dispatcher's last fallback, never a candidate: timing it on large shapes would
 * eat the budget (a second a launch) and a problem no other family measured would record it as
 * the winner. Only a space named explicitly (--space) tunes it. */
static const gemm_family *tunable_family(const tune_run *run, const space *s,
                                         const w8a8_problem *problem)
{
    const gemm_family *f = gemm_family_find(space_template(s));
    if (!f || !f->supports(run->ctx, problem))
        return NULL;
    if (f == &gemm_family_reference && !(run->options.space && *run->options.space))
        return NULL;
    return f;
}

static void evaluate_one(void *user, size_t index)
{
    plan_round *round = user;
    tune_run *run = round->run;
    w8a8_context *ctx = run->ctx;
    size_t key = round->first + index / run->space_count;
    const space *s = run->spaces[index % run->space_count];
    space_eval *ev = &round->evals[index];
    const problem_plan *p = &run->plans[key];
    if (p->status != W8A8_OK)
        return;
    ev->status = space_applies(ctx, s, &p->problem, &run->space_dev, &ev->applies);
    if (ev->status == W8A8_OK && ev->applies &&
        (ev->family = tunable_family(run, s, &p->problem)) != NULL) {
        ev->status = space_enumerate(ctx, s, &p->problem, &run->space_dev, &ev->e);
        if (ev->status == W8A8_OK)
            ev->has_default = space_default(ctx, s, &p->problem, &run->space_dev,
                                            ev->default_config,
                                            sizeof ev->default_config) == W8A8_OK;
    } else {
        ev->applies = false;
    }
    if (ev->status != W8A8_OK)
        snprintf(ev->message, sizeof ev->message, "%s", w8a8_errmsg(ctx));
    error_clear(ctx);
}

/* Whether a config is in the space's fixed exploration sample: about `explore` configs of the
 * whole cross product, chosen by a hash of the config string alone, so every key of a space
 * samples the same configs (compiled once for all) whatever their ranks. */
static bool explored(const tune_run *run, const space *s, const char *config)
{
    if (run->options.explore <= 0)
        return false;
    size_t every = space_config_total(s) / (size_t)run->options.explore;
    return every <= 1 || util_hash_text(UTIL_HASH_SEED, config) % every == 0;
}

/* The ranked valid configs of one evaluated space plus its default and its exploration
 * sample. With max_candidates, the best-ranked that many; with only a budget, the best-ranked
 * TUNE_BUDGET_CANDIDATES not measured before (a resumed run goes deeper); else all. */
static w8a8_status add_space(tune_run *run, problem_plan *p, const space *s, space_eval *ev)
{
    const gemm_family *f = ev->family;
    bool count_all = run->options.max_candidates > 0;
    size_t limit = count_all ? (size_t)run->options.max_candidates
                   : run->options.budget_seconds > 0 ? TUNE_BUDGET_CANDIDATES : 0;
    size_t counted = 0, i = 0;
    for (; i < ev->e.count && (!limit || counted < limit); i++) {
        candidate *c = add_config(run, p, s, f, ev->e.candidates[i].config,
                                  ev->e.candidates[i].rank, i);
        if (!c)
            return W8A8_NO_MEMORY;
        counted += count_all || !(c->measured_before || c->hung_before);
    }
    for (size_t j = i; j < ev->e.count && run->options.explore > 0; j++) {
        if (!explored(run, s, ev->e.candidates[j].config))
            continue;
        candidate *c = add_config(run, p, s, f, ev->e.candidates[j].config,
                                  ev->e.candidates[j].rank, j);
        if (!c)
            return W8A8_NO_MEMORY;
        c->explored = true;
    }
    if (ev->has_default) {
        candidate *c = list_find(&p->list, f, ev->default_config);
        size_t at = SIZE_MAX; /* its rank position, when valid() accepts it */
        for (size_t j = i; !c && j < ev->e.count && at == SIZE_MAX; j++)
            if (strcmp(ev->e.candidates[j].config, ev->default_config) == 0)
                at = j;
        if (!c && !(c = add_config(run, p, s, f, ev->default_config, INFINITY, at)))
            return W8A8_NO_MEMORY;
        c->is_default = true;
    }
    return W8A8_OK;
}

/* ---- ordering --------------------------------------------------------------------------------- */

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

/* Moves item `from` to position `to` (≤ from), the items between shifting back by one. */
static void list_move_forward(candidate_list *l, size_t from, size_t to)
{
    candidate moved = l->items[from];
    memmove(&l->items[to + 1], &l->items[to], (from - to) * sizeof moved);
    l->items[to] = moved;
}

/* Defaults first (the baseline of "vs default", measured even on a tight budget), then the
 * cache's winners in their seed order, then the exploration sample (few, and shared by every
 * key); the rest keep their order. */
static void defaults_first(candidate_list *l)
{
    size_t front = 0;
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].is_default)
            list_move_forward(l, i, front++);
    for (size_t want = 1;; want++) {
        size_t i = front;
        while (i < l->count && l->items[i].cache_seed != want)
            i++;
        if (i == l->count)
            break;
        list_move_forward(l, i, front++);
    }
    for (size_t i = front; i < l->count; i++)
        if (l->items[i].explored)
            list_move_forward(l, i, front++);
}

/* ---- the cache's winners --------------------------------------------------------------------- */

/* A plain tune (the built-in spaces) first times what the cache already knows for the key:
 * the winners of this key and of M buckets within CACHE_SEED_RATIO of it, on any device of the
 * arch, in every layer (the user's and the shipped ones) — the dispatcher's own answer among
 * them. The tune's winner goes to the user database, whose rows win the lookup, so it must
 * never be slower than what ran before the tune: with that answer timed beside it, it is not
 * (to the timing's noise). And a bucket whose row is stale borrows a neighbour's better
 * config: time grows with M for one config, so a larger bucket's winner is a candidate
 * for a smaller one (shipped caches of 2026-11-26 had 52 rows slower than a larger bucket's
 * winner of the same class, up to 1.4×). At most CACHE_SEEDS distinct configs: the key's own
 * bucket first, then the others; within each, this device, its product, then the arch; then
 * the nearer bucket (the larger at equal distance), then the faster (by_seed_order). A named
 * space (--space) tunes exactly what it lists, unless options.seed_space asks for the seeds
 * too (then only rows of the named space's template can be candidates: candidate_of). A class
 * the lookup answers from another epilogue (CACHE_EPILOGUE) is seeded by that class. */
#define CACHE_SEED_RATIO 4.0
#define CACHE_SEEDS 6
#define CACHE_SEED_ROWS 512 /* class winners considered; more are ignored */

typedef struct seed_row {
    cache_winner w;
    double distance; /* |ln(bucket / the key's bucket)|, 0 at the key's bucket */
} seed_row;

typedef struct seed_rows {
    int64_t bucket;
    seed_row *rows;
    size_t count;
} seed_rows;

static int seed_row_add(void *user, const cache_winner *w)
{
    seed_rows *r = user;
    if (w->m_bucket < 1 || (double)w->m_bucket > CACHE_SEED_RATIO * (double)r->bucket ||
        CACHE_SEED_RATIO * (double)w->m_bucket < (double)r->bucket)
        return 0;
    if (r->count == CACHE_SEED_ROWS)
        return 1;
    seed_row *row = &r->rows[r->count++];
    row->w = *w;
    row->distance = w->match == CACHE_NEAR_BUCKET
                        ? fabs(log((double)w->m_bucket / (double)r->bucket))
                        : 0.0;
    return 0;
}

static int by_seed_order(const void *x, const void *y)
{
    const seed_row *ra = x, *rb = y;
    const cache_winner *a = &ra->w, *b = &rb->w;
    bool sa = a->match != CACHE_NEAR_BUCKET, sb = b->match != CACHE_NEAR_BUCKET;
    if (sa != sb)
        return sa ? -1 : 1;
    if (a->device_match != b->device_match)
        return a->device_match < b->device_match ? -1 : 1;
    if (fabs(ra->distance - rb->distance) > 1e-9)
        return ra->distance < rb->distance ? -1 : 1;
    if (a->m_bucket != b->m_bucket)
        return a->m_bucket > b->m_bucket ? -1 : 1;
    if (a->median_us != b->median_us)
        return a->median_us < b->median_us ? -1 : 1;
    int order = strcmp(a->family, b->family);
    return order ? order : strcmp(a->config, b->config);
}

/* The loaded space of a family (the built-in spaces: one per template). */
static const space *space_of(const tune_run *run, const char *family)
{
    for (size_t k = 0; k < run->space_count; k++)
        if (strcmp(space_template(run->spaces[k]), family) == 0)
            return run->spaces[k];
    return NULL;
}

/* Key p's candidate of (family, config), a winner found elsewhere (the cache's, or a
 * neighbouring key's in this run): the listed one, or a new one (no rank, no place in its
 * space's order; *added) when a loaded space drives the family and the family supports the
 * problem. NULL when it cannot be a candidate, or with *st set when out of memory. */
static candidate *candidate_of(tune_run *run, problem_plan *p, const char *family,
                               const char *config, bool *added, w8a8_status *st)
{
    *added = false;
    const gemm_family *f = gemm_family_find(family);
    const space *s = space_of(run, family);
    if (!f || !s || !f->supports(run->ctx, &p->problem))
        return NULL;
    candidate *c = list_find(&p->list, f, config);
    if (c)
        return c;
    if (!(c = add_config(run, p, s, f, config, INFINITY, SIZE_MAX)))
        *st = errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    *added = c != NULL;
    return c;
}

/* Adds key p's cache seeds (see above) to its list, or marks them where listed. A database
 * that cannot be read seeds nothing (the lookup reports it elsewhere). */
static w8a8_status cache_seeds(tune_run *run, problem_plan *p)
{
    if (run->options.space && *run->options.space && !run->options.seed_space)
        return W8A8_OK;
    seed_rows r = {.bucket = p->problem.m, .rows = malloc(CACHE_SEED_ROWS * sizeof *r.rows)};
    if (!r.rows)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    double t0 = util_now();
    cache_class_winners(run->ctx, &p->key, seed_row_add, &r);
    /* a class with no row runs a row of another epilogue (the lookup's CACHE_EPILOGUE):
     * that class seeds it, so its winner is not slower than what ran */
    cache_winner answer;
    if (r.count == 0 && cache_lookup(run->ctx, &p->key, &answer) == W8A8_OK &&
        answer.match == CACHE_EPILOGUE) {
        cache_key lender = p->key;
        lender.a_scale = answer.a_scale;
        lender.b_scale = answer.b_scale;
        lender.out_type = answer.out_type;
        lender.bias_type = answer.bias_type;
        cache_class_winners(run->ctx, &lender, seed_row_add, &r);
    }
    error_clear(run->ctx);
    run->profile.record_seconds += util_now() - t0;
    qsort(r.rows, r.count, sizeof *r.rows, by_seed_order);
    size_t seeds = 0;
    w8a8_status st = W8A8_OK;
    for (size_t i = 0; i < r.count && seeds < CACHE_SEEDS && st == W8A8_OK; i++) {
        bool added;
        candidate *c = candidate_of(run, p, r.rows[i].w.family, r.rows[i].w.config, &added, &st);
        if (c && !c->cache_seed) /* else not a candidate, or listed by an earlier row */
            c->cache_seed = ++seeds;
    }
    free(r.rows);
    return st;
}

/* ---- kernels -------------------------------------------------------------------------------- */

/* The compile-queue entry of a candidate (added if new); a config the family cannot turn into
 * defines keeps has_kernel false and its error. */
static w8a8_status candidate_kernel(tune_run *run, const problem_plan *p, candidate *c)
{
    char defines[KQ_DEFINES_BYTES];
    /* the family's defines: configs that differ only in launch arguments share a kernel */
    w8a8_status st = gemm_family_defines(gemm_family_find(c->template_name), run->ctx,
                                         &p->problem, c->config, defines, sizeof defines);
    if (st != W8A8_OK) {
        snprintf(c->error, sizeof c->error, "%s: %s", w8a8_status_string(st), w8a8_errmsg(run->ctx));
        error_clear(run->ctx);
        return W8A8_OK;
    }
    st = kq_add(run->kernels, c->template_name, c->arch, defines, &c->kernel);
    c->has_kernel = st == W8A8_OK;
    return st;
}

/* The kernels key p will ask for, in list order: the candidates it will time. */
static w8a8_status plan_kernels(tune_run *run, problem_plan *p)
{
    p->kernels = malloc((p->list.count ? p->list.count : 1) * sizeof *p->kernels);
    if (!p->kernels)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    w8a8_status st = W8A8_OK;
    for (size_t i = 0; i < p->list.count && st == W8A8_OK; i++) {
        candidate *c = &p->list.items[i];
        if (candidate_skipped(c))
            continue;
        st = candidate_kernel(run, p, c);
        if (st == W8A8_OK && c->has_kernel)
            p->kernels[p->kernel_count++] = c->kernel;
    }
    return st;
}

/* ---- the run ------------------------------------------------------------------------------- */

static w8a8_status spaces_load(tune_run *run)
{
    run->space_count = 0;
    if (run->options.space && *run->options.space) {
        w8a8_status st = space_load(run->ctx, run->options.space, &run->spaces[0]);
        run->space_count = st == W8A8_OK;
        return st;
    }
    const char *const *names = space_builtin_names();
    for (size_t i = 0; names && names[i] && run->space_count < TUNE_MAX_SPACES; i++) {
        w8a8_status st = space_load(run->ctx, names[i], &run->spaces[run->space_count]);
        if (st != W8A8_OK)
            return st;
        run->space_count++;
    }
    return W8A8_OK;
}

/* Validates each problem and makes its key. */
static void plans_start(tune_run *run)
{
    for (size_t i = 0; i < run->options.problem_count; i++) {
        problem_plan *p = &run->plans[i];
        p->problem = run->options.problems[i];
        p->problem.m = cache_m_bucket(p->problem.m);
        p->status = validate_problem(run->ctx, &p->problem);
        if (p->status != W8A8_OK)
            snprintf(p->message, sizeof p->message, "%s", w8a8_errmsg(run->ctx));
        error_clear(run->ctx);
        cache_key_make(&p->key, &p->problem, &run->cache_dev);
    }
}

/* One round: keys [first, first + count) evaluated on the pool, then their lists built here
 * (the database is asked from this thread only). */
static w8a8_status plan_round_run(tune_run *run, size_t first, size_t count)
{
    size_t jobs = count * run->space_count;
    plan_round round = {run, first, calloc(jobs ? jobs : 1, sizeof(space_eval))};
    if (!round.evals)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    pool_run(run->options.threads, jobs, evaluate_one, &round);
    w8a8_status st = W8A8_OK;
    for (size_t i = 0; i < count && st == W8A8_OK; i++) {
        problem_plan *p = &run->plans[first + i];
        if (p->status == W8A8_OK)
            st = history_load(run, p);
        for (size_t s = 0; s < run->space_count && st == W8A8_OK && p->status == W8A8_OK; s++) {
            space_eval *ev = &round.evals[i * run->space_count + s];
            if (ev->status != W8A8_OK) { /* a broken script fails the run, as before */
                st = errorf(run->ctx, ev->status, "%s", ev->message);
                break;
            }
            if (ev->applies)
                st = add_space(run, p, run->spaces[s], ev);
        }
        if (st == W8A8_OK && p->status == W8A8_OK && p->list.count)
            st = cache_seeds(run, p);
        if (st == W8A8_OK && p->status == W8A8_OK) {
            qsort(p->list.items, p->list.count, sizeof *p->list.items, by_space_pos);
            defaults_first(&p->list);
            if (p->list.count == 0) {
                p->status = W8A8_UNSUPPORTED;
                snprintf(p->message, sizeof p->message,
                         "no tuning space applies to this problem on %s", run->space_dev.name);
            }
        }
        if (st == W8A8_OK && p->status == W8A8_OK)
            st = plan_kernels(run, p);
    }
    for (size_t j = 0; j < jobs; j++)
        space_enumeration_free(&round.evals[j].e);
    free(round.evals);
    return st;
}

w8a8_status tune_plan_all(tune_run *run)
{
    double t0 = util_now();
    size_t n = run->options.problem_count;
    run->plans = calloc(n ? n : 1, sizeof *run->plans);
    if (!run->plans)
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    w8a8_status st = spaces_load(run);
    if (st == W8A8_OK)
        st = kq_create(run->ctx, run->options.threads, &run->kernels);
    if (st != W8A8_OK)
        return st;
    plans_start(run);
    size_t per_round = (size_t)run->options.threads * PLAN_KEYS_PER_ROUND_PER_THREAD;
    for (size_t first = 0; first < n && st == W8A8_OK; first += per_round) {
        size_t count = n - first < per_round ? n - first : per_round;
        st = plan_round_run(run, first, count);
        if (st == W8A8_OK)
            tune_report_planned(run, first + count);
        /* A budget spent planning stops it: the keys left unplanned are never timed (every
         * key ends "budget spent"), and the run ends near its budget. */
        if (st == W8A8_OK && first + count < n && !tune_budget_left(run))
            break;
    }
    if (st != W8A8_OK)
        return st;
    size_t **lists = malloc((n ? n : 1) * sizeof *lists);
    size_t *lengths = malloc((n ? n : 1) * sizeof *lengths);
    if (!lists || !lengths) {
        free(lists);
        free(lengths);
        return errorf(run->ctx, W8A8_NO_MEMORY, "out of host memory");
    }
    for (size_t i = 0; i < n; i++) {
        lists[i] = run->plans[i].kernels;
        lengths[i] = run->plans[i].kernel_count;
    }
    run->demand_lists = lists;
    run->demand_lengths = lengths;
    kq_set_demand(run->kernels, (const size_t *const *)lists, lengths, n);
    run->profile.plan_seconds = util_now() - t0;
    kq_start(run->kernels);
    return W8A8_OK;
}

void tune_plan_free(tune_run *run)
{
    kq_destroy(run->kernels); /* first: the workers read the demand lists */
    run->kernels = NULL;
    for (size_t i = 0; run->plans && i < run->options.problem_count; i++) {
        free(run->plans[i].list.items);
        free(run->plans[i].kernels);
        free(run->plans[i].hung);
        free(run->plans[i].measured);
    }
    free(run->plans);
    free(run->demand_lists);
    free(run->demand_lengths);
    run->plans = NULL;
    for (size_t i = 0; i < run->space_count; i++)
        space_free(run->spaces[i]);
    run->space_count = 0;
}

/* ---- seeding from neighbouring M buckets ------------------------------------------------------ */

static bool same_class(const w8a8_problem *a, const w8a8_problem *b)
{
    w8a8_problem x = *a, y = *b;
    x.m = y.m = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

/* Key j's winner, when it is final: false otherwise (another device may be tuning it). */
static bool finished_winner(tune_run *run, size_t j, char family[64], char config[256])
{
    tune_shared *sh = run->shared;
    pthread_mutex_lock(&sh->lock);
    bool ok = sh->finished[j] && sh->results[j].family[0];
    if (ok) {
        snprintf(family, 64, "%s", sh->results[j].family);
        snprintf(config, 256, "%s", sh->results[j].config);
    }
    pthread_mutex_unlock(&sh->lock);
    return ok;
}

w8a8_status tune_plan_seed(tune_run *run, size_t i)
{
    problem_plan *p = &run->plans[i];
    size_t front = 0;
    while (front < p->list.count && p->list.items[front].is_default)
        front++;
    for (size_t j = 0; j < run->options.problem_count; j++) {
        const problem_plan *q = &run->plans[j];
        char family[64], config[256];
        if (j == i || q->status != W8A8_OK || !same_class(&q->problem, &p->problem) ||
            q->problem.m > 2 * p->problem.m || p->problem.m > 2 * q->problem.m ||
            !finished_winner(run, j, family, config))
            continue;
        bool added;
        w8a8_status st = W8A8_OK;
        candidate *c = candidate_of(run, p, family, config, &added, &st);
        if (added && !c->hung_before) /* planning is over: its kernel goes in now */
            st = candidate_kernel(run, p, c);
        if (st != W8A8_OK)
            return st;
        if (!c || c->is_default || c->seeded)
            continue;
        c->seeded = true;
        size_t at = (size_t)(c - p->list.items);
        if (at >= front) /* a candidate ahead of the others that are not defaults */
            list_move_forward(&p->list, at, front++);
    }
    return W8A8_OK;
}
