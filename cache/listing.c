/* The public read side of the cache: w8a8_cache_list (every layer's rows, or winners, or
 * record mode's untuned keys), w8a8_cache_explain and w8a8_cache_warnings. */
#include <stdio.h>
#include <string.h>

#include "cache_impl.h"

/* Filter parameters follow the 20 key parameters: ?21 arch, ?22 device name, ?23 whether the
 * problem filter applies. */
#define FILTER_WHERE(D_ARCH, D_NAME, P)                                                        \
    " WHERE (?21 IS NULL OR " D_ARCH " = ?21) AND (?22 IS NULL OR " D_NAME " = ?22)"          \
    " AND (?23 = 0 OR (" CACHE_PROBLEM_MATCH(P) "))"

static const char list_measurements_sql[] =
    "SELECT " CACHE_KEY_COLUMNS ", " CACHE_MEASUREMENT_COLUMNS ","
    " measurement_id IN (SELECT id FROM winners) AS is_winner FROM measurement_rows r"
    FILTER_WHERE("r.arch", "r.device_name", "r");
static const char list_order[] =
    " ORDER BY arch, device_name, sm_count, memory_bytes, a_type, b_type, out_type, bias_type,"
    " a_scale, b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp, n, k,"
    " m_bucket, accum, median_us, timestamp, measurement_id";
static const char list_untuned_sql[] =
    "SELECT " CACHE_KEY_SELECT("d", "p") ", u.count, u.last_m FROM untuned u"
    " JOIN problems p ON p.id = u.problem_id JOIN devices d ON d.id = p.device_id"
    FILTER_WHERE("d.arch", "d.name", "p")
    " ORDER BY u.count DESC, u.last_seen DESC, p.id";

/* The problem a key stands for: m is the bucket, strides dense. */
static void key_to_entry(const cache_key *key, w8a8_cache_entry *entry)
{
    cache_copy(entry->device.arch, sizeof entry->device.arch, key->device.arch);
    cache_copy(entry->device.name, sizeof entry->device.name, key->device.name);
    entry->device.sm_count = key->device.sm_count;
    entry->device.memory_bytes = key->device.memory_bytes;
    w8a8_problem *p = &entry->problem;
    p->m = key->m_bucket;
    p->n = key->n;
    p->k = key->k;
    p->a_type = key->a_type;
    p->b_type = key->b_type;
    p->out_type = key->out_type;
    p->bias_type = key->bias_type;
    p->a_scale.kind = key->a_scale;
    p->a_scale.group_rows = key->a_group_rows;
    p->a_scale.group_k = key->a_group_k;
    p->a_scale.k_major = key->a_k_major;
    p->b_scale.kind = key->b_scale;
    p->b_scale.group_rows = key->b_group_rows;
    p->b_scale.group_k = key->b_group_k;
    p->azp = key->azp;
    p->accum = key->accum;
}

static void measurement_to_entry(const cache_measurement *m, w8a8_cache_entry *entry)
{
    cache_copy(entry->family, sizeof entry->family, m->family);
    cache_copy(entry->config, sizeof entry->config, m->config);
    entry->median_us = m->median_us;
    entry->spread_us = m->spread_us;
    entry->samples = m->samples;
    entry->verify_error = m->verify_error;
    entry->verified = m->verified;
    cache_copy(entry->status, sizeof entry->status, m->status);
    entry->registers = m->registers;
    entry->spills = m->spills;
    entry->compile_ms = m->compile_ms;
    cache_copy(entry->template_hash, sizeof entry->template_hash, m->template_hash);
    entry->driver_version = m->driver_version;
    entry->nvrtc_version = m->nvrtc_version;
    cache_copy(entry->lib_version, sizeof entry->lib_version, m->lib_version);
    entry->timestamp = m->timestamp;
}

static void bind_filter(sqlite3_stmt *stmt, const w8a8_cache_filter *filter)
{
    cache_key key;
    memset(&key, 0, sizeof key);
    if (filter->problem)
        cache_key_make(&key, filter->problem, NULL);
    cache_bind_key(stmt, 1, &key);
    if (filter->arch)
        sqlite3_bind_text(stmt, 21, filter->arch, -1, SQLITE_TRANSIENT);
    if (filter->device_name)
        sqlite3_bind_text(stmt, 22, filter->device_name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(stmt, 23, filter->problem != NULL);
}

/* Visits one layer's rows; *stop is set when the callback asked to stop. SQLite code. */
static int list_layer(const cache_layer *layer, const w8a8_cache_filter *filter,
                      w8a8_cache_visit visit, void *user, bool *stop)
{
    bool untuned = filter->flags & W8A8_CACHE_UNTUNED;
    static const char winners_only[] = " AND measurement_id IN (SELECT id FROM winners)";
    char sql[sizeof list_measurements_sql + sizeof winners_only + sizeof list_order];
    if (untuned)
        cache_copy(sql, sizeof sql, list_untuned_sql);
    else
        snprintf(sql, sizeof sql, "%s%s%s", list_measurements_sql,
                 filter->flags & W8A8_CACHE_WINNERS ? winners_only : "", list_order);
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(layer->db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_ERROR && untuned)
        return SQLITE_OK; /* a migrated copy always has the table; be lenient anyway */
    if (rc != SQLITE_OK)
        return rc;
    bind_filter(stmt, filter);
    w8a8_cache_entry entry;
    while (!*stop && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        cache_key key;
        memset(&entry, 0, sizeof entry);
        if (!cache_read_key(stmt, 0, &key))
            continue; /* a dtype or layout this build does not know */
        key_to_entry(&key, &entry);
        cache_copy(entry.source, sizeof entry.source, layer->path);
        if (untuned) {
            cache_copy(entry.status, sizeof entry.status, "untuned");
            entry.untuned_count = sqlite3_column_int64(stmt, CACHE_KEY_COUNT);
            entry.last_m = sqlite3_column_int64(stmt, CACHE_KEY_COUNT + 1);
            entry.verify_error = -1.0;
        } else {
            cache_measurement m;
            cache_read_measurement(stmt, CACHE_KEY_COUNT, &m);
            measurement_to_entry(&m, &entry);
            entry.is_winner = sqlite3_column_int(stmt, CACHE_ROW_COUNT);
        }
        *stop = visit(user, &entry) != 0;
    }
    sqlite3_finalize(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

w8a8_status w8a8_cache_list(w8a8_context *ctx, const w8a8_cache_filter *filter,
                            w8a8_cache_visit visit, void *user)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!visit)
        return errorf(ctx, W8A8_INVALID, "visit is NULL");
    error_clear(ctx);
    w8a8_cache_filter none = {0};
    const w8a8_cache_filter *f = filter ? filter : &none;
    w8a8_status st;
    cache_store *store = cache_store_lock(ctx, &st);
    if (!store)
        return st;
    bool stop = false;
    bool user_only = f->flags & (W8A8_CACHE_USER_ONLY | W8A8_CACHE_UNTUNED);
    size_t layers = user_only ? 0 : store->readonly_count;
    for (size_t i = 0; i <= layers && !stop && st == W8A8_OK; i++) {
        const cache_layer *layer = i == 0 ? &store->user : &store->readonly[i - 1];
        if (layer->db && list_layer(layer, f, visit, user, &stop) != SQLITE_OK)
            st = errorf(ctx, W8A8_CACHE_ERROR, "cannot list %s: %s", layer->path,
                        sqlite3_errmsg(layer->db));
    }
    pthread_mutex_unlock(&store->mutex);
    return st;
}

const char *w8a8_cache_warnings(w8a8_context *ctx)
{
    if (!ctx)
        return "";
    cache_open(ctx);
    return cache_warnings(ctx);
}

/* ---- explain -------------------------------------------------------------------------------- */

/* "tensor × row scales, bf16 out, no bias" */
static void epilogue_text(w8a8_scale_kind a, w8a8_scale_kind b, w8a8_dtype out, w8a8_dtype bias,
                          char *text, size_t size)
{
    char with_bias[32];
    snprintf(with_bias, sizeof with_bias, "%s bias", w8a8_dtype_name(bias));
    snprintf(text, size, "%s × %s scales, %s out, %s", w8a8_scale_kind_name(a),
             w8a8_scale_kind_name(b), w8a8_dtype_name(out),
             bias == W8A8_DTYPE_NONE ? "no bias" : with_bias);
}

static void explain_reason(const cache_device *device, const cache_winner *w, const cache_key *key,
                           w8a8_explain *out)
{
    int64_t bucket = key->m_bucket;
    char measured_on[256];
    if (w->device_match == CACHE_EXACT)
        snprintf(measured_on, sizeof measured_on, "this device (%s, %d SMs)", w->device_name,
                 w->sm_count);
    else if (w->device_match == CACHE_PRODUCT && w->sm_count != device->sm_count)
        snprintf(measured_on, sizeof measured_on, "the same product with %d SMs instead of %d",
                 w->sm_count, device->sm_count);
    else if (w->device_match == CACHE_PRODUCT) /* same SMs: the memory size differs */
        snprintf(measured_on, sizeof measured_on,
                 "the same product (%s, %d SMs) with another memory size", w->device_name,
                 w->sm_count);
    else
        snprintf(measured_on, sizeof measured_on, "a foreign %s device (%s, %d SMs)",
                 device->arch, w->device_name, w->sm_count);
    switch (w->match) {
    case CACHE_MISS:
        snprintf(out->reason, sizeof out->reason,
                 "no tuned row for this problem class on any %s device in the cache",
                 device->arch);
        break;
    case CACHE_NEAR_BUCKET:
        snprintf(out->reason, sizeof out->reason,
                 "no %s device has M bucket %lld; nearest bucket %lld, tuned on %s, %.2f us",
                 device->arch, (long long)bucket, (long long)w->m_bucket, measured_on,
                 w->median_us);
        break;
    case CACHE_EPILOGUE: {
        char asked[64], lent[64];
        epilogue_text(key->a_scale, key->b_scale, key->out_type, key->bias_type, asked,
                      sizeof asked);
        epilogue_text(w->a_scale, w->b_scale, w->out_type, w->bias_type, lent, sizeof lent);
        snprintf(out->reason, sizeof out->reason,
                 "no row for %s; the one of the same shape with %s (it changes only the "
                 "epilogue), tuned at M bucket %lld on %.200s, %.2f us",
                 asked, lent, (long long)w->m_bucket, measured_on, w->median_us);
        break;
    }
    default:
        snprintf(out->reason, sizeof out->reason, "tuned at M bucket %lld on %s, %.2f us",
                 (long long)bucket, measured_on, w->median_us);
        break;
    }
}

w8a8_status w8a8_cache_explain_device(w8a8_context *ctx, const w8a8_problem *problem,
                                      const w8a8_cache_device *device, w8a8_explain *out)
{
    if (!ctx)
        return errorf(NULL, W8A8_INVALID, "ctx is NULL");
    if (!problem || !out)
        return errorf(ctx, W8A8_INVALID, "%s is NULL", problem ? "out" : "problem");
    if (problem->m < 1 || problem->n < 1 || problem->k < 1)
        return errorf(ctx, W8A8_INVALID, "problem: m, n and k must be ≥ 1 (got %lld, %lld, %lld)",
                      (long long)problem->m, (long long)problem->n, (long long)problem->k);
    error_clear(ctx);
    memset(out, 0, sizeof *out);
    cache_device dev;
    memset(&dev, 0, sizeof dev);
    if (device) {
        /* The caller's arrays need not be NUL-terminated: read no further than they go. */
        snprintf(dev.arch, sizeof dev.arch, "%.*s", (int)sizeof device->arch, device->arch);
        snprintf(dev.name, sizeof dev.name, "%.*s", (int)sizeof device->name, device->name);
        dev.sm_count = device->sm_count;
        dev.memory_bytes = device->memory_bytes;
    } else {
        w8a8_status st = cache_device_from_ctx(ctx, &dev);
        if (st != W8A8_OK)
            return st;
    }
    cache_key key;
    cache_winner w;
    cache_key_make(&key, problem, &dev);
    w8a8_status st = cache_lookup(ctx, &key, &w);
    if (st != W8A8_OK)
        return st;
    out->m_bucket = key.m_bucket;
    cache_copy(out->match, sizeof out->match, cache_match_name(w.match));
    if (w.match != CACHE_MISS) {
        cache_copy(out->family, sizeof out->family, w.family);
        cache_copy(out->config, sizeof out->config, w.config);
        cache_copy(out->device_match, sizeof out->device_match, cache_match_name(w.device_match));
        out->foreign = w.device_match != CACHE_EXACT;
        cache_copy(out->source, sizeof out->source, w.source);
        cache_copy(out->device_name, sizeof out->device_name, w.device_name);
        out->measured_bucket = w.m_bucket;
        out->median_us = w.median_us;
    }
    explain_reason(&dev, &w, &key, out);
    return W8A8_OK;
}

w8a8_status w8a8_cache_explain(w8a8_context *ctx, const w8a8_problem *problem, w8a8_explain *out)
{
    return w8a8_cache_explain_device(ctx, problem, NULL, out);
}
