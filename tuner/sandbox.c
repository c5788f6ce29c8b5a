/* The Lua sandbox of the tuning spaces: a capped allocator, an instruction budget, a reduced
 * standard library, text-only chunks and "file:line: message" errors (see sandbox.h).
 *
 * Why the two memory limits: Lua does not call the message handler for an allocation
 * failure, so a plain failing allocator would lose the script's line. Instead an allocation
 * that crosses the cap succeeds (up to the hard cap) and re-arms the count hook to fire on
 * the very next instruction; the hook collects garbage and, if the live heap is still over
 * the cap, raises an ordinary error at the current line. Only one huge allocation past the
 * hard cap fails outright; its message then carries the last line the hook saw. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sandbox.h"

/* Once a call has spent its budget or time or confirmed a memory overrun, the hook raises
 * on every instruction, so a script cannot swallow the error with pcall and carry on. */
enum { SPENT_NONE = 0, SPENT_BUDGET, SPENT_TIME, SPENT_MEMORY };

static void sandbox_hook(lua_State *L, lua_Debug *ar);

static sandbox *sandbox_of(lua_State *L)
{
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return ud;
}

static void sandbox_set_interval(sandbox *sb, int interval)
{
    sb->hook_interval = interval;
    lua_sethook(sb->L, sandbox_hook, LUA_MASKCOUNT, interval);
}

/* ---- allocator ---------------------------------------------------------------------------- */

/* Refusing an allocation ends the call with a memory error that reaches no message handler,
 * so the allocator notes the script's line itself, for big new blocks only: a new block
 * (ptr NULL) moves nothing, so the call stack is consistent (the VM stack is reallocated
 * with its old block as ptr), and the big ones are what one runaway string.rep, concat or
 * table.concat asks for. */
#define REFUSED_WHERE_MIN_BYTES ((size_t)1 << 20)

static int running_line(lua_State *L)
{
    lua_Debug ar;
    if (!L)
        return 0;
    for (int level = 0; lua_getstack(L, level, &ar); level++)
        if (lua_getinfo(L, "l", &ar) && ar.currentline > 0)
            return ar.currentline;
    return 0;
}

static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sandbox *sb = ud;
    size_t old = ptr ? osize : 0; /* for a new block osize is a type tag, not a size */
    if (nsize == 0) {
        free(ptr);
        sb->used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > W8A8_SANDBOX_MEMORY_HARD_CAP - sb->used) {
        if (!sb->refused && !ptr && nsize >= REFUSED_WHERE_MIN_BYTES)
            sb->refused_line = running_line(sb->L);
        sb->refused = true;
        return NULL;
    }
    void *block = realloc(ptr, nsize);
    if (!block)
        return NULL;
    sb->used = sb->used - old + nsize;
    if (sb->used > W8A8_SANDBOX_MEMORY_CAP && !sb->over_cap && sb->L) {
        /* lua_sethook is safe from anywhere, even inside the allocator (ldebug.c). */
        sb->over_cap = true;
        sandbox_set_interval(sb, 1);
    }
    return block;
}

/* ---- hook and message handler ---------------------------------------------------------- */

static void hook_raise(lua_State *L, lua_Debug *ar, const char *what)
{
    if (ar->currentline > 0)
        lua_pushfstring(L, "%s:%d: %s", ar->short_src, ar->currentline, what);
    else
        lua_pushfstring(L, "%s: %s", ar->short_src, what);
    lua_error(L);
}

static void sandbox_hook(lua_State *L, lua_Debug *ar)
{
    sandbox *sb = sandbox_of(L);
    char what[128];
    sb->instructions += (uint64_t)sb->hook_interval;
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        sb->sample_line = ar->currentline;
    if (sb->over_cap) {
        if (sb->spent != SPENT_MEMORY)
            lua_gc(L, LUA_GCCOLLECT);
        if (sb->spent == SPENT_MEMORY || sb->used > W8A8_SANDBOX_MEMORY_CAP) {
            sb->spent = SPENT_MEMORY;
            snprintf(what, sizeof what, "memory cap of %zu MiB exceeded",
                     W8A8_SANDBOX_MEMORY_CAP >> 20);
            hook_raise(L, ar, what);
        }
        sb->over_cap = false;
        if (sb->spent == SPENT_NONE)
            sandbox_set_interval(sb, W8A8_SANDBOX_HOOK_INTERVAL);
    }
    /* The clock bounds what the count cannot: single instructions that cost O(n) (a
     * concatenation, table.insert at the front) repeated within the budget. */
    if (sb->spent == SPENT_NONE &&
        (sb->instructions > sb->budget || util_now() > sb->deadline)) {
        sb->spent = sb->instructions > sb->budget ? SPENT_BUDGET : SPENT_TIME;
        sandbox_set_interval(sb, 1);
    }
    if (sb->spent == SPENT_BUDGET) {
        snprintf(what, sizeof what, "instruction budget of %llu instructions exceeded",
                 (unsigned long long)sb->budget);
        hook_raise(L, ar, what);
    }
    if (sb->spent == SPENT_TIME) {
        snprintf(what, sizeof what, "time limit of %d ms exceeded", W8A8_SANDBOX_TIME_LIMIT_MS);
        hook_raise(L, ar, what);
    }
}

static bool has_position(const sandbox *sb, const char *msg)
{
    size_t len = strlen(sb->short_src);
    return strncmp(msg, sb->short_src, len) == 0 && msg[len] == ':' &&
           msg[len + 1] >= '0' && msg[len + 1] <= '9';
}

/* Gives every error the script's file:line: errors raised in C functions (bad argument,
 * the setmetatable guard) or with error(msg, 0 or 2) come without one, so the innermost
 * Lua frame's line is prefixed. */
static int sandbox_msgh(lua_State *L)
{
    sandbox *sb = sandbox_of(L);
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    if (has_position(sb, msg)) {
        lua_pushstring(L, msg);
        return 1;
    }
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d: %s", ar.short_src, ar.currentline, msg);
            return 1;
        }
    }
    lua_pushfstring(L, "%s: %s", sb->short_src, msg);
    return 1;
}

/* setmetatable without __gc: finalizers run with debug hooks off, beyond the budget. */
static int sandbox_setmetatable(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "__gc metamethods are not allowed in a tuning space");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* string.rep of an empty string and separator loops n times in C without allocating, out of
 * the hook's sight: answer it here. */
static int sandbox_string_rep(lua_State *L)
{
    size_t length = 0, separator = 0;
    luaL_checklstring(L, 1, &length);
    luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator);
    if (length + separator == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* string.find for plain text only: pattern matching backtracks in C, where no budget reaches. */
static int sandbox_string_find(lua_State *L)
{
    if (!lua_toboolean(L, 4))
        return luaL_error(L, "string patterns are not available in a tuning space (call "
                          "string.find(s, text, init, true) for plain text)");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- failures ----------------------------------------------------------------------------- */

bool sandbox_fail(sandbox *sb, int line, const char *fmt, ...)
{
    char what[W8A8_ERRMSG_BYTES - W8A8_PATH_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(sb->message, sizeof sb->message, "%s:%d: %s", sb->file, line, what);
    else
        snprintf(sb->message, sizeof sb->message, "%s: %s", sb->file, what);
    sb->failed = true;
    return false;
}

/* Copies a Lua error message, writing the full file name where Lua abbreviated it. */
static void record_message(sandbox *sb, const char *msg, const char *context)
{
    size_t len = strlen(sb->short_src);
    const char *rest = msg;
    const char *file = "";
    if (strcmp(sb->short_src, sb->file) != 0 && strncmp(msg, sb->short_src, len) == 0) {
        file = sb->file;
        rest = msg + len;
    }
    if (context)
        snprintf(sb->message, sizeof sb->message, "%s%s (in %s)", file, rest, context);
    else
        snprintf(sb->message, sizeof sb->message, "%s%s", file, rest);
    sb->failed = true;
}

static bool record_status(sandbox *sb, int status, int fallback_line, const char *context)
{
    if (status == LUA_ERRMEM) {
        int line = sb->refused_line > 0  ? sb->refused_line
                   : sb->sample_line > 0 ? sb->sample_line
                                         : fallback_line;
        char suffix[W8A8_ERRMSG_BYTES / 2] = "";
        if (context)
            snprintf(suffix, sizeof suffix, " (in %s)", context);
        return sandbox_fail(sb, line, "memory cap of %zu MiB exceeded: an allocation was refused%s",
                            W8A8_SANDBOX_MEMORY_CAP >> 20, suffix);
    }
    const char *msg = lua_tostring(sb->L, -1);
    record_message(sb, msg ? msg : "error without a message", context);
    return false;
}

/* ---- calls ------------------------------------------------------------------------------- */

static void call_reset(sandbox *sb)
{
    sb->instructions = 0;
    sb->sample_line = 0;
    sb->refused = false;
    sb->refused_line = 0;
    sb->spent = SPENT_NONE;
    sb->deadline = util_now() + 1e-3 * W8A8_SANDBOX_TIME_LIMIT_MS;
    if (!sb->over_cap)
        sandbox_set_interval(sb, W8A8_SANDBOX_HOOK_INTERVAL);
}

/* The context of a failed call: a fixed string, or what describe() writes. */
typedef struct call_context {
    const char *text;
    sandbox_describe describe;
    const void *user;
} call_context;

static bool call(sandbox *sb, int nargs, int nresults, int fallback_line, call_context c)
{
    lua_State *L = sb->L;
    int function = lua_gettop(L) - nargs;
    lua_pushcfunction(L, sandbox_msgh);
    lua_insert(L, function);
    call_reset(sb);
    int status = lua_pcall(L, nargs, nresults, function);
    if (status != LUA_OK) {
        char described[W8A8_ERRMSG_BYTES / 2];
        if (c.describe)
            c.describe(c.user, described, sizeof described);
        record_status(sb, status, fallback_line, c.describe ? described : c.text);
        lua_settop(L, function - 1);
        return false;
    }
    lua_remove(L, function);
    return true;
}

bool sandbox_call(sandbox *sb, int nargs, int nresults, int fallback_line, const char *context)
{
    return call(sb, nargs, nresults, fallback_line, (call_context){context, NULL, NULL});
}

bool sandbox_call_described(sandbox *sb, int nargs, int nresults, int fallback_line,
                            sandbox_describe describe, const void *user)
{
    return call(sb, nargs, nresults, fallback_line, (call_context){NULL, describe, user});
}

/* What Lua's luaO_chunkid makes of "@file" when it is too long for LUA_IDSIZE. */
static void chunk_short_src(const char *file, char out[LUA_IDSIZE])
{
    size_t len = strlen(file);
    if (len + 1 <= LUA_IDSIZE)
        memcpy(out, file, len + 1);
    else
        snprintf(out, LUA_IDSIZE, "...%s", file + len - (LUA_IDSIZE - 4));
}

/* The largest line of the function on top of the stack that holds code (pops it). */
static int chunk_last_line(lua_State *L)
{
    lua_Debug ar;
    int last = 0;
    if (!lua_getinfo(L, ">L", &ar))
        return 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > last)
            last = (int)lua_tointeger(L, -1);
    }
    lua_pop(L, 1);
    return last;
}

/* Loads text as a source chunk named "@file" (bytecode refused) onto the stack. */
static bool load_text(sandbox *sb, const char *file, const char *text, size_t size)
{
    if (size > 0 && text[0] == LUA_SIGNATURE[0])
        return sandbox_fail(sb, 0, "precompiled Lua bytecode is not accepted: a tuning space "
                                   "must be Lua source text");
    char chunkname[W8A8_PATH_BYTES + 2];
    snprintf(chunkname, sizeof chunkname, "@%s", file);
    int status = luaL_loadbufferx(sb->L, text, size, chunkname, "t");
    return status == LUA_OK || record_status(sb, status, 0, NULL);
}

bool sandbox_run_chunk(sandbox *sb, const char *text, size_t size, int *last_line)
{
    lua_State *L = sb->L;
    if (!load_text(sb, sb->file, text, size))
        return false;
    lua_Debug ar;
    lua_pushvalue(L, -1);
    if (lua_getinfo(L, ">S", &ar))
        memcpy(sb->short_src, ar.short_src, sizeof sb->short_src);
    if (last_line) {
        lua_pushvalue(L, -1);
        *last_line = chunk_last_line(L);
    }
    return sandbox_call(sb, 0, 1, 0, NULL);
}

bool sandbox_run_library(sandbox *sb, const char *name, const char *global, const char *text,
                         size_t size)
{
    if (!load_text(sb, name, text, size) || !sandbox_call(sb, 0, 1, 0, NULL))
        return false;
    lua_setglobal(sb->L, global);
    return true;
}

int sandbox_function_line(lua_State *L, int idx)
{
    lua_Debug ar;
    if (lua_type(L, idx) != LUA_TFUNCTION)
        return 0;
    lua_pushvalue(L, idx);
    if (!lua_getinfo(L, ">S", &ar) || ar.linedefined < 0)
        return 0;
    return ar.linedefined;
}

/* ---- state -------------------------------------------------------------------------------- */

typedef struct protect_job {
    sandbox *sb;
    sandbox_body body;
    void *ud;
} protect_job;

static int protect_trampoline(lua_State *L)
{
    protect_job *job = lua_touserdata(L, 1);
    lua_settop(L, 0);
    job->body(job->sb, job->ud);
    return 0;
}

w8a8_status sandbox_protect(w8a8_context *ctx, sandbox *sb, sandbox_body body, void *ud)
{
    protect_job job = {sb, body, ud};
    lua_State *L = sb->L;
    sb->failed = false;
    lua_settop(L, 0);
    lua_pushcfunction(L, protect_trampoline);
    lua_pushlightuserdata(L, &job);
    int status = lua_pcall(L, 1, 0, 0);
    if (status != LUA_OK && !sb->failed)
        record_status(sb, status, 0, NULL);
    lua_settop(L, 0);
    if (sb->failed)
        return errorf(ctx, W8A8_SCRIPT_ERROR, "%s", sb->message);
    return W8A8_OK;
}

static void open_libraries(sandbox *sb, void *ud)
{
    static const luaL_Reg libraries[] = {{LUA_GNAME, luaopen_base},
                                         {LUA_STRLIBNAME, luaopen_string},
                                         {LUA_TABLIBNAME, luaopen_table},
                                         {LUA_MATHLIBNAME, luaopen_math}};
    /* Loaders and the file system, output, the collector's knobs and randomness (spaces
     * must be deterministic). require/io/os/debug/package are never opened. */
    static const char *const removed[] = {"dofile", "loadfile", "load", "require",
                                          "collectgarbage", "print", "warn"};
    /* Bytecode, randomness, pattern matching (unbounded backtracking in C) and table.move
     * (a C loop over any index range, allocating nothing). */
    static const struct {
        const char *library, *name;
    } removed_fields[] = {{LUA_STRLIBNAME, "dump"},   {LUA_STRLIBNAME, "match"},
                          {LUA_STRLIBNAME, "gmatch"}, {LUA_STRLIBNAME, "gsub"},
                          {LUA_MATHLIBNAME, "random"}, {LUA_MATHLIBNAME, "randomseed"},
                          {LUA_TABLIBNAME, "move"}};
    lua_State *L = sb->L;
    (void)ud;
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
        luaL_requiref(L, libraries[i].name, libraries[i].func, 1);
        lua_pop(L, 1);
    }
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    for (size_t i = 0; i < sizeof removed_fields / sizeof removed_fields[0]; i++) {
        lua_getglobal(L, removed_fields[i].library);
        lua_pushnil(L);
        lua_setfield(L, -2, removed_fields[i].name);
        lua_pop(L, 1);
    }
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, sandbox_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_getfield(L, -1, "rep");
    lua_pushcclosure(L, sandbox_string_rep, 1);
    lua_setfield(L, -2, "rep");
    lua_getfield(L, -1, "find");
    lua_pushcclosure(L, sandbox_string_find, 1);
    lua_setfield(L, -2, "find");
    lua_settop(L, 0);
}

w8a8_status sandbox_open(w8a8_context *ctx, sandbox *sb, const char *file)
{
    memset(sb, 0, sizeof *sb);
    sb->file = file;
    sb->budget = W8A8_SANDBOX_INSTRUCTION_BUDGET;
    chunk_short_src(file, sb->short_src);
    sb->L = lua_newstate(sandbox_alloc, sb);
    if (!sb->L)
        return errorf(ctx, W8A8_NO_MEMORY, "%s: cannot create a Lua state", file);
    sandbox_set_interval(sb, W8A8_SANDBOX_HOOK_INTERVAL);
    return sandbox_protect(ctx, sb, open_libraries, NULL);
}

void sandbox_close(sandbox *sb)
{
    if (sb && sb->L) {
        lua_close(sb->L);
        sb->L = NULL;
    }
}
