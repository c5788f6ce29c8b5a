/* Evaluating a tuning space: the questions the tuner, the dispatcher and `w8a8 compile` ask
 * of a loaded space (applies, enumerate, default, compile_problems). Loading is in
 * space_load.c; the Lua side runs in sandbox.c.
 *
 * Granularity of the sandbox: each evaluation call (one space_applies, space_enumerate,
 * space_default or space_compile_problems) creates a fresh lua_State and runs the chunk
 * again, so no call sees state left by another. Within one enumeration every valid(), fits()
 * and rank() call gets its own instruction budget and the same problem, device and config
 * tables (the config's fields rewritten per config; the walk's valid() calls get a proxy of
 * it that notes what they read, below), and the globals are locked once the
 * chunk has run, so one configuration's evaluation cannot change another's except through
 * those tables or upvalues a script keeps on purpose. (A fresh state per configuration costs
 * ~75 µs to create and run the chunk: 0.75 s for a 10 000-point space, which enumerates in
 * ~50 ms this way.) A space with fits() keeps valid()'s answers with the loaded space, per
 * problem class, device and prune() outcome (the memo below). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "space_lua.h"

/* A config as text in a message ("valid() must return a boolean … for config <config>"). */
#define SPACE_CONTEXT_BYTES (sizeof(((space_candidate *)0)->config) + 64)
/* ---- evaluations -------------------------------------------------------------------------- */

static int global_assignment(lua_State *L)
{
    return luaL_error(L, "assignment to undeclared global '%s' (a space keeps no global state "
                      "between evaluations; use local)", luaL_tolstring(L, 2, NULL));
}

/* Runs the chunk in the evaluation's fresh state, leaving its table at index 1, then locks
 * the globals. */
static bool open_table(sandbox *sb, const space *s)
{
    lua_State *L = sb->L;
    if (!space_run_chunk(sb, s, NULL))
        return false;
    if (!lua_istable(L, 1))
        return sandbox_fail(sb, s->table_line, "the chunk must return the space's table");
    lua_pushglobaltable(L);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, global_assignment);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
    return true;
}

/* Pushes the function fn of the space's table (index 1); false when the script has none. */
static bool push_function(sandbox *sb, const space *s, int fn)
{
    if (!s->function_line[fn])
        return false;
    lua_getfield(sb->L, 1, space_function_names[fn]);
    return true;
}

/* The config of value indices idx as a table. names > 0: the stack index of the param names'
 * array, with the enumeration's one config table above it, whose fields are rewritten (every
 * field, so a script that changed one sees it whole again); else a fresh table. */
static void push_config(lua_State *L, const space *s, const int *idx, int names)
{
    if (names > 0) {
        lua_pushvalue(L, names + 1);
        for (int p = 0; p < s->param_count; p++) {
            lua_rawgeti(L, names, p + 1);
            lua_pushinteger(L, (lua_Integer)s->params[p].values[idx[p]]);
            lua_rawset(L, -3);
        }
        return;
    }
    lua_createtable(L, 0, s->param_count);
    for (int p = 0; p < s->param_count; p++) {
        lua_pushinteger(L, (lua_Integer)s->params[p].values[idx[p]]);
        lua_setfield(L, -2, s->params[p].name);
    }
}

/* The config of value indices idx as the canonical string "name=value,…" in params order;
 * false when it does not fit in size (out then holds a cut copy, enough for a message). */
static bool config_text(const space *s, const int *idx, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int p = 0; p < s->param_count; p++) {
        int n = snprintf(out + used, size - used, "%s%s=%lld", p ? "," : "", s->params[p].name,
                         (long long)s->params[p].values[idx[p]]);
        if (n < 0 || (size_t)n >= size - used)
            return false;
        used += (size_t)n;
    }
    return true;
}

/* config_text, failing the evaluation when the string does not fit. */
static bool format_config(sandbox *sb, const space *s, const int *idx, char *out, size_t size)
{
    if (!config_text(s, idx, out, size))
        return sandbox_fail(sb, s->table_line, "a config string exceeds %zu bytes", size - 1);
    return true;
}

typedef struct eval_job {
    const space *s;
    const w8a8_problem *problem;
    const space_device *dev;
    bool flag;              /* applies: the answer */
    space_enumeration *enumeration;
    size_t capacity;
    char *config;           /* default: out */
    size_t config_size;
    w8a8_problem *problems; /* compile_problems: out (malloc'ed) */
    size_t problem_count;
    struct memo_entry *claimed; /* enumerate: the memo entry this walk fills (settled as
                                   failed by the caller when a Lua error cut the walk short) */
    bool claim_broken;          /* out of memory filling it */
    int shared_args;        /* > 0: stack index of the problem table, the device's above it,
                               the param names' array above that, the config table above it
                               and the walk's proxy on top, made once for all calls of an
                               enumeration; 0: made per call */
    struct walk_reads *reads; /* the walk's valid() calls: their config is the proxy */
} eval_job;

/* Pushes the problem and device arguments: the enumeration's shared tables (its hundreds of
 * thousands of valid() calls would otherwise build two tables and intern a dozen strings
 * each), else fresh ones. */
static void push_args(lua_State *L, const eval_job *job)
{
    if (job->shared_args > 0) {
        lua_pushvalue(L, job->shared_args);
        lua_pushvalue(L, job->shared_args + 1);
    } else {
        space_push_problem(L, job->problem);
        space_push_device(L, job->dev);
    }
}

/* ---- valid()'s reads, in the walk -------------------------------------------------------- */

/* The walk asks valid() of every config of the cross product (sm90_gemm's named block keys:
 * millions). A space's valid() is a function of the config fields it reads (and the problem
 * and device, fixed in a walk), so when it rejects a config having read only the first d
 * params in walk order, it rejects every config that shares those d values, and the walk skips
 * them all (walk_configs; and any config elsewhere that shares the values of what it read).
 * To see what it reads, the walk's valid() calls get a proxy of the config: a table whose
 * fields are absent, with an __index that answers a param's value,
 * keeps it as a plain field for the rest of the call and notes which params it read (a bit
 * each). Field by field it behaves as the config would: a field the script set is what it
 * set (also nil: a param read, then set to nil, reads nil again), and pairs() reads every
 * param (__pairs). rawget() and next() see only the fields read so far, and its metatable stays
 * (__metatable). After each call the proxy is emptied again. */
typedef struct walk_reads {
    const space *s;
    const int *idx;         /* the config of this call */
    unsigned long long got; /* params read (bit p): later reads are plain fields */
} walk_reads;

_Static_assert(W8A8_SPACE_MAX_PARAMS <= 64, "walk_reads.got holds a bit per param");

/* __index(proxy, key) of the walk's config proxy; upvalues: the walk_reads, the map of param
 * names to positions. */
static int proxy_index(lua_State *L)
{
    walk_reads *r = lua_touserdata(L, lua_upvalueindex(1));
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNUMBER)
        return 1; /* not a param: nil */
    int p = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (r->got >> p & 1) {
        lua_pushnil(L); /* read, then set to nil by the script */
        return 1;
    }
    r->got |= 1ull << p;
    lua_pushvalue(L, 2);
    lua_pushinteger(L, (lua_Integer)r->s->params[p].values[r->idx[p]]);
    lua_rawset(L, 1);
    lua_pushinteger(L, (lua_Integer)r->s->params[p].values[r->idx[p]]);
    return 1;
}

/* __pairs(proxy): every param not read yet becomes a plain field (all of them read), then
 * next, proxy, nil. Upvalue: the walk_reads. */
static int proxy_pairs(lua_State *L)
{
    walk_reads *r = lua_touserdata(L, lua_upvalueindex(1));
    for (int p = 0; p < r->s->param_count; p++) {
        if (r->got >> p & 1)
            continue;
        r->got |= 1ull << p;
        lua_pushinteger(L, (lua_Integer)r->s->params[p].values[r->idx[p]]);
        lua_setfield(L, 1, r->s->params[p].name);
    }
    lua_getglobal(L, "next");
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* Pushes the enumeration's proxy (on top of the shared tables) set to config idx. */
static void proxy_push(lua_State *L, const eval_job *job, const int *idx)
{
    job->reads->idx = idx;
    job->reads->got = 0;
    lua_pushvalue(L, job->shared_args + 4);
}

/* Empties the proxy after a call (clearing fields during next() is allowed). */
static void proxy_clear(lua_State *L, const eval_job *job)
{
    int proxy = job->shared_args + 4;
    lua_pushnil(L);
    while (lua_next(L, proxy)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, proxy);
    }
}

/* Makes the proxy (pushed on top, at shared_args + 4) for reads r. */
static void proxy_make(lua_State *L, const space *s, walk_reads *r)
{
    lua_createtable(L, 0, s->param_count);
    lua_createtable(L, 0, 2);
    lua_pushlightuserdata(L, r);
    lua_createtable(L, 0, s->param_count);
    for (int p = 0; p < s->param_count; p++) {
        lua_pushinteger(L, p);
        lua_setfield(L, -2, s->params[p].name);
    }
    lua_pushcclosure(L, proxy_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pushlightuserdata(L, r);
    lua_pushcclosure(L, proxy_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushliteral(L, "the walk's config"); /* setmetatable() on it fails, saying why */
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

/* What a failed valid() or rank() call was about: "<what> of config <config>", written only
 * when a call fails (sandbox_call_described). */
typedef struct config_about {
    const char *what;
    const space *s;
    const int *idx;
} config_about;

static void describe_config(const void *user, char *out, size_t size)
{
    const config_about *a = user;
    int n = snprintf(out, size, "%s of config ", a->what);
    if (n > 0 && (size_t)n < size)
        config_text(a->s, a->idx, out + n, size - (size_t)n);
}

/* valid(config, problem, device), or fits() with fn = FN_FITS, for the config of indices
 * idx → *ok (true when the space has no such function). */
static bool call_check(sandbox *sb, const eval_job *job, int fn, const int *idx, bool *ok,
                       char *reason, size_t reason_size)
{
    lua_State *L = sb->L;
    const char *what = fn == FN_FITS ? "fits()" : "valid()";
    *ok = true;
    if (reason && reason_size)
        reason[0] = '\0';
    if (!push_function(sb, job->s, fn))
        return true;
    if (fn == FN_VALID && job->reads)
        proxy_push(L, job, idx);
    else
        push_config(L, job->s, idx, job->shared_args > 0 ? job->shared_args + 2 : 0);
    push_args(L, job);
    const config_about about = {what, job->s, idx};
    if (!sandbox_call_described(sb, 3, 2, job->s->function_line[fn], describe_config, &about))
        return false;
    if (lua_type(L, -2) != LUA_TBOOLEAN) {
        char config[SPACE_CONTEXT_BYTES];
        config_text(job->s, idx, config, sizeof config);
        return sandbox_fail(sb, job->s->function_line[fn], "%s must return a boolean (got %s) "
                            "for config %s", what, luaL_typename(L, -2), config);
    }
    *ok = lua_toboolean(L, -2);
    if (reason)
        snprintf(reason, reason_size, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
    lua_pop(L, 2);
    if (fn == FN_VALID && job->reads)
        proxy_clear(L, job);
    return true;
}

/* rank(config, problem, device) → *rank (0 when the space has no rank()). */
static bool call_rank(sandbox *sb, const eval_job *job, const int *idx, double *rank)
{
    lua_State *L = sb->L;
    *rank = 0;
    if (!push_function(sb, job->s, FN_RANK))
        return true;
    push_config(L, job->s, idx, job->shared_args > 0 ? job->shared_args + 2 : 0);
    push_args(L, job);
    const config_about about = {"rank()", job->s, idx};
    if (!sandbox_call_described(sb, 3, 1, job->s->function_line[FN_RANK], describe_config,
                                &about))
        return false;
    if (lua_type(L, -1) != LUA_TNUMBER || isnan(lua_tonumber(L, -1))) {
        char config[SPACE_CONTEXT_BYTES];
        config_text(job->s, idx, config, sizeof config);
        return sandbox_fail(sb, job->s->function_line[FN_RANK], "rank() must return a number "
                            "(got %s) for config %s", lua_type(L, -1) == LUA_TNUMBER ? "nan"
                            : luaL_typename(L, -1), config);
    }
    *rank = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return true;
}

static bool append_candidate(sandbox *sb, eval_job *job, const char *config, double rank)
{
    space_enumeration *e = job->enumeration;
    if (e->count == job->capacity) {
        size_t capacity = job->capacity ? 2 * job->capacity : 64;
        space_candidate *grown = realloc(e->candidates, capacity * sizeof *grown);
        if (!grown)
            return sandbox_fail(sb, 0, "no memory for %zu candidates", capacity);
        e->candidates = grown;
        job->capacity = capacity;
    }
    space_candidate *c = &e->candidates[e->count++];
    snprintf(c->config, sizeof c->config, "%s", config);
    c->rank = rank;
    return true;
}

/* prune(name, value, problem, device) for every value of every parameter: keep[p] lists the
 * indices of param p's values that stay, kept[p] how many. */
static bool call_prune(sandbox *sb, const eval_job *job,
                       int keep[][W8A8_SPACE_MAX_VALUES], int *kept)
{
    const space *s = job->s;
    lua_State *L = sb->L;
    int line = s->function_line[FN_PRUNE];
    for (int p = 0; p < s->param_count; p++) {
        kept[p] = 0;
        for (int v = 0; v < s->params[p].count; v++) {
            bool stays = true;
            if (push_function(sb, s, FN_PRUNE)) {
                char context[SPACE_CONTEXT_BYTES];
                lua_pushstring(L, s->params[p].name);
                lua_pushinteger(L, (lua_Integer)s->params[p].values[v]);
                push_args(L, job);
                snprintf(context, sizeof context, "prune() of %s=%lld", s->params[p].name,
                         (long long)s->params[p].values[v]);
                if (!sandbox_call(sb, 4, 1, line, context))
                    return false;
                if (lua_type(L, -1) != LUA_TBOOLEAN)
                    return sandbox_fail(sb, line, "prune() must return a boolean (got %s) for "
                                        "%s=%lld", luaL_typename(L, -1), s->params[p].name,
                                        (long long)s->params[p].values[v]);
                stays = lua_toboolean(L, -1);
                lua_pop(L, 1);
            }
            if (stays)
                keep[p][kept[p]++] = v;
        }
    }
    return true;
}

/* ---- valid()'s answers, kept across keys (spaces with fits()) ------------------------------- */

/* A space with fits() reads M, N and K in valid() only through prune(): its valid() answers
 * depend on the problem class, the device and prune()'s decisions alone. The configs valid()
 * kept for one such key serve every later key of the space that shares them (the tuner's
 * plan enumerates 100 keys of one class; the walk was three quarters of the time). */
#define MEMO_MAX_ENTRIES 64

typedef struct memo_entry {
    w8a8_problem problem_class; /* m, n and k zeroed */
    space_device dev;
    int kept[W8A8_SPACE_MAX_PARAMS];
    unsigned char keep[W8A8_SPACE_MAX_PARAMS][W8A8_SPACE_MAX_VALUES];
    /* filled by the one enumeration that claimed the entry, read by others once ready */
    unsigned char *tuples; /* value indices of the configs valid() kept, param_count each */
    size_t count, cap;
    bool ready, failed; /* under the memo's lock */
} memo_entry;

/* Entries are added claimed (the claiming enumeration walks and fills one), then made ready
 * or failed; an enumeration that finds its key claimed waits for it (the tuner's plan starts
 * many keys of one class at once: all would walk). Entries stay until the space goes. */
struct space_memo {
    pthread_mutex_t lock;
    pthread_cond_t settled; /* an entry became ready or failed */
    memo_entry *entries[MEMO_MAX_ENTRIES];
    size_t count;
};

struct space_memo *space_memo_create(void)
{
    struct space_memo *memo = calloc(1, sizeof *memo);
    if (!memo)
        return NULL;
    if (pthread_mutex_init(&memo->lock, NULL) != 0) {
        free(memo);
        return NULL;
    }
    if (pthread_cond_init(&memo->settled, NULL) != 0) {
        pthread_mutex_destroy(&memo->lock);
        free(memo);
        return NULL;
    }
    return memo;
}

static void memo_entry_free(memo_entry *e)
{
    if (e) {
        free(e->tuples);
        free(e);
    }
}

void space_memo_free(struct space_memo *memo)
{
    if (!memo)
        return;
    for (size_t i = 0; i < memo->count; i++)
        memo_entry_free(memo->entries[i]);
    pthread_cond_destroy(&memo->settled);
    pthread_mutex_destroy(&memo->lock);
    free(memo);
}

size_t space_memo_entries(const space *s)
{
    if (!s || !s->memo)
        return 0;
    pthread_mutex_lock(&s->memo->lock);
    size_t count = s->memo->count;
    pthread_mutex_unlock(&s->memo->lock);
    return count;
}

/* The key of an enumeration, compared as bytes: the problem's class field by field (no
 * shape, no strides: scripts see neither; padding zeroed), the device as the caller's bytes
 * (one struct for a whole tuning run; bytes that differ elsewhere only miss). */
static void memo_key(memo_entry *key, const eval_job *job, int keep[][W8A8_SPACE_MAX_VALUES],
                     const int *kept)
{
    const w8a8_problem *problem = job->problem;
    w8a8_problem *c = &key->problem_class;
    memset(key, 0, sizeof *key);
    c->a_type = problem->a_type;
    c->b_type = problem->b_type;
    c->out_type = problem->out_type;
    c->bias_type = problem->bias_type;
    c->a_scale = problem->a_scale;
    c->b_scale = problem->b_scale;
    c->a_scale.ld = c->b_scale.ld = 0;
    c->azp = problem->azp;
    c->accum = problem->accum;
    memcpy(&key->dev, job->dev, sizeof key->dev);
    for (int p = 0; p < job->s->param_count; p++) {
        key->kept[p] = kept[p];
        for (int v = 0; v < kept[p]; v++)
            key->keep[p][v] = (unsigned char)keep[p][v];
    }
}

static bool memo_same(const memo_entry *a, const memo_entry *b)
{
    return memcmp(&a->problem_class, &b->problem_class, sizeof a->problem_class) == 0 &&
           memcmp(&a->dev, &b->dev, sizeof a->dev) == 0 &&
           memcmp(a->kept, b->kept, sizeof a->kept) == 0 &&
           memcmp(a->keep, b->keep, sizeof a->keep) == 0;
}

/* The ready entry of key (waiting while another enumeration fills it), or NULL; then
 * *claimed is a new entry of key for the caller to fill and settle (NULL when the memo is
 * full, out of memory, or that key's walk failed before: walk without the memo). */
static const memo_entry *memo_claim(struct space_memo *memo, const memo_entry *key,
                                    memo_entry **claimed)
{
    const memo_entry *hit = NULL;
    *claimed = NULL;
    pthread_mutex_lock(&memo->lock);
    for (;;) {
        memo_entry *same = NULL;
        for (size_t i = 0; i < memo->count && !same; i++)
            if (memo_same(memo->entries[i], key))
                same = memo->entries[i];
        if (same && same->ready) {
            hit = same;
        } else if (same && !same->failed) {
            pthread_cond_wait(&memo->settled, &memo->lock);
            continue;
        } else if (!same && memo->count < MEMO_MAX_ENTRIES &&
                   (*claimed = malloc(sizeof **claimed)) != NULL) {
            **claimed = *key;
            memo->entries[memo->count++] = *claimed;
        }
        break;
    }
    pthread_mutex_unlock(&memo->lock);
    return hit;
}

/* Settles a claimed entry: ready with what its walk kept, or failed (emptied). */
static void memo_settle(struct space_memo *memo, memo_entry *e, bool ok)
{
    pthread_mutex_lock(&memo->lock);
    if (ok) {
        e->ready = true;
    } else {
        e->failed = true;
        free(e->tuples);
        e->tuples = NULL;
        e->count = e->cap = 0;
    }
    pthread_cond_broadcast(&memo->settled);
    pthread_mutex_unlock(&memo->lock);
}

/* Appends the config of idx to e; false (e left as it was) when out of memory. */
static bool memo_append(memo_entry *e, int param_count, const int *idx)
{
    unsigned char *tuples = util_reserve(e->tuples, &e->cap, e->count, (size_t)param_count);
    if (!tuples)
        return false;
    e->tuples = tuples;
    for (int p = 0; p < param_count; p++)
        e->tuples[e->count * (size_t)param_count + (size_t)p] = (unsigned char)idx[p];
    e->count++;
    return true;
}

/* ---- the walk ------------------------------------------------------------------------------- */

/* One config valid() accepted: fits() (when the space has one), then rank() → a candidate. */
static bool take_config(sandbox *sb, eval_job *job, const int *idx)
{
    char config[sizeof job->enumeration->candidates[0].config];
    bool ok;
    double rank;
    if (!call_check(sb, job, FN_FITS, idx, &ok, NULL, 0))
        return false;
    if (!ok) {
        job->enumeration->invalid++;
        return true;
    }
    return format_config(sb, job->s, idx, config, sizeof config) &&
           call_rank(sb, job, idx, &rank) && append_candidate(sb, job, config, rank);
}

/* valid()'s rejections as patterns (nogoods): the params a rejecting call read (a bit each)
 * and their values. A config that matches one on every param of its mask is rejected without
 * a call. The masks are few (sm90_gemm: tens), so a config costs a hash probe per mask. */
#define NOGOOD_MASKS 64
#define NOGOOD_SLOTS_MAX ((size_t)1 << 20)

typedef struct nogood {
    uint64_t mask; /* 0: an empty slot */
    unsigned char value[W8A8_SPACE_MAX_PARAMS]; /* value indices, 0 outside the mask */
} nogood;

typedef struct nogoods {
    uint64_t masks[NOGOOD_MASKS];
    int mask_count;
    nogood *slots; /* open addressing, a power of two of them; NULL: none kept */
    size_t cap, count;
} nogoods;

_Static_assert(W8A8_SPACE_MAX_VALUES <= 256, "a value index fits a byte");

/* A pattern's hash: its mask and the values under it. */
static uint64_t nogood_hash(const nogood *g)
{
    uint64_t h = g->mask * 0x9E3779B97F4A7C15ull;
    for (int p = 0; p < W8A8_SPACE_MAX_PARAMS; p++)
        if (g->mask >> p & 1) {
            h = (h ^ (uint64_t)(g->value[p] + 1 + 64 * p)) * 0xFF51AFD7ED558CCDull;
            h ^= h >> 31;
        }
    return h;
}

/* The pattern of config idx under mask, and its hash. */
static uint64_t nogood_make(nogood *g, uint64_t mask, const int *idx, int params)
{
    memset(g, 0, sizeof *g);
    g->mask = mask;
    for (int p = 0; p < params; p++)
        if (mask >> p & 1)
            g->value[p] = (unsigned char)idx[p];
    return nogood_hash(g);
}

/* The slot of pattern g (hash h): its own, or the empty one where it would go. */
static nogood *nogood_slot(const nogoods *n, const nogood *g, uint64_t h)
{
    for (size_t i = (size_t)h & (n->cap - 1);; i = (i + 1) & (n->cap - 1)) {
        nogood *slot = &n->slots[i];
        if (slot->mask == 0 || memcmp(slot, g, sizeof *g) == 0)
            return slot;
    }
}

/* The mask of a pattern config idx matches, or 0. */
static uint64_t nogood_match(const nogoods *n, const int *idx, int params)
{
    for (int i = 0; n->slots && i < n->mask_count; i++) {
        nogood g;
        uint64_t h = nogood_make(&g, n->masks[i], idx, params);
        if (nogood_slot(n, &g, h)->mask != 0)
            return n->masks[i];
    }
    return 0;
}

/* Keeps config idx's pattern under mask (what valid() read); out of room or memory it keeps
 * nothing more, and the walk asks valid() as before. */
static void nogood_add(nogoods *n, uint64_t mask, const int *idx, int params)
{
    if (mask == 0)
        return; /* rejected reading nothing: the prefix skip ends the walk */
    int m = 0;
    while (m < n->mask_count && n->masks[m] != mask)
        m++;
    if (m == n->mask_count) {
        if (m == NOGOOD_MASKS)
            return;
        n->masks[n->mask_count++] = mask;
    }
    if (2 * (n->count + 1) > n->cap) { /* grow to keep the load at most half */
        size_t cap = n->cap ? 2 * n->cap : 1024;
        if (cap > NOGOOD_SLOTS_MAX)
            return;
        nogood *slots = calloc(cap, sizeof *slots), *old = n->slots;
        if (!slots)
            return;
        size_t old_cap = n->cap;
        n->slots = slots;
        n->cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].mask != 0)
                *nogood_slot(n, &old[i], nogood_hash(&old[i])) = old[i];
        free(old);
    }
    nogood g;
    uint64_t h = nogood_make(&g, mask, idx, params);
    nogood *slot = nogood_slot(n, &g, h);
    if (slot->mask == 0) {
        *slot = g;
        n->count++;
    }
}

/* Walks the cross product of the kept values (`walk` configs), first param slowest, asking
 * valid() of each; what it accepts also goes to job->claimed (when not NULL; out of memory:
 * claim_broken). valid() is a function of the config fields it reads (job->reads: the walk's
 * proxy), so a config it rejects having read the params of mask R rejects every config that
 * shares their values: those that follow in the walk's subtree below the deepest param of R
 * are skipped at once, and the pattern is kept (nogoods) for configs elsewhere. sm90_gemm's
 * named block key 512,7168,16384 (w8a8 compile --rank, one core): 17.9 million valid() calls
 * and 24 s when every config was asked; 333,000 calls (163,000 of them accepted) and 3.5 s
 * with the skips and sm90_gemm.lua's checks in walk order. */
static bool walk_configs(sandbox *sb, eval_job *job, int keep[][W8A8_SPACE_MAX_VALUES],
                         const int *kept, size_t walk)
{
    const space *s = job->s;
    int pos[W8A8_SPACE_MAX_PARAMS] = {0}; /* position in keep[p] */
    int idx[W8A8_SPACE_MAX_PARAMS];       /* value index: keep[p][pos[p]] */
    size_t below[W8A8_SPACE_MAX_PARAMS]; /* configs a step of param p moves */
    for (int p = s->param_count - 1; p >= 0; p--)
        below[p] = p + 1 < s->param_count ? below[p + 1] * (size_t)kept[p + 1] : 1;
    nogoods bad = {0};
    bool ran = true;
    for (size_t n = 0; n < walk; n++) {
        bool ok = false;
        for (int p = 0; p < s->param_count; p++)
            idx[p] = keep[p][pos[p]];
        uint64_t read = nogood_match(&bad, idx, s->param_count);
        if (!read) {
            if (!call_check(sb, job, FN_VALID, idx, &ok, NULL, 0)) {
                ran = false;
                break;
            }
            read = job->reads->got;
            if (!ok)
                nogood_add(&bad, read, idx, s->param_count);
        }
        /* (most configs are invalid: only the valid ones are written out) */
        if (!ok) {
            job->enumeration->invalid++;
            /* the configs after this one that share the params up to the deepest read: the
             * last of them becomes the current one (each later param at its last value) */
            int deepest = -1;
            for (int p = 0; p < s->param_count; p++)
                if (read >> p & 1)
                    deepest = p;
            for (int p = deepest + 1; p < s->param_count; p++) {
                size_t skipped = (size_t)(kept[p] - 1 - pos[p]) * below[p];
                job->enumeration->invalid += skipped;
                n += skipped;
                pos[p] = kept[p] - 1;
            }
        } else {
            if (job->claimed && !job->claim_broken &&
                !memo_append(job->claimed, s->param_count, idx))
                job->claim_broken = true;
            if (!take_config(sb, job, idx)) {
                ran = false;
                break;
            }
        }
        for (int p = s->param_count - 1; p >= 0; p--) {
            if (++pos[p] < kept[p])
                break;
            pos[p] = 0;
        }
    }
    free(bad.slots);
    return ran;
}

/* The configs a memo entry holds, in the walk's order, through fits() and rank(). */
static bool replay_configs(sandbox *sb, eval_job *job, const memo_entry *hit, size_t walk)
{
    int idx[W8A8_SPACE_MAX_PARAMS];
    int count = job->s->param_count;
    job->enumeration->invalid += walk - hit->count; /* what valid() rejected */
    for (size_t i = 0; i < hit->count; i++) {
        for (int p = 0; p < count; p++)
            idx[p] = hit->tuples[i * (size_t)count + (size_t)p];
        if (!take_config(sb, job, idx))
            return false;
    }
    return true;
}

/* prune(), then the walk of what it keeps through valid(), fits() and rank() — or, for a
 * space with fits() whose valid() answers for this class, device and prune() outcome are
 * known, those answers through fits() and rank(). */
static void enumerate_body(sandbox *sb, void *ud)
{
    eval_job *job = ud;
    const space *s = job->s;
    int keep[W8A8_SPACE_MAX_PARAMS][W8A8_SPACE_MAX_VALUES], kept[W8A8_SPACE_MAX_PARAMS];
    if (!open_table(sb, s))
        return;
    space_push_problem(sb->L, job->problem);
    space_push_device(sb->L, job->dev);
    lua_createtable(sb->L, s->param_count, 0);
    for (int p = 0; p < s->param_count; p++) {
        lua_pushstring(sb->L, s->params[p].name);
        lua_rawseti(sb->L, -2, p + 1);
    }
    job->shared_args = lua_gettop(sb->L) - 2;
    lua_createtable(sb->L, 0, s->param_count); /* the config table every call shares */
    walk_reads reads = {s, NULL, 0};
    proxy_make(sb->L, s, &reads); /* valid()'s config in the walk */
    if (!call_prune(sb, job, keep, kept))
        return;
    size_t walk = 1;
    for (int p = 0; p < s->param_count; p++)
        walk *= (size_t)kept[p];
    job->enumeration->total = s->total;
    job->enumeration->pruned = s->total - walk;
    job->enumeration->invalid = s->total - walk;
    if (s->memo) {
        memo_entry key;
        memo_key(&key, job, keep, kept);
        const memo_entry *hit = memo_claim(s->memo, &key, &job->claimed);
        if (hit) {
            replay_configs(sb, job, hit, walk);
            return;
        }
    }
    job->reads = &reads;
    bool walked = walk_configs(sb, job, keep, kept, walk);
    job->reads = NULL;
    if (walked && job->claimed) {
        memo_settle(s->memo, job->claimed, !job->claim_broken);
        job->claimed = NULL;
    }
}

typedef struct rank_order {
    double rank;
    size_t index;
} rank_order;

static int compare_rank(const void *a, const void *b)
{
    const rank_order *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Sorts by rank, ties in enumeration order (qsort is not stable, so the index decides). */
static w8a8_status sort_candidates(w8a8_context *ctx, space_enumeration *e)
{
    if (e->count < 2)
        return W8A8_OK;
    rank_order *order = malloc(e->count * sizeof *order);
    space_candidate *sorted = malloc(e->count * sizeof *sorted);
    if (!order || !sorted) {
        free(order);
        free(sorted);
        return errorf(ctx, W8A8_NO_MEMORY, "no memory to sort %zu candidates", e->count);
    }
    for (size_t i = 0; i < e->count; i++)
        order[i] = (rank_order){e->candidates[i].rank, i};
    qsort(order, e->count, sizeof *order, compare_rank);
    for (size_t i = 0; i < e->count; i++)
        sorted[i] = e->candidates[order[i].index];
    free(e->candidates);
    free(order);
    e->candidates = sorted;
    return W8A8_OK;
}

/* Opens a fresh sandbox for s, runs body in it, closes it. */
static w8a8_status evaluate(w8a8_context *ctx, const space *s, sandbox_body body, eval_job *job)
{
    sandbox sb;
    w8a8_status st = sandbox_open(ctx, &sb, s->file);
    if (st == W8A8_OK)
        st = sandbox_protect(ctx, &sb, body, job);
    sandbox_close(&sb);
    return st;
}

static w8a8_status check_args(w8a8_context *ctx, const space *s, const void *a, const void *b)
{
    if (!s || !a || !b)
        return errorf(ctx, W8A8_INVALID, "tuning space call with a NULL argument");
    return W8A8_OK;
}

w8a8_status space_enumerate(w8a8_context *ctx, const space *s, const w8a8_problem *problem,
                            const space_device *dev, space_enumeration *out)
{
    w8a8_status st = check_args(ctx, s, problem, dev);
    if (st != W8A8_OK || !out)
        return st != W8A8_OK ? st : errorf(ctx, W8A8_INVALID, "space_enumerate: out is NULL");
    memset(out, 0, sizeof *out);
    eval_job job = {.s = s, .problem = problem, .dev = dev, .enumeration = out};
    st = evaluate(ctx, s, enumerate_body, &job);
    if (job.claimed) /* the walk failed part-way: not an answer to keep */
        memo_settle(s->memo, job.claimed, false);
    if (st == W8A8_OK)
        st = sort_candidates(ctx, out);
    if (st != W8A8_OK)
        space_enumeration_free(out);
    return st;
}

void space_enumeration_free(space_enumeration *e)
{
    if (e) {
        free(e->candidates);
        memset(e, 0, sizeof *e);
    }
}

static void applies_body(sandbox *sb, void *ud)
{
    eval_job *job = ud;
    lua_State *L = sb->L;
    int line = job->s->function_line[FN_APPLIES];
    job->flag = true;
    if (!open_table(sb, job->s) || !push_function(sb, job->s, FN_APPLIES))
        return;
    space_push_problem(L, job->problem);
    space_push_device(L, job->dev);
    if (!sandbox_call(sb, 2, 1, line, "applies()"))
        return;
    if (lua_type(L, -1) != LUA_TBOOLEAN) {
        sandbox_fail(sb, line, "applies() must return a boolean (got %s)", luaL_typename(L, -1));
        return;
    }
    job->flag = lua_toboolean(L, -1);
}

w8a8_status space_applies(w8a8_context *ctx, const space *s, const w8a8_problem *problem,
                          const space_device *dev, bool *applies)
{
    w8a8_status st = check_args(ctx, s, problem, dev);
    if (st != W8A8_OK)
        return st;
    eval_job job = {.s = s, .problem = problem, .dev = dev, .flag = true};
    if (s->function_line[FN_APPLIES])
        st = evaluate(ctx, s, applies_body, &job);
    *applies = st == W8A8_OK && job.flag;
    return st;
}

/* Reads the config table default() returned (on top) into job->config: every param present,
 * an integer listed in params, no other key; then asks valid() about it. nil means the space
 * has no default for this problem (job->flag). */
static bool read_default(sandbox *sb, eval_job *job)
{
    lua_State *L = sb->L;
    const space *s = job->s;
    int line = s->function_line[FN_DEFAULT];
    int idx[W8A8_SPACE_MAX_PARAMS] = {0};
    int64_t values[W8A8_SPACE_MAX_PARAMS];
    int table = lua_gettop(L), keys = 0;
    if (lua_isnil(L, table)) {
        job->flag = true; /* no default for this problem: the next family's applies */
        return true;
    }
    if (lua_type(L, table) != LUA_TTABLE)
        return sandbox_fail(sb, line, "default() must return a config table (got %s)",
                            luaL_typename(L, table));
    for (int p = 0; p < s->param_count; p++) {
        int isint = 0;
        const space_param *param = &s->params[p];
        values[p] = lua_getfield(L, table, param->name) == LUA_TNUMBER
                        ? (int64_t)lua_tointegerx(L, -1, &isint) : 0;
        lua_pop(L, 1);
        idx[p] = -1;
        for (int v = 0; isint && v < param->count; v++)
            if (param->values[v] == values[p])
                idx[p] = v;
        if (idx[p] < 0)
            return sandbox_fail(sb, line, "default() must give %s one of the integers of "
                                "params.%s", param->name, param->name);
    }
    lua_pushnil(L);
    while (lua_next(L, table)) {
        lua_pop(L, 1);
        keys++;
    }
    if (keys != s->param_count)
        return sandbox_fail(sb, line, "default() returned %d keys; the space has %d params",
                            keys, s->param_count);
    bool ok;
    char reason[256];
    if (!format_config(sb, s, idx, job->config, job->config_size) ||
        !call_check(sb, job, FN_VALID, idx, &ok, reason, sizeof reason))
        return false;
    if (!ok)
        return sandbox_fail(sb, line, "default() returned %s, which valid() rejects%s%s",
                            job->config, reason[0] ? ": " : "", reason);
    if (!call_check(sb, job, FN_FITS, idx, &ok, reason, sizeof reason))
        return false;
    if (!ok)
        return sandbox_fail(sb, line, "default() returned %s, which fits() rejects%s%s",
                            job->config, reason[0] ? ": " : "", reason);
    return true;
}

static void default_body(sandbox *sb, void *ud)
{
    eval_job *job = ud;
    if (!open_table(sb, job->s) || !push_function(sb, job->s, FN_DEFAULT))
        return;
    space_push_problem(sb->L, job->problem);
    space_push_device(sb->L, job->dev);
    if (sandbox_call(sb, 2, 1, job->s->function_line[FN_DEFAULT], "default()"))
        read_default(sb, job);
}

w8a8_status space_default(w8a8_context *ctx, const space *s, const w8a8_problem *problem,
                          const space_device *dev, char *config, size_t size)
{
    w8a8_status st = check_args(ctx, s, problem, dev);
    if (st != W8A8_OK || !config || size == 0)
        return st != W8A8_OK ? st : errorf(ctx, W8A8_INVALID, "space_default: no output buffer");
    config[0] = '\0';
    if (s->function_line[FN_DEFAULT]) {
        eval_job job = {.s = s, .problem = problem, .dev = dev, .config = config,
                        .config_size = size};
        st = evaluate(ctx, s, default_body, &job);
        if (st == W8A8_OK && job.flag) {
            config[0] = '\0';
            st = errorf(ctx, W8A8_NOT_FOUND, "%s: default() has no config for this problem",
                        s->file);
        }
        return st;
    }
    /* No default(): the best-ranked valid config. */
    space_enumeration e;
    st = space_enumerate(ctx, s, problem, dev, &e);
    if (st != W8A8_OK)
        return st;
    if (e.count == 0)
        st = errorf(ctx, W8A8_NOT_FOUND, "%s: no config of the space is valid for this problem",
                    s->file);
    else if (!util_format(config, size, "%s", e.candidates[0].config))
        st = errorf(ctx, W8A8_INVALID, "space_default: config buffer too small");
    space_enumeration_free(&e);
    return st;
}

static void compile_problems_body(sandbox *sb, void *ud)
{
    eval_job *job = ud;
    lua_State *L = sb->L;
    int line = job->s->function_line[FN_COMPILE_PROBLEMS];
    if (!open_table(sb, job->s) || !push_function(sb, job->s, FN_COMPILE_PROBLEMS))
        return;
    space_push_device(L, job->dev);
    if (!sandbox_call(sb, 1, 1, line, "compile_problems()"))
        return;
    size_t count = lua_type(L, -1) == LUA_TTABLE ? lua_rawlen(L, -1) : 0;
    if (lua_type(L, -1) != LUA_TTABLE) {
        sandbox_fail(sb, line, "compile_problems() must return a list of problem tables");
        return;
    }
    job->problems = calloc(count ? count : 1, sizeof *job->problems);
    if (!job->problems) {
        sandbox_fail(sb, line, "no memory for %zu problems", count);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        char what[64];
        snprintf(what, sizeof what, "compile_problems()[%zu]", i + 1);
        lua_rawgeti(L, -1, (lua_Integer)i + 1);
        if (!space_read_problem(sb, -1, line, what, &job->problems[i]))
            return;
        lua_pop(L, 1);
        job->problem_count = i + 1;
    }
}

w8a8_status space_compile_problems(w8a8_context *ctx, const space *s, const space_device *dev,
                                   w8a8_problem **problems, size_t *count)
{
    w8a8_status st = check_args(ctx, s, dev, problems);
    if (st != W8A8_OK || !count)
        return st != W8A8_OK ? st : errorf(ctx, W8A8_INVALID, "space_compile_problems: count");
    *problems = NULL;
    *count = 0;
    if (!s->function_line[FN_COMPILE_PROBLEMS]) {
        /* The documented default: one per-tensor e4m3 → bf16 problem. */
        w8a8_problem *one = malloc(sizeof *one);
        if (!one)
            return errorf(ctx, W8A8_NO_MEMORY, "no memory for a problem");
        w8a8_problem_init(one, W8A8_SPACE_DEFAULT_M, W8A8_SPACE_DEFAULT_N,
                          W8A8_SPACE_DEFAULT_K, W8A8_E4M3,
                          W8A8_BF16);
        *problems = one;
        *count = 1;
        return W8A8_OK;
    }
    eval_job job = {.s = s, .dev = dev};
    st = evaluate(ctx, s, compile_problems_body, &job);
    if (st != W8A8_OK) {
        free(job.problems);
        return st;
    }
    *problems = job.problems;
    *count = job.problem_count;
    return W8A8_OK;
}
