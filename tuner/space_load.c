/* Loading a tuning space: its script's text (embedded, from W8A8_TEMPLATE_DIR or a file) and
 * the library every space gets (scripts/lib/gemm.lua, the global `gemm`), one sandboxed run of
 * both, and the table the space returns checked and read into a space: name, template, arch,
 * params (in enumeration order) and which functions it defines. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "space_lua.h"

const char *const space_function_names[FN_COUNT] = {"applies", "valid", "rank", "default",
                                                    "compile_problems", "prune", "fits"};

const char *space_name(const space *s) { return s->name; }
const char *space_template(const space *s) { return s->template_name; }
const char *space_arch(const space *s) { return s->arch; }
const char *space_file(const space *s) { return s->file; }
int space_param_count(const space *s) { return s->param_count; }
size_t space_config_total(const space *s) { return s->total; }

const space_param *space_param_at(const space *s, int i)
{
    return i >= 0 && i < s->param_count ? &s->params[i] : NULL;
}

int space_variant_count(const space *s) { return s->variant_count; }

const space_param *space_variant_at(const space *s, int i)
{
    return i >= 0 && i < s->variant_count ? &s->variants[i] : NULL;
}

void space_free(space *s)
{
    if (s) {
        space_memo_free(s->memo);
        free(s->source);
        free(s->library);
        free(s);
    }
}

/* ---- reading the table -------------------------------------------------------------------- */

static bool is_identifier(const char *text, size_t max)
{
    size_t len = strlen(text);
    if (len == 0 || len >= max || !(islower((unsigned char)text[0]) || text[0] == '_'))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!(islower((unsigned char)text[i]) || isdigit((unsigned char)text[i]) || text[i] == '_'))
            return false;
    return true;
}

/* "sm_80", "sm_90a": major and minor digit, and whether the target is arch-specific. */
bool space_parse_arch(const char *arch, int *cc, bool *specific)
{
    int major = 0, minor = 0, used = 0;
    char tail = '\0';
    if (sscanf(arch, "sm_%1d%1d%n", &major, &minor, &used) != 2 || major < 1)
        return false;
    tail = arch[used];
    if (tail != '\0' && !(tail == 'a' && arch[used + 1] == '\0'))
        return false;
    *cc = 10 * major + minor;
    *specific = tail == 'a';
    return true;
}

/* String field key of the table at index 1 into out (fallback when absent, NULL: required). */
static bool read_string_field(sandbox *sb, const space *s, const char *key, const char *fallback,
                              char *out, size_t size)
{
    lua_State *L = sb->L;
    int type = lua_getfield(L, 1, key);
    const char *value = type == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (type == LUA_TNIL && fallback)
        value = fallback;
    if (!value || strlen(value) >= size)
        return sandbox_fail(sb, s->table_line, "the space's field '%s' must be a string%s "
                            "(got %s)", key, size < 64 ? " of a few characters" : "",
                            lua_typename(L, type));
    memcpy(out, value, strlen(value) + 1);
    lua_pop(L, 1);
    return true;
}

/* One params (or variants) entry (name at -2, list at -1) into param; field names the table. */
static bool read_param(sandbox *sb, const space *s, const char *field, space_param *param)
{
    lua_State *L = sb->L;
    const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!name || !is_identifier(name, sizeof param->name))
        return sandbox_fail(sb, s->table_line, "%s keys must be lowercase identifiers of at "
                            "most %zu characters", field, sizeof param->name - 1);
    snprintf(param->name, sizeof param->name, "%s", name);
    size_t count = lua_type(L, -1) == LUA_TTABLE ? lua_rawlen(L, -1) : 0;
    if (count == 0 || count > W8A8_SPACE_MAX_VALUES)
        return sandbox_fail(sb, s->table_line, "%s.%s must be a list of 1 to %d integers",
                            field, name, W8A8_SPACE_MAX_VALUES);
    param->count = (int)count;
    for (size_t i = 0; i < count; i++) {
        int isint = 0;
        lua_Integer value = 0;
        if (lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TNUMBER)
            value = lua_tointegerx(L, -1, &isint);
        lua_pop(L, 1);
        if (!isint)
            return sandbox_fail(sb, s->table_line, "%s.%s[%zu] must be an integer", field,
                                name, i + 1);
        for (size_t j = 0; j < i; j++)
            if (param->values[j] == value)
                return sandbox_fail(sb, s->table_line, "%s.%s lists %lld twice", field, name,
                                    (long long)value);
        param->values[i] = value;
    }
    return true;
}

static int compare_param_names(const void *a, const void *b)
{
    return strcmp(((const space_param *)a)->name, ((const space_param *)b)->name);
}

/* Applies `order` (a list naming every param once) to the params read in any order. */
static bool apply_order(sandbox *sb, space *s)
{
    lua_State *L = sb->L;
    int type = lua_getfield(L, 1, "order");
    if (type == LUA_TNIL) {
        qsort(s->params, (size_t)s->param_count, sizeof s->params[0], compare_param_names);
        lua_pop(L, 1);
        return true;
    }
    space_param sorted[W8A8_SPACE_MAX_PARAMS];
    if (type != LUA_TTABLE || lua_rawlen(L, -1) != (size_t)s->param_count)
        return sandbox_fail(sb, s->table_line, "order must list every name of params once");
    for (int i = 0; i < s->param_count; i++) {
        const char *name = lua_rawgeti(L, -1, i + 1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        int found = -1;
        for (int j = 0; j < s->param_count; j++)
            if (strcmp(s->params[j].name, name) == 0)
                found = j;
        lua_pop(L, 1);
        for (int j = 0; found >= 0 && j < i; j++)
            if (strcmp(sorted[j].name, name) == 0)
                found = -1;
        if (found < 0)
            return sandbox_fail(sb, s->table_line, "order[%d] must name a parameter not named "
                                "before", i + 1);
        sorted[i] = s->params[found];
    }
    memcpy(s->params, sorted, sizeof sorted[0] * (size_t)s->param_count);
    lua_pop(L, 1);
    return true;
}

/* The optional table `field` of integer lists (params, variants) into out[0..*count), at most
 * max entries, in the order Lua's next() gives. */
static bool read_param_table(sandbox *sb, space *s, const char *field, space_param *out,
                             int max, int *count)
{
    lua_State *L = sb->L;
    int type = lua_getfield(L, 1, field);
    if (type != LUA_TNIL && type != LUA_TTABLE)
        return sandbox_fail(sb, s->table_line, "%s must be a table of integer lists", field);
    *count = 0;
    if (type == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            if (*count == max)
                return sandbox_fail(sb, s->table_line, "more than %d %s", max, field);
            if (!read_param(sb, s, field, &out[(*count)++]))
                return false;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return true;
}

static bool read_params(sandbox *sb, space *s)
{
    if (!read_param_table(sb, s, "params", s->params, W8A8_SPACE_MAX_PARAMS, &s->param_count))
        return false;
    s->total = 1;
    for (int p = 0; p < s->param_count; p++) {
        if (s->total > W8A8_SPACE_MAX_CONFIGS / (size_t)s->params[p].count)
            return sandbox_fail(sb, s->table_line, "the cross product of params exceeds "
                                "%zu configurations", W8A8_SPACE_MAX_CONFIGS);
        s->total *= (size_t)s->params[p].count;
    }
    return apply_order(sb, s);
}

/* The optional `variants` table (space.h), after the params: no name may be both. */
static bool read_variants(sandbox *sb, space *s)
{
    if (!read_param_table(sb, s, "variants", s->variants, W8A8_SPACE_MAX_VARIANTS,
                          &s->variant_count))
        return false;
    for (int v = 0; v < s->variant_count; v++)
        for (int p = 0; p < s->param_count; p++)
            if (strcmp(s->params[p].name, s->variants[v].name) == 0)
                return sandbox_fail(sb, s->table_line, "variants.%s is also a param (a "
                                    "variant stays out of the cross product)",
                                    s->variants[v].name);
    qsort(s->variants, (size_t)s->variant_count, sizeof s->variants[0], compare_param_names);
    return true;
}

static bool read_functions(sandbox *sb, space *s)
{
    lua_State *L = sb->L;
    for (int f = 0; f < FN_COUNT; f++) {
        int type = lua_getfield(L, 1, space_function_names[f]);
        if (type != LUA_TNIL && type != LUA_TFUNCTION)
            return sandbox_fail(sb, s->table_line, "the space's field '%s' must be a function "
                                "(got %s)", space_function_names[f], lua_typename(L, type));
        s->function_line[f] = type == LUA_TFUNCTION ? sandbox_function_line(L, -1) : 0;
        if (type == LUA_TFUNCTION && s->function_line[f] == 0)
            s->function_line[f] = s->table_line; /* a C function (e.g. `valid = print`) */
        lua_pop(L, 1);
    }
    return true;
}

#define SPACE_LIBRARY "lib/gemm.lua"
#define SPACE_LIBRARY_GLOBAL "gemm"

bool space_run_chunk(sandbox *sb, const space *s, int *last_line)
{
    return sandbox_run_library(sb, "scripts/" SPACE_LIBRARY, SPACE_LIBRARY_GLOBAL, s->library,
                               s->library_size) &&
           sandbox_run_chunk(sb, s->source, s->source_size, last_line);
}

static void load_body(sandbox *sb, void *ud)
{
    space *s = ud;
    int cc;
    bool specific;
    if (!space_run_chunk(sb, s, &s->table_line))
        return;
    if (!lua_istable(sb->L, 1)) {
        sandbox_fail(sb, s->table_line, "the chunk must return the space's table (it returned "
                     "a %s value)", luaL_typename(sb->L, 1));
        return;
    }
    if (!read_string_field(sb, s, "name", s->name, s->name, sizeof s->name) ||
        !read_string_field(sb, s, "template", NULL, s->template_name, sizeof s->template_name) ||
        !read_string_field(sb, s, "arch", NULL, s->arch, sizeof s->arch))
        return;
    if (!is_identifier(s->template_name, sizeof s->template_name)) {
        sandbox_fail(sb, s->table_line, "template '%s' must name templates/<template>.cuh",
                     s->template_name);
        return;
    }
    if (!space_parse_arch(s->arch, &cc, &specific)) {
        sandbox_fail(sb, s->table_line, "arch '%s' must be an NVRTC target like sm_80 or sm_90a",
                     s->arch);
        return;
    }
    if (read_params(sb, s) && read_variants(sb, s))
        read_functions(sb, s);
}

/* The stem of a path: "dir/sm90_gemm.lua" → "sm90_gemm". */
static void file_stem(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0)
        len -= 4;
    if (len >= size)
        len = size - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

/* scripts/<name>'s text (embedded, or from W8A8_TEMPLATE_DIR) in memory the caller frees. */
static w8a8_status read_script(w8a8_context *ctx, const char *name, char **out, size_t *size)
{
    const char *text = NULL;
    bool owned = false;
    w8a8_status st = source_read(ctx, "scripts", name, &text, size, &owned);
    if (st != W8A8_OK)
        return st;
    *out = owned ? (char *)text : malloc(*size + 1);
    if (!*out)
        return errorf(ctx, W8A8_NO_MEMORY, "no memory for scripts/%s", name);
    if (!owned)
        memcpy(*out, text, *size + 1);
    return W8A8_OK;
}

/* The script's text: a file when name_or_path looks like one, else scripts/<name>.lua. */
static w8a8_status space_read_source(w8a8_context *ctx, const char *name_or_path, space *s)
{
    size_t len = strlen(name_or_path);
    bool is_path = strchr(name_or_path, '/') ||
                   (len > 4 && strcmp(name_or_path + len - 4, ".lua") == 0);
    if (is_path) {
        if (!util_format(s->file, sizeof s->file, "%s", name_or_path))
            return errorf(ctx, W8A8_INVALID, "space path is too long: %s", name_or_path);
        int err = util_read_file(name_or_path, &s->source, &s->source_size);
        if (err)
            return errorf(ctx, err == ENOENT ? W8A8_NOT_FOUND : W8A8_IO_ERROR,
                          "cannot read tuning space %s: %s", name_or_path, strerror(err));
        return W8A8_OK;
    }
    char script[128];
    if (!util_format(script, sizeof script, "%s.lua", name_or_path) ||
        !util_format(s->file, sizeof s->file, "scripts/%s", script))
        return errorf(ctx, W8A8_INVALID, "space name is too long: %s", name_or_path);
    return read_script(ctx, script, &s->source, &s->source_size);
}

w8a8_status space_load(w8a8_context *ctx, const char *name_or_path, space **out)
{
    *out = NULL;
    if (!name_or_path || !*name_or_path)
        return errorf(ctx, W8A8_INVALID, "space_load: no space name");
    space *s = calloc(1, sizeof *s);
    if (!s)
        return errorf(ctx, W8A8_NO_MEMORY, "no memory for a tuning space");
    w8a8_status st = space_read_source(ctx, name_or_path, s);
    if (st == W8A8_OK)
        st = read_script(ctx, SPACE_LIBRARY, &s->library, &s->library_size);
    if (st == W8A8_OK) {
        file_stem(s->file, s->name, sizeof s->name);
        sandbox sb;
        st = sandbox_open(ctx, &sb, s->file);
        if (st == W8A8_OK)
            st = sandbox_protect(ctx, &sb, load_body, s);
        sandbox_close(&sb);
    }
    if (st == W8A8_OK && s->function_line[FN_FITS] && !(s->memo = space_memo_create()))
        st = errorf(ctx, W8A8_NO_MEMORY, "no memory for a tuning space");
    if (st != W8A8_OK) {
        space_free(s);
        return st;
    }
    *out = s;
    return W8A8_OK;
}

bool space_targets_arch(const space *s, const char *target)
{
    int space_cc, target_cc;
    bool space_specific, target_specific;
    if (!space_parse_arch(s->arch, &space_cc, &space_specific) ||
        !space_parse_arch(target, &target_cc, &target_specific))
        return false;
    if (space_specific) /* sm_90a kernels need exactly the sm_90a target */
        return target_specific && target_cc == space_cc;
    return target_cc >= space_cc;
}

