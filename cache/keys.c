/* Problem keys: M buckets, the key of a problem on a device, how keys and measurements are
 * written to and read from SQL statements (dtypes, scale kinds and zero points are stored by
 * name so exported files stay readable), and the id of a key's row in a database. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_impl.h"
#include "gemm.h"

/* The runtime holds DESIGN.md's M buckets (gemm_m_bucket): the families that plan per bucket
 * read the same ones. */
int64_t cache_m_bucket(int64_t m)
{
    return gemm_m_bucket(m);
}

void cache_copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

void cache_key_make(cache_key *key, const w8a8_problem *problem, const cache_device *device)
{
    memset(key, 0, sizeof *key);
    if (device)
        key->device = *device;
    key->a_type = problem->a_type;
    key->b_type = problem->b_type;
    key->out_type = problem->out_type;
    key->bias_type = problem->bias_type;
    key->a_scale = problem->a_scale.kind;
    key->b_scale = problem->b_scale.kind;
    /* group sizes and the A layout matter only for block scales: other kinds ignore them */
    if (key->a_scale == W8A8_SCALE_BLOCK) {
        key->a_group_rows = problem->a_scale.group_rows;
        key->a_group_k = problem->a_scale.group_k;
        key->a_k_major = problem->a_scale.k_major ? 1 : 0;
    }
    if (key->b_scale == W8A8_SCALE_BLOCK) {
        key->b_group_rows = problem->b_scale.group_rows;
        key->b_group_k = problem->b_scale.group_k;
    }
    key->azp = problem->azp;
    key->n = problem->n;
    key->k = problem->k;
    key->m_bucket = cache_m_bucket(problem->m);
    key->accum = gemm_promotes(problem) ? W8A8_ACCUM_PROMOTED : W8A8_ACCUM_FAST;
}

typedef struct epilogue_sibling {
    cache_key key;
    int cost;
    int order; /* enumeration order: the tie-break */
} epilogue_sibling;

static int by_cost(const void *x, const void *y)
{
    const epilogue_sibling *a = x, *b = y;
    return a->cost != b->cost ? (a->cost < b->cost ? -1 : 1) : (a->order < b->order ? -1 : 1);
}

/* The scale kinds a side may take: the other of per-tensor / per-row first, then its own. */
static int scale_choices(w8a8_scale_kind kind, w8a8_scale_kind out[2])
{
    if (kind != W8A8_SCALE_TENSOR && kind != W8A8_SCALE_ROW) {
        out[0] = kind;
        return 1;
    }
    out[0] = kind == W8A8_SCALE_TENSOR ? W8A8_SCALE_ROW : W8A8_SCALE_TENSOR;
    out[1] = kind;
    return 2;
}

size_t cache_epilogue_siblings(const cache_key *key, cache_key siblings[CACHE_EPILOGUES])
{
    /* out dtypes of the key's size only: a 16-bit tile staged for the epilogue takes half the
     * shared memory of an fp32 one (bf16 rows lent to fp32 out: 3,154 of the shipped caches'
     * configs refused) */
    static const w8a8_dtype outs16[] = {W8A8_BF16, W8A8_FP16}, outs32[] = {W8A8_FP32};
    const w8a8_dtype *outs = key->out_type == W8A8_FP32 ? outs32 : outs16;
    size_t out_count = key->out_type == W8A8_FP32 ? 1 : 2;
    w8a8_scale_kind as[2], bs[2];
    int na = scale_choices(key->a_scale, as), nb = scale_choices(key->b_scale, bs);
    epilogue_sibling all[2 * 2 * 3 * 3];
    int count = 0;
    /* B's kind kept before A's: the A side varies in the outer loop, tried first */
    for (int bi = nb - 1; bi >= 0; bi--)
        for (int ai = 0; ai < na; ai++)
            for (size_t oi = 0; oi < out_count; oi++) {
                w8a8_dtype out = outs[oi];
                const w8a8_dtype biases[] = {W8A8_DTYPE_NONE, out, W8A8_FP32};
                for (int k = 0; k < (out == W8A8_FP32 ? 2 : 3); k++) {
                    cache_key c = *key;
                    c.a_scale = as[ai];
                    c.b_scale = bs[bi];
                    c.out_type = out;
                    c.bias_type = biases[k];
                    bool had = key->bias_type != W8A8_DTYPE_NONE;
                    bool has = c.bias_type != W8A8_DTYPE_NONE;
                    int cost = (c.a_scale != key->a_scale) + (c.b_scale != key->b_scale) +
                               (had != has ? 2 : had && c.bias_type != key->bias_type) +
                               3 * (c.out_type != key->out_type);
                    if (cost == 0)
                        continue; /* the key itself */
                    all[count] = (epilogue_sibling){c, cost, count};
                    count++;
                }
            }
    qsort(all, (size_t)count, sizeof all[0], by_cost);
    size_t n = (size_t)count < CACHE_EPILOGUES ? (size_t)count : CACHE_EPILOGUES;
    for (size_t i = 0; i < n; i++)
        siblings[i] = all[i].key;
    return n;
}

w8a8_status cache_device_from_ctx(w8a8_context *ctx, cache_device *device)
{
    memset(device, 0, sizeof *device);
    w8a8_status st = context_require_device(ctx);
    if (st != W8A8_OK)
        return st;
    cache_copy(device->arch, sizeof device->arch, ctx->arch);
    cache_copy(device->name, sizeof device->name, ctx->device_name);
    device->sm_count = ctx->sm_count;
    device->memory_bytes = ctx->memory_bytes;
    return W8A8_OK;
}

const char *cache_match_name(cache_match match)
{
    switch (match) {
    case CACHE_EXACT: return "exact";
    case CACHE_PRODUCT: return "product";
    case CACHE_ARCH: return "arch";
    case CACHE_NEAR_BUCKET: return "bucket";
    case CACHE_EPILOGUE: return "epilogue";
    case CACHE_MISS: break;
    }
    return "miss";
}

int cache_nvrtc_version(void)
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return 0;
    return major * 1000 + minor * 10;
}

w8a8_status cache_template_hash(w8a8_context *ctx, const char *family, char out[65])
{
    char name[96];
    out[0] = '\0';
    if (!util_format(name, sizeof name, "%s.cuh", family))
        return errorf(ctx, W8A8_INVALID, "family name '%s' is too long", family);
    const char *text = NULL;
    size_t size = 0;
    bool owned = false;
    w8a8_status st = source_read(ctx, "templates", name, &text, &size, &owned);
    if (st != W8A8_OK)
        return st;
    const void *buffers[1] = {text};
    util_sha256_hex(buffers, &size, 1, out);
    if (owned)
        free((void *)text);
    return W8A8_OK;
}

/* ---- names ---------------------------------------------------------------------------------- */

const char *cache_azp_name(w8a8_azp_kind azp)
{
    switch (azp) {
    case W8A8_AZP_NONE: return "none";
    case W8A8_AZP_TENSOR: return "tensor";
    case W8A8_AZP_TOKEN: return "token";
    }
    return NULL;
}

bool cache_azp_parse(const char *name, w8a8_azp_kind *azp)
{
    static const w8a8_azp_kind kinds[] = {W8A8_AZP_NONE, W8A8_AZP_TENSOR, W8A8_AZP_TOKEN};
    for (size_t i = 0; name && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(name, cache_azp_name(kinds[i])) == 0) {
            *azp = kinds[i];
            return true;
        }
    return false;
}

bool cache_scale_parse(const char *name, w8a8_scale_kind *kind)
{
    static const w8a8_scale_kind kinds[] = {W8A8_SCALE_TENSOR, W8A8_SCALE_ROW, W8A8_SCALE_BLOCK};
    for (size_t i = 0; name && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(name, w8a8_scale_kind_name(kinds[i])) == 0) {
            *kind = kinds[i];
            return true;
        }
    return false;
}

/* A dtype's stored name; an out-of-range value is stored as "?" and never matches. */
static const char *dtype_text(w8a8_dtype dtype)
{
    const char *name = w8a8_dtype_name(dtype);
    return name ? name : "?";
}

static const char *text_or(const char *text, const char *fallback) { return text ? text : fallback; }

/* ---- binding and reading -------------------------------------------------------------------- */

static void bind_text(sqlite3_stmt *stmt, int index, const char *text)
{
    sqlite3_bind_text(stmt, index, text, -1, SQLITE_TRANSIENT);
}

void cache_bind_key(sqlite3_stmt *stmt, int first, const cache_key *key)
{
    int i = first;
    bind_text(stmt, i++, key->device.arch);
    bind_text(stmt, i++, key->device.name);
    sqlite3_bind_int(stmt, i++, key->device.sm_count);
    sqlite3_bind_int64(stmt, i++, (int64_t)key->device.memory_bytes);
    bind_text(stmt, i++, dtype_text(key->a_type));
    bind_text(stmt, i++, dtype_text(key->b_type));
    bind_text(stmt, i++, dtype_text(key->out_type));
    bind_text(stmt, i++, dtype_text(key->bias_type));
    bind_text(stmt, i++, text_or(w8a8_scale_kind_name(key->a_scale), "?"));
    bind_text(stmt, i++, text_or(w8a8_scale_kind_name(key->b_scale), "?"));
    sqlite3_bind_int(stmt, i++, key->a_group_rows);
    sqlite3_bind_int(stmt, i++, key->a_group_k);
    sqlite3_bind_int(stmt, i++, key->b_group_rows);
    sqlite3_bind_int(stmt, i++, key->b_group_k);
    sqlite3_bind_int(stmt, i++, key->a_k_major);
    bind_text(stmt, i++, text_or(cache_azp_name(key->azp), "?"));
    sqlite3_bind_int64(stmt, i++, key->n);
    sqlite3_bind_int64(stmt, i++, key->k);
    sqlite3_bind_int64(stmt, i++, key->m_bucket);
    bind_text(stmt, i++, text_or(w8a8_accum_name(key->accum), "?"));
}

void cache_bind_measurement(sqlite3_stmt *stmt, int first, const cache_measurement *m)
{
    int i = first;
    bind_text(stmt, i++, m->family);
    bind_text(stmt, i++, m->config);
    sqlite3_bind_double(stmt, i++, m->median_us);
    sqlite3_bind_double(stmt, i++, m->spread_us);
    sqlite3_bind_int(stmt, i++, m->samples);
    sqlite3_bind_double(stmt, i++, m->verify_error);
    sqlite3_bind_int(stmt, i++, m->verified ? 1 : 0);
    bind_text(stmt, i++, m->status);
    sqlite3_bind_int(stmt, i++, m->registers);
    sqlite3_bind_int(stmt, i++, m->spills);
    sqlite3_bind_double(stmt, i++, m->compile_ms);
    bind_text(stmt, i++, m->template_hash);
    sqlite3_bind_int(stmt, i++, m->driver_version);
    sqlite3_bind_int(stmt, i++, m->nvrtc_version);
    bind_text(stmt, i++, m->lib_version);
    sqlite3_bind_int64(stmt, i++, m->timestamp);
}

static const char *column_text(sqlite3_stmt *stmt, int column)
{
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return text ? (const char *)text : "";
}

bool cache_read_key(sqlite3_stmt *stmt, int first, cache_key *key)
{
    int i = first;
    bool ok = true;
    memset(key, 0, sizeof *key);
    cache_copy(key->device.arch, sizeof key->device.arch, column_text(stmt, i++));
    cache_copy(key->device.name, sizeof key->device.name, column_text(stmt, i++));
    key->device.sm_count = sqlite3_column_int(stmt, i++);
    key->device.memory_bytes = (uint64_t)sqlite3_column_int64(stmt, i++);
    w8a8_dtype *dtypes[] = {&key->a_type, &key->b_type, &key->out_type, &key->bias_type};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        ok &= w8a8_dtype_parse(column_text(stmt, i++), dtypes[d]) == W8A8_OK;
    ok &= cache_scale_parse(column_text(stmt, i++), &key->a_scale);
    ok &= cache_scale_parse(column_text(stmt, i++), &key->b_scale);
    key->a_group_rows = sqlite3_column_int(stmt, i++);
    key->a_group_k = sqlite3_column_int(stmt, i++);
    key->b_group_rows = sqlite3_column_int(stmt, i++);
    key->b_group_k = sqlite3_column_int(stmt, i++);
    key->a_k_major = sqlite3_column_int(stmt, i++);
    ok &= cache_azp_parse(column_text(stmt, i++), &key->azp);
    key->n = sqlite3_column_int64(stmt, i++);
    key->k = sqlite3_column_int64(stmt, i++);
    key->m_bucket = sqlite3_column_int64(stmt, i++);
    ok &= w8a8_accum_parse(column_text(stmt, i++), &key->accum) == W8A8_OK;
    return ok;
}

void cache_read_measurement(sqlite3_stmt *stmt, int first, cache_measurement *m)
{
    int i = first;
    memset(m, 0, sizeof *m);
    cache_copy(m->family, sizeof m->family, column_text(stmt, i++));
    cache_copy(m->config, sizeof m->config, column_text(stmt, i++));
    m->median_us = sqlite3_column_double(stmt, i++);
    m->spread_us = sqlite3_column_double(stmt, i++);
    m->samples = sqlite3_column_int(stmt, i++);
    m->verify_error = sqlite3_column_type(stmt, i) == SQLITE_NULL ? -1.0
                                                                  : sqlite3_column_double(stmt, i);
    i++;
    m->verified = sqlite3_column_int(stmt, i++);
    cache_copy(m->status, sizeof m->status, column_text(stmt, i++));
    m->registers = sqlite3_column_int(stmt, i++);
    m->spills = sqlite3_column_int(stmt, i++);
    m->compile_ms = sqlite3_column_double(stmt, i++);
    cache_copy(m->template_hash, sizeof m->template_hash, column_text(stmt, i++));
    m->driver_version = sqlite3_column_int(stmt, i++);
    m->nvrtc_version = sqlite3_column_int(stmt, i++);
    cache_copy(m->lib_version, sizeof m->lib_version, column_text(stmt, i++));
    m->timestamp = sqlite3_column_int64(stmt, i++);
}

/* ---- key rows ------------------------------------------------------------------------------- */

static int run_key_statement(sqlite3 *db, const char *sql, const cache_key *key, int64_t *id)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return rc;
    cache_bind_key(stmt, 1, key);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW && id)
        *id = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int cache_problem_id(sqlite3 *db, const cache_key *key, int64_t *id)
{
    static const char insert_device[] =
        "INSERT OR IGNORE INTO devices (arch, name, sm_count, memory_bytes)"
        " VALUES (?1, ?2, ?3, ?4)";
    static const char insert_problem[] =
        "INSERT OR IGNORE INTO problems (device_id, a_type, b_type, out_type, bias_type,"
        " a_scale, b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k, a_k_major, azp,"
        " n, k, m_bucket, accum) SELECT d.id, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
        " ?16, ?17, ?18, ?19, ?20 FROM devices d WHERE " CACHE_DEVICE_MATCH("d");
    static const char select_problem[] =
        "SELECT p.id FROM problems p JOIN devices d ON d.id = p.device_id WHERE "
        CACHE_DEVICE_MATCH("d") " AND " CACHE_PROBLEM_MATCH("p");
    *id = -1;
    int rc = run_key_statement(db, insert_device, key, NULL);
    if (rc == SQLITE_OK)
        rc = run_key_statement(db, insert_problem, key, NULL);
    if (rc == SQLITE_OK)
        rc = run_key_statement(db, select_problem, key, id);
    if (rc == SQLITE_OK && *id < 0)
        rc = SQLITE_INTERNAL;
    return rc;
}
