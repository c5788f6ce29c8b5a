/* The tables a tuning space sees: problems and devices as Lua tables and back, the nominal
 * devices `w8a8 compile` plans for without a GPU, and the names of the embedded spaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "embedded.h"
#include "gemm.h"
#include "space_lua.h"

/* Registers per SM on every arch from sm_80 to sm_90. */
#define W8A8_REGS_PER_SM 65536
#define MIB ((uint64_t)1 << 20)

/* Representative parts per arch: what `w8a8 compile --arch` prunes against. Shared memory
 * is the per-block opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin). */
static const struct nominal_device {
    const char *arch;
    const char *name;
    int cc_major, cc_minor;
    int sm_count;
    int max_smem_optin;
    uint64_t l2_bytes;
} nominal_devices[] = {
    {"sm_80", "NVIDIA A100-SXM4-80GB (nominal)", 8, 0, 108, 166912, 40 * MIB},
    {"sm_86", "NVIDIA A10 (nominal)", 8, 6, 72, 101376, 6 * MIB},
    {"sm_89", "NVIDIA L40S (nominal)", 8, 9, 142, 101376, 96 * MIB},
    {"sm_90", "NVIDIA H100 80GB HBM3 (nominal)", 9, 0, 132, GEMM_SM90_SMEM_OPTIN, 50 * MIB},
};

w8a8_status space_device_nominal(w8a8_context *ctx, const char *arch, space_device *dev)
{
    char base[16];
    size_t len = arch ? strlen(arch) : 0;
    if (len == 0 || len >= sizeof base)
        return errorf(ctx, W8A8_INVALID, "arch '%s' is not one of sm_80, sm_86, sm_89, sm_90, "
                      "sm_90a", arch ? arch : "(null)");
    memcpy(base, arch, len + 1);
    if (base[len - 1] == 'a') /* sm_90a: the arch-specific target of the same part */
        base[len - 1] = '\0';
    for (size_t i = 0; i < sizeof nominal_devices / sizeof nominal_devices[0]; i++) {
        const struct nominal_device *d = &nominal_devices[i];
        if (strcmp(d->arch, base) != 0)
            continue;
        memset(dev, 0, sizeof *dev);
        snprintf(dev->arch, sizeof dev->arch, "%s", d->arch);
        snprintf(dev->name, sizeof dev->name, "%s", d->name);
        dev->cc_major = d->cc_major;
        dev->cc_minor = d->cc_minor;
        dev->sm_count = d->sm_count;
        dev->max_smem_optin = d->max_smem_optin;
        dev->l2_bytes = d->l2_bytes;
        return W8A8_OK;
    }
    return errorf(ctx, W8A8_INVALID, "arch '%s' is not one of sm_80, sm_86, sm_89, sm_90, sm_90a",
                  arch);
}

w8a8_status space_device_from_ctx(w8a8_context *ctx, space_device *dev)
{
    w8a8_status st = context_require_device(ctx);
    if (st != W8A8_OK)
        return st;
    memset(dev, 0, sizeof *dev);
    snprintf(dev->arch, sizeof dev->arch, "%s", ctx->arch);
    snprintf(dev->name, sizeof dev->name, "%s", ctx->device_name);
    dev->cc_major = ctx->cc_major;
    dev->cc_minor = ctx->cc_minor;
    dev->sm_count = ctx->sm_count;
    dev->max_smem_optin = ctx->max_smem_optin;
    dev->l2_bytes = ctx->l2_bytes;
    return W8A8_OK;
}

/* ---- C → Lua ------------------------------------------------------------------------------ */

static void set_string(lua_State *L, const char *key, const char *value)
{
    lua_pushstring(L, value ? value : "?");
    lua_setfield(L, -2, key);
}

static void set_integer(lua_State *L, const char *key, int64_t value)
{
    lua_pushinteger(L, (lua_Integer)value);
    lua_setfield(L, -2, key);
}

static const char *azp_name(w8a8_azp_kind azp)
{
    switch (azp) {
    case W8A8_AZP_NONE: return "none";
    case W8A8_AZP_TENSOR: return "tensor";
    case W8A8_AZP_TOKEN: return "token";
    }
    return "?";
}

void space_push_problem(lua_State *L, const w8a8_problem *p)
{
    lua_createtable(L, 0, 16);
    set_integer(L, "m", p->m);
    set_integer(L, "n", p->n);
    set_integer(L, "k", p->k);
    set_string(L, "a_type", w8a8_dtype_name(p->a_type));
    set_string(L, "b_type", w8a8_dtype_name(p->b_type));
    set_string(L, "out_type", w8a8_dtype_name(p->out_type));
    set_string(L, "bias_type", w8a8_dtype_name(p->bias_type));
    set_string(L, "a_scale", w8a8_scale_kind_name(p->a_scale.kind));
    set_string(L, "b_scale", w8a8_scale_kind_name(p->b_scale.kind));
    set_integer(L, "a_group_rows", p->a_scale.group_rows);
    set_integer(L, "a_group_k", p->a_scale.group_k);
    set_integer(L, "b_group_rows", p->b_scale.group_rows);
    set_integer(L, "b_group_k", p->b_scale.group_k);
    lua_pushboolean(L, p->a_scale.k_major != 0);
    lua_setfield(L, -2, "a_k_major");
    set_string(L, "azp", azp_name(p->azp));
    /* as the key has it: "promoted" only where it changes the kernel (gemm_promotes) */
    set_string(L, "accum", w8a8_accum_name(gemm_promotes(p) ? W8A8_ACCUM_PROMOTED
                                                            : W8A8_ACCUM_FAST));
}

void space_push_device(lua_State *L, const space_device *d)
{
    lua_createtable(L, 0, 8);
    set_string(L, "arch", d->arch);
    set_string(L, "name", d->name);
    set_integer(L, "cc_major", d->cc_major);
    set_integer(L, "cc_minor", d->cc_minor);
    set_integer(L, "sm_count", d->sm_count);
    set_integer(L, "max_smem", d->max_smem_optin);
    set_integer(L, "l2_bytes", (int64_t)d->l2_bytes);
    set_integer(L, "regs_per_sm", W8A8_REGS_PER_SM);
    lua_pushboolean(L, d->named);
    lua_setfield(L, -2, "named");
}

/* ---- Lua → C ------------------------------------------------------------------------------ */

typedef struct problem_reader {
    sandbox *sb;
    int idx, line;
    const char *what;
} problem_reader;

/* Integer field `key` (≥ minimum), or `fallback` when absent (fallback < 0: required). */
static bool read_integer(const problem_reader *r, const char *key, int64_t fallback,
                         int64_t minimum, int64_t *out)
{
    lua_State *L = r->sb->L;
    int type = lua_getfield(L, r->idx, key);
    int isint = 0;
    lua_Integer value = type == LUA_TNUMBER ? lua_tointegerx(L, -1, &isint) : 0;
    lua_pop(L, 1);
    if (type == LUA_TNIL && fallback >= 0) {
        *out = fallback;
        return true;
    }
    if (isint && value < minimum)
        return sandbox_fail(r->sb, r->line, "%s.%s must be ≥ %lld (got %lld)", r->what, key,
                            (long long)minimum, (long long)value);
    if (!isint)
        return sandbox_fail(r->sb, r->line, "%s.%s must be an integer (got %s)", r->what, key,
                            type == LUA_TNUMBER ? "a fraction" : lua_typename(L, type));
    *out = value;
    return true;
}

/* String field `key` matched against names[0..count) (index written to *out), or
 * `fallback` when absent. */
static bool read_name(const problem_reader *r, const char *key, const char *const *names,
                      int count, int fallback, int *out)
{
    lua_State *L = r->sb->L;
    int type = lua_getfield(L, r->idx, key);
    const char *value = type == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    *out = type == LUA_TNIL ? fallback : -1;
    for (int i = 0; value && i < count; i++)
        if (names[i] && strcmp(names[i], value) == 0)
            *out = i;
    if (*out < 0) {
        char allowed[128] = "";
        for (int i = 0; i < count; i++)
            if (names[i])
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                         allowed[0] ? ", " : "", names[i]);
        sandbox_fail(r->sb, r->line, "%s.%s must be one of %s (got %s%s%s)", r->what, key,
                     allowed, value ? "'" : "", value ? value : lua_typename(L, type),
                     value ? "'" : "");
    }
    lua_pop(L, 1);
    return *out >= 0;
}

static bool read_bool(const problem_reader *r, const char *key, bool *out)
{
    lua_State *L = r->sb->L;
    int type = lua_getfield(L, r->idx, key);
    *out = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
        return sandbox_fail(r->sb, r->line, "%s.%s must be a boolean (got %s)", r->what, key,
                            lua_typename(L, type));
    return true;
}

static bool read_scale(const problem_reader *r, char operand, w8a8_scale_layout *layout)
{
    static const char *const kinds[] = {"tensor", "row", "block"};
    char key[32];
    int kind;
    int64_t rows, group_k;
    snprintf(key, sizeof key, "%c_scale", operand);
    if (!read_name(r, key, kinds, 3, W8A8_SCALE_TENSOR, &kind))
        return false;
    snprintf(key, sizeof key, "%c_group_rows", operand);
    /* vLLM's block shapes: A 1×128 (per token), B 128×128 */
    if (!read_integer(r, key, operand == 'a' ? 1 : 128, 1, &rows))
        return false;
    snprintf(key, sizeof key, "%c_group_k", operand);
    if (!read_integer(r, key, 128, 1, &group_k))
        return false;
    memset(layout, 0, sizeof *layout);
    layout->kind = (w8a8_scale_kind)kind;
    if (kind == W8A8_SCALE_BLOCK) {
        layout->group_rows = (int32_t)rows;
        layout->group_k = (int32_t)group_k;
    }
    return true;
}

static bool read_dtypes(const problem_reader *r, w8a8_problem *out)
{
    static const char *const operand_types[] = {[W8A8_E4M3] = "e4m3", [W8A8_E5M2] = "e5m2",
                                                [W8A8_INT8] = "int8"};
    static const char *const out_types[] = {[W8A8_BF16] = "bf16", [W8A8_FP16] = "fp16",
                                            [W8A8_FP32] = "fp32"};
    static const char *const bias_types[] = {[W8A8_DTYPE_NONE] = "none", [W8A8_BF16] = "bf16",
                                             [W8A8_FP16] = "fp16", [W8A8_FP32] = "fp32"};
    int a, b, o, bias;
    if (!read_name(r, "a_type", operand_types, 4, W8A8_E4M3, &a) ||
        !read_name(r, "b_type", operand_types, 4, a, &b) ||
        !read_name(r, "out_type", out_types, 7, W8A8_BF16, &o) ||
        !read_name(r, "bias_type", bias_types, 7, W8A8_DTYPE_NONE, &bias))
        return false;
    out->a_type = (w8a8_dtype)a;
    out->b_type = (w8a8_dtype)b;
    out->out_type = (w8a8_dtype)o;
    out->bias_type = (w8a8_dtype)bias;
    return true;
}

bool space_read_problem(sandbox *sb, int idx, int line, const char *what, w8a8_problem *out)
{
    static const char *const azps[] = {"none", "tensor", "token"};
    static const char *const accums[] = {"fast", "promoted"};
    problem_reader r = {sb, lua_absindex(sb->L, idx), line, what};
    int64_t m, n, k;
    int azp, accum;
    bool k_major;
    if (lua_type(sb->L, r.idx) != LUA_TTABLE)
        return sandbox_fail(sb, line, "%s must be a table (got %s)", what,
                            luaL_typename(sb->L, r.idx));
    memset(out, 0, sizeof *out);
    if (!read_integer(&r, "m", -1, 1, &m) || !read_integer(&r, "n", -1, 1, &n) ||
        !read_integer(&r, "k", -1, 1, &k) || !read_dtypes(&r, out) ||
        !read_scale(&r, 'a', &out->a_scale) || !read_scale(&r, 'b', &out->b_scale) ||
        !read_bool(&r, "a_k_major", &k_major) || !read_name(&r, "azp", azps, 3, 0, &azp) ||
        !read_name(&r, "accum", accums, 2, 0, &accum))
        return false;
    out->m = m;
    out->n = n;
    out->k = k;
    out->a_scale.k_major = k_major && out->a_scale.kind == W8A8_SCALE_BLOCK;
    out->azp = (w8a8_azp_kind)azp;
    out->accum = (w8a8_accum)accum;
    return true;
}

/* ---- embedded spaces ---------------------------------------------------------------------- */

#define MAX_BUILTIN_SPACES 32

static const char *builtin_names[MAX_BUILTIN_SPACES + 1];
static char builtin_storage[MAX_BUILTIN_SPACES][64];

/* Top-level scripts/<name>.lua files of the embedded table, in table order. */
static void builtin_names_fill(void)
{
    size_t count = 0;
    for (size_t i = 0; i < embedded_file_count && count < MAX_BUILTIN_SPACES; i++) {
        const embedded_file *f = &embedded_files[i];
        size_t len = strlen(f->name);
        if (strcmp(f->kind, "scripts") != 0 || strchr(f->name, '/') || len < 5 ||
            strcmp(f->name + len - 4, ".lua") != 0 || len - 4 >= sizeof builtin_storage[0])
            continue;
        memcpy(builtin_storage[count], f->name, len - 4);
        builtin_storage[count][len - 4] = '\0';
        builtin_names[count] = builtin_storage[count];
        count++;
    }
    builtin_names[count] = NULL;
}

const char *const *space_builtin_names(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, builtin_names_fill);
    return builtin_names;
}
