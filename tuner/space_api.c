/* The public face of the tuning spaces (w8a8_space_* in w8a8jit.h) and the compile plan that
 * `w8a8 compile` follows: for each problem a space wants compiled, its valid configs. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space.h"

const char *const *w8a8_space_names(void) { return space_builtin_names(); }

/* ---- compile plan ------------------------------------------------------------------------- */

static w8a8_status plan_push(w8a8_context *ctx, space_compile_plan *plan, size_t *capacity,
                             const w8a8_problem *problem, const space_candidate *c)
{
    if (plan->count == *capacity) {
        size_t grown_capacity = *capacity ? 2 * *capacity : 64;
        space_compile_item *grown = realloc(plan->items, grown_capacity * sizeof *grown);
        if (!grown)
            return errorf(ctx, W8A8_NO_MEMORY, "no memory for a compile plan of %zu kernels",
                          grown_capacity);
        plan->items = grown;
        *capacity = grown_capacity;
    }
    space_compile_item *item = &plan->items[plan->count++];
    item->problem = *problem;
    snprintf(item->config, sizeof item->config, "%s", c->config);
    item->rank = c->rank;
    return W8A8_OK;
}

/* Marks the parameter values a config carries in covered; returns whether one was new. The
 * config is canonical (enumeration order: one "name=value" item per parameter, in the
 * space's parameter order), so item p holds parameter p. */
static bool cover(const space *s, const char *config, bool covered[][W8A8_SPACE_MAX_VALUES])
{
    bool fresh = false;
    const char *item = config;
    for (int p = 0; p < space_param_count(s) && item; p++) {
        const char *eq = strchr(item, '=');
        if (!eq)
            break;
        int64_t value = strtoll(eq + 1, NULL, 10);
        const space_param *param = space_param_at(s, p);
        for (int v = 0; v < param->count; v++)
            if (param->values[v] == value) {
                fresh |= !covered[p][v];
                covered[p][v] = true;
                break;
            }
        item = strchr(eq, ',');
        item = item ? item + 1 : NULL;
    }
    return fresh;
}

/* Appends at most `limit` (0: all) candidates of e for problem to plan, in rank order, and
 * then, so that a limit never leaves a code path of the template uncompiled, every further
 * candidate (in rank order) that carries a parameter value none planned before it has. */
static w8a8_status plan_append(w8a8_context *ctx, space_compile_plan *plan, size_t *capacity,
                               const w8a8_problem *problem, const space_enumeration *e,
                               size_t limit, const space *s)
{
    bool covered[W8A8_SPACE_MAX_PARAMS][W8A8_SPACE_MAX_VALUES];
    size_t take = limit && e->count > limit ? limit : e->count;
    size_t first = plan->count;
    memset(covered, 0, sizeof covered);
    w8a8_status st = W8A8_OK;
    for (size_t i = 0; i < e->count && st == W8A8_OK; i++)
        if (cover(s, e->candidates[i].config, covered) || i < take)
            st = plan_push(ctx, plan, capacity, problem, &e->candidates[i]);
    plan->capped += e->count - (plan->count - first);
    return st;
}

w8a8_status space_compile_plan_make(w8a8_context *ctx, const space *s, const space_device *device,
                                    size_t max_per_problem, space_compile_plan *out)
{
    /* A compile plan lists what the space can build for the arch: as if named, so that
     * candidates offered only to a caller who names the space are compiled too. */
    space_device named = *device;
    named.named = true;
    const space_device *dev = &named;
    w8a8_problem *problems = NULL;
    size_t count = 0, capacity = 0;
    memset(out, 0, sizeof *out);
    w8a8_status st = space_compile_problems(ctx, s, dev, &problems, &count);
    out->problems = count;
    for (size_t i = 0; st == W8A8_OK && i < count; i++) {
        bool applies = false;
        space_enumeration e;
        st = space_applies(ctx, s, &problems[i], dev, &applies);
        if (st != W8A8_OK)
            break;
        if (!applies) {
            out->not_applied++;
            continue;
        }
        st = space_enumerate(ctx, s, &problems[i], dev, &e);
        if (st != W8A8_OK)
            break;
        out->total += e.total;
        out->invalid += e.invalid;
        st = plan_append(ctx, out, &capacity, &problems[i], &e, max_per_problem, s);
        space_enumeration_free(&e);
    }
    free(problems);
    if (st != W8A8_OK)
        space_compile_plan_free(out);
    return st;
}

void space_compile_plan_free(space_compile_plan *plan)
{
    if (plan) {
        free(plan->items);
        memset(plan, 0, sizeof *plan);
    }
}

/* ---- public API --------------------------------------------------------------------------- */

/* The device a public call evaluates for: the nominal part of arch, or the context's. */
static w8a8_status public_device(w8a8_context *ctx, const char *arch, space_device *dev)
{
    return arch ? space_device_nominal(ctx, arch, dev) : space_device_from_ctx(ctx, dev);
}

static w8a8_status check_problem(w8a8_context *ctx, const w8a8_problem *problem)
{
    if (!problem)
        return errorf(ctx, W8A8_INVALID, "problem is NULL");
    if (problem->m < 1 || problem->n < 1 || problem->k < 1)
        return errorf(ctx, W8A8_INVALID, "problem sizes must be ≥ 1 (m=%lld n=%lld k=%lld)",
                      (long long)problem->m, (long long)problem->n, (long long)problem->k);
    if (!w8a8_dtype_name(problem->a_type) || !w8a8_dtype_name(problem->b_type) ||
        !w8a8_dtype_name(problem->out_type) || !w8a8_dtype_name(problem->bias_type) ||
        !w8a8_scale_kind_name(problem->a_scale.kind) ||
        !w8a8_scale_kind_name(problem->b_scale.kind))
        return errorf(ctx, W8A8_INVALID, "problem has an unknown dtype or scale kind");
    return W8A8_OK;
}

/* Copies an enumeration into the public result: one block of pointers and strings. */
static w8a8_status result_fill(w8a8_context *ctx, const space_enumeration *e,
                               w8a8_space_result *out)
{
    size_t strings = 0;
    for (size_t i = 0; i < e->count; i++)
        strings += strlen(e->candidates[i].config) + 1;
    out->configs = malloc(e->count * sizeof(char *) + strings + 1);
    out->ranks = malloc((e->count ? e->count : 1) * sizeof(double));
    if (!out->configs || !out->ranks)
        return errorf(ctx, W8A8_NO_MEMORY, "no memory for %zu configs", e->count);
    char *text = (char *)(out->configs + e->count);
    for (size_t i = 0; i < e->count; i++) {
        size_t len = strlen(e->candidates[i].config) + 1;
        memcpy(text, e->candidates[i].config, len);
        out->configs[i] = text;
        out->ranks[i] = e->candidates[i].rank;
        text += len;
    }
    out->count = e->count;
    out->total = e->total;
    out->invalid = e->invalid;
    return W8A8_OK;
}

w8a8_status w8a8_space_enumerate(w8a8_context *ctx, const char *space_name_or_path,
                                 const w8a8_problem *problem, const char *arch,
                                 w8a8_space_result *out)
{
    if (out) /* zero-filled on every failure, so that w8a8_space_result_free is safe */
        memset(out, 0, sizeof *out);
    if (!ctx || !out || !space_name_or_path)
        return errorf(ctx, W8A8_INVALID, "w8a8_space_enumerate: ctx, space and out are required");
    error_clear(ctx);
    space_device dev;
    space *s = NULL;
    space_enumeration e = {0};
    bool applies = false;
    w8a8_status st = check_problem(ctx, problem);
    if (st == W8A8_OK)
        st = public_device(ctx, arch, &dev);
    if (st == W8A8_OK)
        st = space_load(ctx, space_name_or_path, &s);
    if (st == W8A8_OK)
        st = space_applies(ctx, s, problem, &dev, &applies);
    if (st == W8A8_OK)
        st = space_enumerate(ctx, s, problem, &dev, &e);
    if (st == W8A8_OK) {
        snprintf(out->name, sizeof out->name, "%s", space_name(s));
        snprintf(out->template_name, sizeof out->template_name, "%s", space_template(s));
        snprintf(out->arch, sizeof out->arch, "%s", space_arch(s));
        snprintf(out->device, sizeof out->device, "%s", dev.name);
        out->applies = applies;
        st = result_fill(ctx, &e, out);
    }
    space_enumeration_free(&e);
    space_free(s);
    if (st != W8A8_OK)
        w8a8_space_result_free(out);
    return st;
}

void w8a8_space_result_free(w8a8_space_result *result)
{
    if (result) {
        free(result->configs);
        free(result->ranks);
        memset(result, 0, sizeof *result);
    }
}

w8a8_status w8a8_space_default(w8a8_context *ctx, const char *space_name_or_path,
                               const w8a8_problem *problem, const char *arch, char *config,
                               size_t size)
{
    if (config && size > 0)
        config[0] = '\0';
    if (!ctx || !space_name_or_path || !config || size == 0)
        return errorf(ctx, W8A8_INVALID, "w8a8_space_default: ctx, space and config are required");
    error_clear(ctx);
    space_device dev;
    space *s = NULL;
    w8a8_status st = check_problem(ctx, problem);
    if (st == W8A8_OK)
        st = public_device(ctx, arch, &dev);
    if (st == W8A8_OK)
        st = space_load(ctx, space_name_or_path, &s);
    if (st == W8A8_OK)
        st = space_default(ctx, s, problem, &dev, config, size);
    space_free(s);
    return st;
}

static void plan_publish(const space *s, const char *arch, const space_compile_plan *internal,
                         w8a8_space_plan *plan)
{
    snprintf(plan->name, sizeof plan->name, "%s", space_name(s));
    snprintf(plan->template_name, sizeof plan->template_name, "%s", space_template(s));
    snprintf(plan->arch, sizeof plan->arch, "%s", arch);
    plan->problems = internal->problems;
    plan->not_applied = internal->not_applied;
    plan->total = internal->total;
    plan->invalid = internal->invalid;
    plan->capped = internal->capped;
}

w8a8_status w8a8_space_compile_plan(w8a8_context *ctx, const char *space_name_or_path,
                                    const char *arch, size_t max_per_problem,
                                    w8a8_space_plan *plan)
{
    if (plan) /* zero-filled on every failure, so that w8a8_space_plan_free is safe */
        memset(plan, 0, sizeof *plan);
    if (!ctx || !space_name_or_path || !arch || !plan)
        return errorf(ctx, W8A8_INVALID,
                      "w8a8_space_compile_plan: ctx, space, arch and plan are required");
    error_clear(ctx);
    space_device dev;
    space *s = NULL;
    space_compile_plan internal = {0};
    w8a8_status st = space_device_nominal(ctx, arch, &dev);
    if (st == W8A8_OK)
        st = space_load(ctx, space_name_or_path, &s);
    if (st == W8A8_OK && space_targets_arch(s, arch)) {
        plan->targets_arch = 1;
        st = space_compile_plan_make(ctx, s, &dev, max_per_problem, &internal);
    }
    if (st == W8A8_OK && internal.count) {
        plan->items = malloc(internal.count * sizeof *plan->items);
        if (!plan->items)
            st = errorf(ctx, W8A8_NO_MEMORY, "no memory for a plan of %zu kernels", internal.count);
    }
    if (st == W8A8_OK) {
        plan_publish(s, arch, &internal, plan);
        for (size_t i = 0; i < internal.count; i++) {
            plan->items[i].problem = internal.items[i].problem;
            snprintf(plan->items[i].config, sizeof plan->items[i].config, "%s",
                     internal.items[i].config);
        }
        plan->count = internal.count;
    }
    space_compile_plan_free(&internal);
    space_free(s);
    if (st != W8A8_OK)
        w8a8_space_plan_free(plan);
    return st;
}

void w8a8_space_plan_free(w8a8_space_plan *plan)
{
    if (plan) {
        free(plan->items);
        memset(plan, 0, sizeof *plan);
    }
}
