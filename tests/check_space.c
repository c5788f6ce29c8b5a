/* Tuning spaces: the sandbox against hostile scripts (tests/spaces/, one .lua each), error messages
 * carrying file:line, exact enumeration counts and order for a space whose rules the test
 * recomputes in C, the shipped spaces, and the public w8a8_space_* API. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#if __has_include(<lua.h>)
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#else
#include <lua5.4/lauxlib.h>
#include <lua5.4/lua.h>
#include <lua5.4/lualib.h>
#endif

#include "decode_configs.h"
#include "gemm.h"
#include "problem_gen.h"
#include "space.h"
#include "testutil.h"

#define SPACES W8A8_SOURCE_DIR "/tests/spaces/"

static w8a8_context *ctx_open(void) { return test_ctx_open_fresh(NULL, 0); }

static void assert_contains(const char *message, const char *part)
{
    ck_assert_msg(strstr(message, part) != NULL, "message \"%s\" lacks \"%s\"", message, part);
}

/* Loading `file` (in tests/spaces) fails with W8A8_SCRIPT_ERROR whose message starts with
 * the file's path and `where` (":3:" or ":"), and contains what. */
static void expect_load_error(const char *file, const char *where, const char *what)
{
    char path[1024], prefix[1100];
    snprintf(path, sizeof path, SPACES "%s", file);
    snprintf(prefix, sizeof prefix, "%s%s", path, where);
    w8a8_context *ctx = ctx_open();
    space *s = (space *)1;
    w8a8_status st = space_load(ctx, path, &s);
    ck_assert_msg(st == W8A8_SCRIPT_ERROR, "%s: %s: %s", file, w8a8_status_string(st),
                  w8a8_errmsg(ctx));
    ck_assert_ptr_null(s);
    ck_assert_msg(strncmp(w8a8_errmsg(ctx), prefix, strlen(prefix)) == 0,
                  "message \"%s\" does not start with \"%s\"", w8a8_errmsg(ctx), prefix);
    assert_contains(w8a8_errmsg(ctx), what);
    printf("%s\n", w8a8_errmsg(ctx));
    w8a8_context_close(ctx);
}

/* The space loads, but enumerating it (on a nominal sm_90a) fails like expect_load_error. */
static void expect_enumerate_error(const char *file, const char *where, const char *what)
{
    char path[1024], prefix[1100];
    snprintf(path, sizeof path, SPACES "%s", file);
    snprintf(prefix, sizeof prefix, "%s%s", path, where);
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    w8a8_problem problem;
    space_enumeration e;
    w8a8_problem_init(&problem, 128, 256, 512, W8A8_E4M3, W8A8_BF16);
    ck_assert_msg(space_load(ctx, path, &s) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert(space_device_nominal(ctx, "sm_90a", &dev) == W8A8_OK);
    w8a8_status st = space_enumerate(ctx, s, &problem, &dev, &e);
    ck_assert_msg(st == W8A8_SCRIPT_ERROR, "%s: %s", file, w8a8_status_string(st));
    ck_assert_ptr_null(e.candidates);
    ck_assert_msg(strncmp(w8a8_errmsg(ctx), prefix, strlen(prefix)) == 0,
                  "message \"%s\" does not start with \"%s\"", w8a8_errmsg(ctx), prefix);
    assert_contains(w8a8_errmsg(ctx), what);
    printf("%s\n", w8a8_errmsg(ctx));
    space_free(s);
    w8a8_context_close(ctx);
}

/* ---- hostile spaces ----------------------------------------------------------------------- */

START_TEST(endless_loop_hits_the_instruction_budget)
{
    expect_load_error("endless_chunk.lua", ":3: ", "instruction budget");
    expect_enumerate_error("endless_valid.lua", ":7: ", "instruction budget");
}
END_TEST

START_TEST(budget_error_cannot_be_swallowed_by_pcall)
{
    expect_load_error("pcall_budget.lua", ":", "instruction budget");
}
END_TEST

START_TEST(memory_bombs_hit_the_cap)
{
    expect_load_error("memory_string.lua", ":4: ", "memory cap of 32 MiB exceeded");
    expect_load_error("memory_rep.lua", ":2: ", "memory cap of 32 MiB exceeded");
    expect_enumerate_error("memory_table.lua", ":9: ", "memory cap of 32 MiB exceeded");
    expect_enumerate_error("memory_table.lua", ":", "(in valid() of config tile=1)");
}
END_TEST

START_TEST(io_and_os_are_absent)
{
    expect_load_error("io_open.lua", ":2: ", "global 'io'");
    expect_load_error("os_execute.lua", ":2: ", "global 'os'");
    struct stat st;
    ck_assert_int_ne(stat("/tmp/w8a8-sandbox-escaped", &st), 0);
}
END_TEST

START_TEST(loaders_and_dump_are_absent)
{
    expect_load_error("load.lua", ":2: ", "global 'load'");
    expect_load_error("require.lua", ":2: ", "global 'require'");
    expect_load_error("dofile.lua", ":2: ", "global 'dofile'");
    expect_load_error("string_dump.lua", ":2: ", "field 'dump'");
}
END_TEST

START_TEST(gc_finalizers_are_refused)
{
    expect_load_error("gc_finalizer.lua", ":2: ", "__gc metamethods are not allowed");
}
END_TEST

START_TEST(work_out_of_the_budget_s_sight_is_bounded)
{
    /* backtracking in C counts no instruction: patterns are refused */
    expect_load_error("pattern.lua", ":3: ", "string patterns are not available");
    /* O(n) instructions repeated within the budget: the clock stops them */
    double start = util_now();
    expect_enumerate_error("quadratic.lua", ":", "time limit of 2000 ms exceeded");
    ck_assert_double_lt(util_now() - start, 10.0);
}
END_TEST

START_TEST(environment_holds_only_the_pure_libraries)
{
    w8a8_context *ctx = ctx_open();
    w8a8_problem problem;
    w8a8_space_result r;
    w8a8_problem_init(&problem, 1, 2, 16, W8A8_INT8, W8A8_FP32);
    w8a8_status st = w8a8_space_enumerate(ctx, SPACES "env_probe.lua", &problem, "sm_80", &r);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_uint_eq(r.total, 2);
    ck_assert_uint_eq(r.invalid, 0);
    ck_assert_uint_eq(r.count, 2);
    w8a8_space_result_free(&r);
    w8a8_context_close(ctx);
}
END_TEST

/* Every space gets scripts/lib/gemm.lua as the global `gemm`, in each evaluation's fresh
 * sandbox: a space from a file uses it in applies(), valid(), rank() and compile_problems(). */
START_TEST(spaces_get_the_gemm_library)
{
    w8a8_context *ctx = ctx_open();
    w8a8_problem problem;
    w8a8_space_result r;
    w8a8_problem_init(&problem, 8, 256, 96, W8A8_E4M3, W8A8_BF16);
    w8a8_status st = w8a8_space_enumerate(ctx, SPACES "library.lua", &problem, "sm_80", &r);
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(r.applies, 1);
    ck_assert_uint_eq(r.count, 3); /* 96 = 6 · 16 = 3 · 32 = 2 · 48; 64 does not divide it */
    ck_assert_str_eq(r.configs[0], "tile=48");
    ck_assert_str_eq(r.configs[2], "tile=16");
    w8a8_space_result_free(&r);
    /* a zero point without INT8: gemm.operands() says nil */
    problem.azp = W8A8_AZP_TENSOR;
    ck_assert_int_eq(w8a8_space_enumerate(ctx, SPACES "library.lua", &problem, "sm_80", &r),
                     W8A8_OK);
    ck_assert_int_eq(r.applies, 0);
    w8a8_space_result_free(&r);
    space *s = NULL;
    space_device dev;
    w8a8_problem *problems = NULL;
    size_t count = 0;
    ck_assert(space_load(ctx, SPACES "library.lua", &s) == W8A8_OK);
    ck_assert(space_device_nominal(ctx, "sm_80", &dev) == W8A8_OK);
    ck_assert(space_compile_problems(ctx, s, &dev, &problems, &count) == W8A8_OK);
    ck_assert_uint_eq(count, 2);
    ck_assert_int_eq(problems[0].a_type, W8A8_INT8);
    ck_assert_int_eq(problems[1].a_scale.kind, W8A8_SCALE_BLOCK);
    free(problems);
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

static int dump_writer(lua_State *L, const void *data, size_t size, void *ud)
{
    (void)L;
    return fwrite(data, 1, size, ud) == size ? 0 : 1;
}

START_TEST(bytecode_is_rejected)
{
    /* Real Lua 5.4 bytecode of a valid space, made outside any sandbox. */
    char dir[512], path[600];
    test_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/compiled.lua", dir);
    lua_State *L = luaL_newstate();
    ck_assert_int_eq(luaL_loadstring(L, "return {template = 'reference_gemm', arch = 'sm_80'}"),
                     LUA_OK);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(lua_dump(L, dump_writer, f, 0), 0);
    fclose(f);
    lua_close(L);
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    ck_assert_int_eq(space_load(ctx, path, &s), W8A8_SCRIPT_ERROR);
    assert_contains(w8a8_errmsg(ctx), path);
    assert_contains(w8a8_errmsg(ctx), "precompiled Lua bytecode is not accepted");
    w8a8_context_close(ctx);
    remove(path);
    rmdir(dir);
}
END_TEST

START_TEST(errors_in_script_functions_name_their_line)
{
    expect_enumerate_error("valid_error.lua", ":8: ", "field 'no_such_field'");
    expect_enumerate_error("valid_error.lua", ":8: ",
                           "(in valid() of config block_m=128,block_n=64)");
    expect_enumerate_error("error_table.lua", ":7: ", "error object is a table value");
    expect_enumerate_error("error_table.lua", ":7: ", "(in rank() of config tile=1)");
    expect_enumerate_error("global_write.lua", ":7: ", "assignment to undeclared global 'seen'");
    expect_enumerate_error("bad_valid_result.lua", ":6: ", "valid() must return a boolean");
    expect_enumerate_error("bad_prune_result.lua", ":6: ", "prune() must return a boolean");
    expect_enumerate_error("config_metatable.lua", ":8: ", "cannot change a protected metatable");
}
END_TEST

START_TEST(malformed_spaces_name_file_and_line)
{
    expect_load_error("not_table.lua", ":2: ", "must return the space's table");
    expect_load_error("no_template.lua", ":5: ", "'template' must be a string");
    expect_load_error("syntax_error.lua", ":3: ", "'}' expected");
    expect_load_error("variant_is_param.lua", ":7: ", "variants.tile is also a param");
    expect_load_error("variant_not_integers.lua", ":7: ", "variants.trigger[1] must be an integer");

    w8a8_context *ctx = ctx_open();
    w8a8_problem problem;
    char config[W8A8_SPACE_CONFIG_BYTES];
    w8a8_problem_init(&problem, 1, 2, 16, W8A8_E4M3, W8A8_BF16);
    ck_assert_int_eq(w8a8_space_default(ctx, SPACES "bad_default.lua", &problem, "sm_90",
                                        config, sizeof config), W8A8_SCRIPT_ERROR);
    assert_contains(w8a8_errmsg(ctx), SPACES "bad_default.lua:6: ");
    assert_contains(w8a8_errmsg(ctx), "params.tile");
    w8a8_space_plan plan;
    ck_assert_int_eq(w8a8_space_compile_plan(ctx, SPACES "bad_problem.lua", "sm_80", 0, &plan),
                     W8A8_SCRIPT_ERROR);
    assert_contains(w8a8_errmsg(ctx), SPACES "bad_problem.lua:5: compile_problems()[2].a_type "
                    "must be one of e4m3, e5m2, int8 (got 'fp64')");
    ck_assert_uint_eq(plan.count, 0);
    ck_assert_int_eq(w8a8_space_enumerate(ctx, SPACES "missing.lua", &problem, "sm_90",
                                          &(w8a8_space_result){0}), W8A8_NOT_FOUND);
    ck_assert_int_eq(w8a8_space_enumerate(ctx, "no_such_space", &problem, "sm_90",
                                          &(w8a8_space_result){0}), W8A8_NOT_FOUND);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(long_paths_are_reported_whole)
{
    /* Lua abbreviates file names over 60 characters to "...tail"; messages carry it whole. */
    char dir[512], deep[900], path[1000];
    test_mkdtemp(dir, sizeof dir);
    snprintf(deep, sizeof deep, "%s/a-folder-name-long-enough-to-pass-sixty-characters", dir);
    ck_assert_int_eq(mkdir(deep, 0755), 0);
    snprintf(path, sizeof path, "%s/io_open.lua", deep);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("-- hostile\nlocal f = io.open('/etc/passwd')\nreturn {}\n", f);
    fclose(f);
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    char expected[1100];
    snprintf(expected, sizeof expected, "%s:2: ", path);
    ck_assert_int_eq(space_load(ctx, path, &s), W8A8_SCRIPT_ERROR);
    ck_assert_msg(strncmp(w8a8_errmsg(ctx), expected, strlen(expected)) == 0, "%s",
                  w8a8_errmsg(ctx));
    w8a8_context_close(ctx);
    remove(path);
    rmdir(deep);
    rmdir(dir);
}
END_TEST

/* ---- exact enumeration ---------------------------------------------------------------------- */

/* tests/spaces/tiles.lua recomputed: its rules, enumeration order (block_m slowest, then
 * block_n, stages, split_k) and a stable sort by waves. */
typedef struct tiles_candidate {
    char config[256];
    int64_t waves;
} tiles_candidate;

static size_t tiles_expected(const w8a8_problem *p, const space_device *dev,
                             tiles_candidate *out, size_t *invalid)
{
    static const int64_t block_m[] = {64, 128, 256}, block_n[] = {64, 96, 128, 192, 256},
                         stages[] = {2, 3, 4, 5, 6}, split_k[] = {1, 2, 4};
    size_t count = 0;
    *invalid = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 5; b++)
            for (int c = 0; c < 5; c++)
                for (int d = 0; d < 3; d++) {
                    int64_t bm = block_m[a], bn = block_n[b], st = stages[c], sk = split_k[d];
                    if (st * (bm + bn) * 128 > dev->max_smem_optin || p->k % (128 * sk) != 0 ||
                        bm * bn > 128 * 256) {
                        (*invalid)++;
                        continue;
                    }
                    int64_t tiles = (p->m + bm - 1) / bm * ((p->n + bn - 1) / bn) * sk;
                    tiles_candidate *t = &out[count++];
                    t->waves = (tiles + dev->sm_count - 1) / dev->sm_count;
                    snprintf(t->config, sizeof t->config,
                             "block_m=%lld,block_n=%lld,stages=%lld,split_k=%lld", (long long)bm,
                             (long long)bn, (long long)st, (long long)sk);
                }
    for (size_t i = 1; i < count; i++) /* insertion sort: stable */
        for (size_t j = i; j > 0 && out[j - 1].waves > out[j].waves; j--) {
            tiles_candidate swap = out[j];
            out[j] = out[j - 1];
            out[j - 1] = swap;
        }
    return count;
}

static void check_tiles(const char *arch, const w8a8_problem *problem, size_t want_count,
                        size_t want_invalid)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    space_enumeration e;
    tiles_candidate expected[225];
    size_t invalid;
    ck_assert(space_device_nominal(ctx, arch, &dev) == W8A8_OK);
    ck_assert_msg(space_load(ctx, SPACES "tiles.lua", &s) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_str_eq(space_name(s), "tiles");
    ck_assert_int_eq(space_param_count(s), 4);
    ck_assert_str_eq(space_param_at(s, 2)->name, "stages"); /* `order`, not sorted names */
    ck_assert_uint_eq(space_config_total(s), 225);
    ck_assert_msg(space_enumerate(ctx, s, problem, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    size_t count = tiles_expected(problem, &dev, expected, &invalid);
    ck_assert_uint_eq(count, want_count); /* the recomputation agrees with the stated counts */
    ck_assert_uint_eq(invalid, want_invalid);
    ck_assert_uint_eq(e.total, 225);
    ck_assert_uint_eq(e.invalid, want_invalid);
    ck_assert_uint_eq(e.count, want_count);
    for (size_t i = 0; i < e.count; i++) {
        ck_assert_str_eq(e.candidates[i].config, expected[i].config);
        ck_assert(e.candidates[i].rank == (double)expected[i].waves);
    }
    space_enumeration_free(&e);
    space_free(s);
    w8a8_context_close(ctx);
}

START_TEST(enumeration_counts_and_order_are_exact)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 1000, 3000, 4096, W8A8_E4M3, W8A8_BF16);
    /* H100: 232448 B of shared memory → 54 rejected (16 by smem, 30 by accumulators, 8 by
     * both); A10: 101376 B → 147 rejected. */
    check_tiles("sm_90a", &p, 171, 54);
    check_tiles("sm_86", &p, 78, 147);
    /* K = 384: split-K 2 and 4 do not divide it. */
    w8a8_problem_init(&p, 128, 1024, 384, W8A8_E4M3, W8A8_BF16);
    check_tiles("sm_90", &p, 57, 168);
}
END_TEST

START_TEST(default_applies_and_compile_problems)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    w8a8_problem p, *problems = NULL;
    size_t count = 0;
    bool applies = false;
    char config[W8A8_SPACE_CONFIG_BYTES];
    ck_assert(space_device_nominal(ctx, "sm_90a", &dev) == W8A8_OK);
    ck_assert_str_eq(dev.arch, "sm_90");
    ck_assert_int_eq(dev.sm_count, 132);
    ck_assert_int_eq(dev.max_smem_optin, 232448);
    ck_assert(space_load(ctx, SPACES "tiles.lua", &s) == W8A8_OK);
    w8a8_problem_init(&p, 1000, 3000, 4096, W8A8_E4M3, W8A8_BF16);
    ck_assert(space_applies(ctx, s, &p, &dev, &applies) == W8A8_OK && applies);
    ck_assert(space_default(ctx, s, &p, &dev, config, sizeof config) == W8A8_OK);
    ck_assert_str_eq(config, "block_m=128,block_n=128,stages=4,split_k=1");
    /* 4 stages of 128 + 128 rows · 128 B = 131072 B: more than an sm_89 part has */
    ck_assert(space_device_nominal(ctx, "sm_89", &dev) == W8A8_OK);
    ck_assert_int_eq(dev.max_smem_optin, 101376);
    ck_assert_int_eq(space_default(ctx, s, &p, &dev, config, sizeof config), W8A8_SCRIPT_ERROR);
    assert_contains(w8a8_errmsg(ctx), "tiles.lua:39: default() returned block_m=128,"
                    "block_n=128,stages=4,split_k=1, which valid() rejects: shared memory");
    p.a_type = p.b_type = W8A8_INT8;
    ck_assert(space_applies(ctx, s, &p, &dev, &applies) == W8A8_OK && !applies);
    ck_assert(space_compile_problems(ctx, s, &dev, &problems, &count) == W8A8_OK);
    ck_assert_uint_eq(count, 3);
    ck_assert_int_eq(problems[1].a_type, W8A8_INT8);
    ck_assert_int_eq(problems[1].b_type, W8A8_INT8);
    ck_assert_int_eq(problems[1].out_type, W8A8_FP16);
    ck_assert_int_eq(problems[2].a_type, W8A8_E5M2);
    ck_assert_int_eq(problems[2].b_type, W8A8_E4M3);
    ck_assert_int_eq(problems[2].a_scale.kind, W8A8_SCALE_BLOCK);
    ck_assert_int_eq(problems[2].a_scale.group_rows, 1);
    ck_assert_int_eq(problems[2].a_scale.group_k, 128);
    ck_assert_int_eq(problems[2].a_scale.k_major, 1);
    ck_assert_int_eq(problems[2].b_scale.group_rows, 128);
    ck_assert_int_eq(problems[2].bias_type, W8A8_FP32);
    ck_assert_int_eq(problems[2].out_type, W8A8_FP32);
    free(problems);
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(compile_plan_covers_every_applying_problem)
{
    w8a8_context *ctx = ctx_open();
    w8a8_space_plan plan;
    /* tiles.lua on sm_90a: 3 problems, the int8 one does not apply; 171 + 57 valid. */
    ck_assert(w8a8_space_compile_plan(ctx, SPACES "tiles.lua", "sm_90a", 0, &plan) == W8A8_OK);
    ck_assert_int_eq(plan.targets_arch, 1);
    ck_assert_str_eq(plan.template_name, "reference_gemm");
    ck_assert_uint_eq(plan.problems, 3);
    ck_assert_uint_eq(plan.not_applied, 1);
    ck_assert_uint_eq(plan.total, 450);
    ck_assert_uint_eq(plan.invalid, 54 + 168);
    ck_assert_uint_eq(plan.count, 171 + 57);
    ck_assert_uint_eq(plan.capped, 0);
    ck_assert_int_eq(plan.items[0].problem.m, 1000);
    ck_assert_int_eq(plan.items[171].problem.m, 128);
    ck_assert_str_eq(plan.items[171].config, "block_m=64,block_n=64,stages=2,split_k=1");
    /* capped at 5: each problem's 5 best, then the best config for each parameter value those
     * miss (the uncapped list in rank order says which that is) */
    w8a8_space_plan capped;
    ck_assert(w8a8_space_compile_plan(ctx, SPACES "tiles.lua", "sm_90a", 5, &capped) == W8A8_OK);
    static const char *const names[] = {"block_m", "block_n", "stages", "split_k"};
    size_t at = 0;
    for (size_t first = 0, next; first < plan.count; first = next) {
        next = first + 1;
        while (next < plan.count && plan.items[next].problem.m == plan.items[first].problem.m)
            next++;
        size_t begin = at;
        for (size_t i = first; i < first + 5; i++, at++)
            ck_assert_str_eq(capped.items[at].config, plan.items[i].config);
        for (size_t i = first + 5; i < next; i++) {
            /* i is planned iff it is the first to carry a value no earlier planned one has */
            bool wanted = false;
            for (int p = 0; p < 4; p++) {
                char item[64];
                const char *v = strstr(plan.items[i].config, names[p]);
                snprintf(item, sizeof item, "%.*s", (int)strcspn(v, ","), v);
                bool covered = false;
                for (size_t j = begin; j < at && !covered; j++)
                    covered = strstr(capped.items[j].config, item) != NULL;
                wanted |= !covered;
            }
            if (wanted) {
                ck_assert_uint_lt(at, capped.count);
                ck_assert_str_eq(capped.items[at].config, plan.items[i].config);
                at++;
            }
        }
    }
    ck_assert_uint_eq(capped.count, at);
    ck_assert_uint_gt(capped.count, 10);
    ck_assert_uint_eq(capped.capped, 171 + 57 - capped.count);
    w8a8_space_plan_free(&capped);
    w8a8_space_plan_free(&plan);
    ck_assert_int_eq(w8a8_space_compile_plan(ctx, SPACES "tiles.lua", "sm_70", 0, &plan),
                     W8A8_INVALID);
    w8a8_context_close(ctx);
}
END_TEST

/* Enumerates test space `file` (tests/spaces/) for a 64×64×64 e4m3 problem on a nominal sm_80;
 * *e to be freed by the caller. */
static void enumerate_test_space(const char *file, space_enumeration *e)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    w8a8_problem p;
    char path[512];
    snprintf(path, sizeof path, SPACES "%s", file);
    w8a8_problem_init(&p, 64, 64, 64, W8A8_E4M3, W8A8_BF16);
    ck_assert(space_device_nominal(ctx, "sm_80", &dev) == W8A8_OK);
    ck_assert_msg(space_load(ctx, path, &s) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_msg(space_enumerate(ctx, s, &p, &dev, e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    space_free(s);
    w8a8_context_close(ctx);
}

/* prune() drops parameter values before the cross product: those configs never reach
 * valid(), count as invalid and as pruned, and the rest keep the enumeration order. */
START_TEST(prune_drops_values_before_the_walk)
{
    space_enumeration e;
    enumerate_test_space("prune.lua", &e);
    ck_assert_uint_eq(e.total, 12);
    ck_assert_uint_eq(e.pruned, 8); /* tile 2 (4 configs), odd stages of tiles 1 and 3 (4) */
    ck_assert_uint_eq(e.invalid, 8);
    ck_assert_uint_eq(e.count, 4);
    static const char *const want[] = {"tile=1,stage=2", "tile=1,stage=4", "tile=3,stage=2",
                                       "tile=3,stage=4"};
    for (size_t i = 0; i < e.count; i++)
        ck_assert_str_eq(e.candidates[i].config, want[i]);
    space_enumeration_free(&e);
}
END_TEST

/* valid() and rank() share one config table during an enumeration: a script that changes it
 * does not change what the next call sees. */
START_TEST(scripts_that_change_the_config_table)
{
    space_enumeration e;
    enumerate_test_space("mutating.lua", &e);
    ck_assert_uint_eq(e.total, 12);
    ck_assert_uint_eq(e.count, 9); /* tile + stage <= 5 */
    static const char *const want[] = {"tile=3,stage=2", "tile=3,stage=1", "tile=2,stage=3",
                                       "tile=2,stage=2", "tile=2,stage=1", "tile=1,stage=4",
                                       "tile=1,stage=3", "tile=1,stage=2", "tile=1,stage=1"};
    for (size_t i = 0; i < e.count; i++) {
        ck_assert_str_eq(e.candidates[i].config, want[i]);
        int tile = want[i][5] - '0', stage = want[i][13] - '0';
        ck_assert_double_eq(e.candidates[i].rank, -(tile * 10 + stage));
    }
    space_enumeration_free(&e);
}
END_TEST

/* The walk skips what valid() rejects for the fields it read (the rest of the subtree, and
 * the configs elsewhere that share those values): it keeps exactly the configs valid() accepts
 * one by one, in the walk's order, with pairs() and fields set to nil as on a plain table. */
START_TEST(the_walk_skips_what_valid_rejected_for_what_it_read)
{
    space_enumeration e;
    enumerate_test_space("reads.lua", &e);
    ck_assert_uint_eq(e.total, 72);
    size_t want = 0;
    for (int a = 1; a <= 3; a++)
        for (int b = 1; b <= 4; b++)
            for (int c = 1; c <= 2; c++)
                for (int d = 1; d <= 3; d++) {
                    if (a == 2 || (d == 3 && c == 1) || b > a + 1 || (a + b + c + d) % 5 == 0)
                        continue;
                    char config[64];
                    snprintf(config, sizeof config, "a=%d,b=%d,c=%d,d=%d", a, b, c, d);
                    ck_assert_uint_lt(want, e.count);
                    ck_assert_str_eq(e.candidates[want].config, config);
                    want++;
                }
    ck_assert_uint_eq(e.count, want);
    ck_assert_uint_eq(e.invalid, 72 - want);
    space_enumeration_free(&e);
}
END_TEST

/* A space with fits(): valid()'s answers are kept per class, device and prune() outcome and
 * reused for later keys; fits() and rank() still see each key's shape. */
START_TEST(fits_reuses_valid_answers_across_keys)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    ck_assert(space_device_nominal(ctx, "sm_80", &dev) == W8A8_OK);
    ck_assert_msg(space_load(ctx, SPACES "fits.lua", &s) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    static const struct {
        int64_t m, n, k;
        size_t count, pruned, memo_entries;
        const char *first, *last;
    } cases[] = {
        /* valid: tile + stage <= 6 (13 of 16; 12 of the 12 stage <= 3 when k < 128) */
        {64, 1000, 256, 13, 0, 1, "tile=1,stage=1", "tile=4,stage=2"},  /* walked */
        {128, 2000, 512, 8, 0, 1, "tile=1,stage=1", "tile=2,stage=4"}, /* reused: tile <= 2 */
        {256, 3000, 64, 3, 4, 2, "tile=1,stage=1", "tile=1,stage=3"},  /* other prune(): walked */
        {32, 4000, 64, 11, 4, 2, "tile=1,stage=1", "tile=4,stage=2"},  /* reused */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        w8a8_problem p;
        space_enumeration e;
        w8a8_problem_init(&p, cases[i].m, cases[i].n, cases[i].k, W8A8_E4M3, W8A8_BF16);
        ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
        ck_assert_uint_eq(e.total, 16);
        ck_assert_uint_eq(e.count, cases[i].count);
        ck_assert_uint_eq(e.pruned, cases[i].pruned);
        ck_assert_uint_eq(e.invalid, 16 - cases[i].count);
        ck_assert_str_eq(e.candidates[0].config, cases[i].first);
        ck_assert_str_eq(e.candidates[e.count - 1].config, cases[i].last);
        ck_assert_double_eq_tol(e.candidates[0].rank, 11 + cases[i].n / 1000.0, 1e-9);
        ck_assert_uint_eq(space_memo_entries(s), cases[i].memo_entries);
        space_enumeration_free(&e);
    }
    /* default() meets valid() and fits(): tile 4 fits M = 64, not M = 128 */
    char config[256];
    w8a8_problem p;
    w8a8_problem_init(&p, 64, 64, 256, W8A8_E4M3, W8A8_BF16);
    ck_assert_int_eq(space_default(ctx, s, &p, &dev, config, sizeof config), W8A8_OK);
    ck_assert_str_eq(config, "tile=4,stage=1");
    w8a8_problem_init(&p, 128, 64, 256, W8A8_E4M3, W8A8_BF16);
    ck_assert_int_eq(space_default(ctx, s, &p, &dev, config, sizeof config), W8A8_SCRIPT_ERROR);
    ck_assert_msg(strstr(w8a8_errmsg(ctx), "which fits() rejects: tile too large for M"), "%s",
                  w8a8_errmsg(ctx));
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

/* Several threads enumerating keys of one class on one loaded space (as the tuner's plan
 * does): one walks, the others wait for its answers; every list equals a lone enumeration's. */
enum { RACE_KEYS = 6 };
typedef struct race_key {
    const space *s;
    space_device dev;
    int64_t m;
    space_enumeration e;
    w8a8_status st;
} race_key;

static void *race_enumerate(void *arg)
{
    race_key *r = arg;
    w8a8_context *ctx = ctx_open();
    w8a8_problem p;
    w8a8_problem_init(&p, r->m, 6144, 4096, W8A8_E4M3, W8A8_BF16);
    r->st = space_enumerate(ctx, r->s, &p, &r->dev, &r->e);
    w8a8_context_close(ctx);
    return NULL;
}

START_TEST(fits_memo_under_threads)
{
    w8a8_context *ctx = ctx_open();
    space *shared = NULL;
    ck_assert(space_load(ctx, "sm90_gemm", &shared) == W8A8_OK);
    race_key keys[RACE_KEYS];
    pthread_t ids[RACE_KEYS];
    static const int64_t ms[RACE_KEYS] = {192, 256, 512, 1024, 4096, 16384};
    for (int i = 0; i < RACE_KEYS; i++) {
        memset(&keys[i], 0, sizeof keys[i]);
        keys[i].s = shared;
        keys[i].m = ms[i];
        ck_assert(space_device_nominal(ctx, "sm_90a", &keys[i].dev) == W8A8_OK);
        ck_assert_int_eq(pthread_create(&ids[i], NULL, race_enumerate, &keys[i]), 0);
    }
    for (int i = 0; i < RACE_KEYS; i++)
        ck_assert_int_eq(pthread_join(ids[i], NULL), 0);
    ck_assert_uint_eq(space_memo_entries(shared), 1); /* one prune() outcome at M > 128 */
    for (int i = 0; i < RACE_KEYS; i++) {
        ck_assert_int_eq(keys[i].st, W8A8_OK);
        space *alone = NULL; /* a space of its own: an empty memo, a full walk */
        ck_assert(space_load(ctx, "sm90_gemm", &alone) == W8A8_OK);
        race_key ref = {.s = alone, .dev = keys[i].dev, .m = keys[i].m};
        race_enumerate(&ref);
        ck_assert_int_eq(ref.st, W8A8_OK);
        ck_assert_uint_eq(keys[i].e.count, ref.e.count);
        ck_assert_uint_eq(keys[i].e.invalid, ref.e.invalid);
        ck_assert_uint_eq(keys[i].e.pruned, ref.e.pruned);
        for (size_t c = 0; c < ref.e.count; c++) {
            ck_assert_str_eq(keys[i].e.candidates[c].config, ref.e.candidates[c].config);
            ck_assert(keys[i].e.candidates[c].rank == ref.e.candidates[c].rank);
        }
        space_enumeration_free(&ref.e);
        space_enumeration_free(&keys[i].e);
        space_free(alone);
    }
    space_free(shared);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(enumeration_is_fast)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    space_enumeration e;
    w8a8_problem p;
    struct timespec t0, t1;
    w8a8_problem_init(&p, 512, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    ck_assert(space_device_nominal(ctx, "sm_90a", &dev) == W8A8_OK);
    ck_assert(space_load(ctx, SPACES "big.lua", &s) == W8A8_OK);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("enumerating %zu configs (%zu valid) took %.1f ms\n", e.total, e.count, 1e3 * seconds);
    ck_assert_uint_eq(e.total, 10368);
    /* valid: a·b·d·64·e ≤ 232448 and (a+b+c) % 3 ≠ 0, counted in C */
    size_t valid = 0;
    for (int a = 1; a <= 8; a++)
        for (int b = 1; b <= 8; b++)
            for (int c = 1; c <= 9; c++)
                for (int d = 16; d <= 64; d *= 2)
                    for (int x = 1; x <= 4; x *= 2)
                        valid += 2 * (a * b * d * 64 * x <= 232448 && (a + b + c) % 3 != 0);
    ck_assert_uint_eq(e.count, valid);
    ck_assert_msg(seconds < 1.0, "enumeration took %.2f s", seconds);
    space_enumeration_free(&e);
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

/* ---- shipped spaces --------------------------------------------------------------------- */

START_TEST(reference_space)
{
    w8a8_context *ctx = ctx_open();
    w8a8_problem p;
    w8a8_space_result r;
    char config[W8A8_SPACE_CONFIG_BYTES] = "poison";
    bool listed = false;
    for (const char *const *name = w8a8_space_names(); *name; name++)
        listed |= strcmp(*name, "reference_gemm") == 0;
    ck_assert(listed);
    w8a8_problem_init(&p, 7, 129, 160, W8A8_INT8, W8A8_FP32);
    p.azp = W8A8_AZP_TOKEN;
    ck_assert_msg(w8a8_space_enumerate(ctx, "reference_gemm", &p, "sm_86", &r) == W8A8_OK, "%s",
                  w8a8_errmsg(ctx));
    ck_assert_str_eq(r.template_name, "reference_gemm");
    ck_assert_str_eq(r.arch, "sm_80");
    ck_assert_int_eq(r.applies, 1);
    ck_assert_uint_eq(r.total, 1); /* no params: the one empty config */
    ck_assert_uint_eq(r.invalid, 0);
    ck_assert_uint_eq(r.count, 1);
    ck_assert_str_eq(r.configs[0], "");
    w8a8_space_result_free(&r);
    ck_assert(w8a8_space_default(ctx, "reference_gemm", &p, "sm_80", config, sizeof config) ==
              W8A8_OK);
    ck_assert_str_eq(config, "");
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(reference_compile_plan_covers_every_trait)
{
    w8a8_context *ctx = ctx_open();
    w8a8_space_plan plan;
    ck_assert_msg(w8a8_space_compile_plan(ctx, "reference_gemm", "sm_90a", 0, &plan) == W8A8_OK,
                  "%s", w8a8_errmsg(ctx));
    ck_assert_int_eq(plan.targets_arch, 1);
    /* 5 dtype pairs + 8 more FP8 and 8 more int8 scale pairs + 7 more out×bias (row×row
     * e4m3: bf16 {bf16, fp32}, fp16 {none, fp16, fp32}, fp32 {none, fp32}) + 4 zero-point
     * problems = 32, all distinct specializations */
    ck_assert_uint_eq(plan.count, 32);
    ck_assert_uint_eq(plan.problems, 32);
    bool dtype_pairs[4][4] = {{false}}, scale_pairs[3][3] = {{false}}, out_bias[7][7] = {{false}};
    bool azp[3] = {false};
    for (size_t i = 0; i < plan.count; i++) {
        const w8a8_problem *q = &plan.items[i].problem;
        ck_assert_str_eq(plan.items[i].config, "");
        dtype_pairs[q->a_type][q->b_type] = true;
        scale_pairs[q->a_scale.kind][q->b_scale.kind] = true;
        out_bias[q->out_type][q->bias_type] = true;
        azp[q->azp] = true;
        ck_assert(q->azp == W8A8_AZP_NONE ||
                  (q->a_type == W8A8_INT8 && q->a_scale.kind != W8A8_SCALE_BLOCK &&
                   q->b_scale.kind != W8A8_SCALE_BLOCK));
    }
    for (int a = W8A8_E4M3; a <= W8A8_E5M2; a++)
        for (int b = W8A8_E4M3; b <= W8A8_E5M2; b++)
            ck_assert(dtype_pairs[a][b]);
    ck_assert(dtype_pairs[W8A8_INT8][W8A8_INT8]);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            ck_assert(scale_pairs[a][b]);
    for (int o = W8A8_BF16; o <= W8A8_FP32; o++) {
        ck_assert(out_bias[o][W8A8_DTYPE_NONE] && out_bias[o][o] && out_bias[o][W8A8_FP32]);
    }
    ck_assert(azp[W8A8_AZP_TENSOR] && azp[W8A8_AZP_TOKEN]);
    w8a8_space_plan_free(&plan);
    w8a8_context_close(ctx);
}
END_TEST

/* scripts/sm90_gemm.lua's valid() recomputed from the rules its comments and code state:
 * pingpong needs 2 consumers; rows per consumer (block_m, or block_m / consumers without
 * pingpong) ∈ {64, 128}; INT8 wgmma N ∈ {8, 16, 24, 32} ∪ {48…256 step 16}; cluster 2 needs
 * block_n % 16 == 0; stages·(block_m + block_n)·128 + staging + partials + 16·stages + 16 +
 * 1024 ≤ max_smem (block scales: + stages · (block_m · 4 + 16) of scale areas), where
 * epilogue 1 stages consumers · rows · block_n · out_bytes, epilogue 2 (valid when a tile row
 * holds two output boxes or more of at least 32 bytes; a box is the widest of 128/64/32/16
 * bytes dividing the row) consumers · rows · 2 · box (· 1 · box when the row is two boxes),
 * and split > 1
 * keeps consumers · rows · block_n · 4 bytes of partial sums and 32 of barriers; (rows / 64) ·
 * block_n / 2 + 40 ≤ 255 (one consumer) or 232 (two), with block scales (promoted
 * accumulation) 2 · (rows / 64) · block_n / 2 + 40 + 16 instead, and with overlap 1..5 (promoted
 * accumulation only; 4 and 5 when named, with block scales only for block_n dividing 128 or
 * pingpong) 3 · (rows / 64) · block_n / 2 + 32 + 8 · rows / 64; wave 1 (block scales, or any promoted
 * accumulation when named; overlap 0 and 128 rows a consumer) (rows / 64 + 1) · block_n / 2 + 16
 * (measured, NVRTC 13.0); stagger 1 (promoted accumulation only, at M <= 128 unless named)
 * needs 2 consumers without pingpong; split > 1 needs cluster 1,
 * no pingpong, at least 2 · split K blocks of 128 and tiles · split ≤ 2 · SMs, and M ≤ 128
 * unless the space is named; tail 2 needs cluster 1, split 1, no pingpong or stagger, 32
 * bytes of barriers, partial sums (consumers · rows · block_n · 4) that fit the ring
 * (stages · (block_m + block_n) · 128), and a last partial wave that its halves shorten: on
 * C CTAs (SMs rounded down to even) the tiles' rest r = tiles mod C is not 0 and r · 2 ≤ C,
 * with K groups (K blocks of 128 in groups of 2^overlap) ≥ 2; both values of specialize are
 * valid; the
 * register-file check (128·40 + 256·232 = 64512 ≤ 65536) always passes. raster × group
 * (2 × 4) do not enter valid(). */
typedef struct sm90_expect {
    int64_t m, n, k;
    bool int8, block; /* block: promoted accumulation (block scales or accum promoted) */
    int out_bytes;
    bool scale_areas; /* block scales: the ring carries each stage's scales */
} sm90_expect;

static size_t sm90_expected_valid(sm90_expect x, int max_smem, int sm_count, bool named)
{
    static const int block_m[] = {64, 128, 256};
    static const int block_n[] = {8,   16,  24,  32,  48,  64,  80,  96,  112,
                                  128, 144, 160, 176, 192, 208, 224, 240, 256};
    static const int stages[] = {2, 3, 4, 5, 6, 7, 8, 10, 12};
    static const int splits[] = {1, 2, 4};
    /* unnamed, split-K is offered only at M <= 128 (pruned above) */
    const int split_values = named || x.m <= 128 ? 3 : 1, specialize_values = 2;
    /* prune() drops overlap 1..5 and stagger 1 without promoted accumulation; unnamed,
     * overlap 4 and 5, and stagger 1 at M > 128 */
    const int overlap_values = x.block ? (named ? 6 : 4) : 1;
    const int stagger_values = x.block && (named || x.m <= 128) ? 2 : 1;
    /* prune() offers wave 1 with block scales, and named with any promoted accumulation */
    const int wave_values = x.scale_areas || (named && x.block) ? 2 : 1;
    static const int tails[] = {1, 2};
    const int tail_values = 2;
    size_t count = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 18; b++)
            for (int c = 0; c < 9; c++)
                for (int consumers = 1; consumers <= 2; consumers++)
                    for (int pingpong = 0; pingpong <= 1; pingpong++)
                        for (int cluster = 1; cluster <= 2; cluster++)
                            for (int epilogue = 0; epilogue <= 2; epilogue++)
                                for (int d = 0; d < split_values; d++)
                                for (int overlap = 0; overlap < overlap_values; overlap++)
                                for (int stagger = 0; stagger < stagger_values; stagger++)
                                for (int wave = 0; wave < wave_values; wave++)
                                for (int t = 0; t < tail_values; t++) {
                                    int bm = block_m[a], bn = block_n[b], st = stages[c];
                                    int split = splits[d], tail = tails[t];
                                    int wg_m = pingpong ? bm : bm / consumers;
                                    int row = bn * x.out_bytes;
                                    int box = row % 128 == 0 ? 128 : row % 64 == 0 ? 64
                                              : row % 32 == 0 ? 32 : 16;
                                    int slots = row > 2 * box ? 2 : 1;
                                    int staging = epilogue == 1   ? consumers * wg_m * row
                                                  : epilogue == 2 ? consumers * wg_m * slots * box
                                                                  : 0;
                                    bool epilogue_ok = epilogue != 2 || (box >= 32 && row >= 2 * box);
                                    int partials = split > 1  ? consumers * wg_m * bn * 4 + 32
                                                   : tail > 1 ? 32
                                                              : 0;
                                    int scales = x.scale_areas ? bm * 4 + 16 : 0;
                                    int64_t tiles = (x.m + bm - 1) / bm * ((x.n + bn - 1) / bn);
                                    bool n_ok = !x.int8 || bn <= 32 || bn % 16 == 0;
                                    bool split_ok =
                                        split == 1 ||
                                        (cluster == 1 && !pingpong && (x.k + 127) / 128 >= 2 * split &&
                                         tiles * split <= 2 * (int64_t)sm_count);
                                    int64_t k_groups = ((x.k + 127) / 128 + (1 << overlap) - 1) >>
                                                       overlap;
                                    int64_t ctas = sm_count - sm_count % 2;
                                    int64_t rest = tiles % ctas;
                                    bool tail_ok = tail == 1 ||
                                                   (cluster == 1 && split == 1 && !pingpong &&
                                                    !stagger && k_groups >= tail && rest != 0 &&
                                                    rest * tail <= ctas &&
                                                    consumers * wg_m * bn * 4 <= st * (bm + bn) * 128);
                                    bool ok = tail_ok &&
                                        (!pingpong || consumers == 2) &&
                                        (wg_m == 64 || wg_m == 128) && n_ok && epilogue_ok &&
                                        (!stagger || (consumers == 2 && !pingpong)) &&
                                        (cluster == 1 || bn % 16 == 0) && split_ok &&
                                        st * (bm + bn) * 128 + staging + partials +
                                                (16 + scales) * st + 16 + 1024 <=
                                            max_smem &&
                                        (!wave || (!overlap && wg_m == 128)) &&
                                        (overlap <= 3 || !x.scale_areas || 128 % bn == 0 ||
                                         pingpong) &&
                                        (overlap ? 3 * (wg_m / 64 * bn / 2) + 32 + 8 * (wg_m / 64) <=
                                                           (consumers == 1 ? 255 : 232)
                                         : wave ? wg_m / 64 * bn / 2 + bn / 2 + 16 <=
                                                      (consumers == 1 ? 255 : 232)
                                                : (x.block ? 2 : 1) * (wg_m / 64 * bn / 2) + 40 +
                                                           (x.block ? 16 : 0) <=
                                                       (consumers == 1 ? 255 : 232));
                                    count += ok ? 2 * 4 * (size_t)specialize_values : 0;
                                }
    return count;
}

/* sm90_gemm's tail: the host splits the last partial wave into `tail` K slices only when
 * it takes one turn of them (rest · tail <= CTAs: at most a tile a cluster) and each slice
 * gets a K group; the tiles before it go whole, a multiple of the grid. */
START_TEST(sm90_tail_splits_only_a_shortened_wave)
{
    static const struct {
        int64_t units, ctas, tail, groups, whole;
    } cases[] = {
        {448, 132, 2, 128, 396}, /* 1024x7168 in 128x128: 3 waves and 52 tiles in halves */
        {224, 132, 2, 128, 224}, /* 92 left: halves take two turns, no shorter */
        {198, 132, 2, 128, 132}, /* 66 left: one turn of halves */
        {199, 132, 2, 128, 199}, {264, 132, 2, 128, 264}, /* 67 left; none left */
        {64, 128, 2, 10, 0},     /* fewer tiles than clusters: every tile split */
        {64, 128, 2, 1, 64},     /* one K group: no slice for rank 1 */
        {448, 132, 1, 128, 448}, /* tail 1 */
        {224, 120, 4, 128, 224}, /* 104 left: more than a tile a cluster */
        {150, 120, 4, 8, 120},   /* 30 left: one turn of quarters */
        {151, 120, 4, 8, 151},   /* 31 left, 30 clusters */
        {150, 120, 4, 3, 150},   /* 3 K groups for 4 slices */
        {3, 2, 2, 4, 2},         /* one cluster: two tiles whole, the third in halves */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(sm90_tail_whole(cases[i].units, cases[i].ctas, cases[i].tail,
                                      cases[i].groups) == cases[i].whole,
                      "case %zu: %lld units, %lld CTAs, tail %lld, %lld groups: %lld, not %lld",
                      i, (long long)cases[i].units, (long long)cases[i].ctas,
                      (long long)cases[i].tail, (long long)cases[i].groups,
                      (long long)sm90_tail_whole(cases[i].units, cases[i].ctas, cases[i].tail,
                                                 cases[i].groups),
                      (long long)cases[i].whole);
}
END_TEST

/* At M <= 96 an unswapped sm90_gemm kernel loads only the rows of A that M's bucket can hold
 * (A_ROWS: 8, 16, 24, 32, 48, 64 or 96, below BLOCK_M); the whole tile at larger M, with swap,
 * with tail > 1, and where the tile is no taller. One kernel serves every M of a bucket. */
START_TEST(sm90_small_m_loads_fewer_rows_of_a)
{
    w8a8_context *ctx = ctx_open();
    const char *tile64 = "block_m=64,block_n=80,stages=12,consumers=2,pingpong=1,epilogue=0";
    /* 128-row cooperative tiles load 48 rows at M = 48, 64 at 49, 96 at 65 and 96, all at 97 */
    const char *tile128 = "block_m=128,block_n=128,stages=6,consumers=2";
    /* swap-AB: A is the weights, every row of them is loaded */
    const char *swap = "block_m=128,block_n=16,stages=8,consumers=2,pingpong=1,swap=1";
    const struct {
        int64_t m, n, k;
        const char *config;
        const char *rows; /* the define, or NULL for none */
    } cases[] = {
        {1, 10240, 8192, tile64, ",A_ROWS=8,"},    {8, 10240, 8192, tile64, ",A_ROWS=8,"},
        {9, 10240, 8192, tile64, ",A_ROWS=16,"},   {16, 10240, 8192, tile64, ",A_ROWS=16,"},
        {17, 10240, 8192, tile64, ",A_ROWS=24,"},  {25, 10240, 8192, tile64, ",A_ROWS=32,"},
        {33, 10240, 8192, tile64, ",A_ROWS=48,"},  {48, 10240, 8192, tile64, ",A_ROWS=48,"},
        {49, 10240, 8192, tile64, NULL},           {96, 10240, 8192, tile64, NULL},
        {4096, 10240, 8192, tile64, NULL},         {16, 10240, 8192, swap, NULL},
        {48, 4096, 4096, tile128, ",A_ROWS=48,"},  {49, 4096, 4096, tile128, ",A_ROWS=64,"},
        {65, 4096, 4096, tile128, ",A_ROWS=96,"},  {96, 4096, 4096, tile128, ",A_ROWS=96,"},
        {97, 4096, 4096, tile128, NULL},
        /* tail's partial sums go into the ring: whole tiles of A */
        {48, 4096, 4096, "block_m=128,block_n=128,stages=6,consumers=2,tail=2", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        w8a8_problem p;
        w8a8_problem_init(&p, cases[i].m, cases[i].n, cases[i].k, W8A8_E4M3, W8A8_BF16);
        char d[512];
        ck_assert_int_eq(
            gemm_family_defines(&gemm_family_sm90, ctx, &p, cases[i].config, d, sizeof d),
            W8A8_OK);
        if (cases[i].rows)
            ck_assert_msg(strstr(d, cases[i].rows), "M %lld, %s: %s", (long long)cases[i].m,
                          cases[i].config, d);
        else
            ck_assert_msg(!strstr(d, "A_ROWS"), "M %lld, %s: %s", (long long)cases[i].m,
                          cases[i].config, d);
    }
    w8a8_context_close(ctx);
}
END_TEST

/* sm90_gemm's raster and group order the tiles at launch: configs that differ only there
 * compile to one kernel (the same defines), so a tuning run's compile queue holds far fewer
 * kernels than it has candidates; the canonical config keeps both. */
START_TEST(sm90_tile_order_is_a_launch_argument)
{
    w8a8_context *ctx = ctx_open();
    w8a8_problem p;
    w8a8_problem_init(&p, 512, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    char a[512], b[512], c[512];
    const char *base = "block_m=128,block_n=128,stages=6,consumers=2,pingpong=0,";
    char config[256];
    snprintf(config, sizeof config, "%sraster=0,group=8,cluster=1,epilogue=0,split=1", base);
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, config, a, sizeof a), W8A8_OK);
    snprintf(config, sizeof config, "%sraster=1,group=16,cluster=1,epilogue=0,split=1", base);
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, config, b, sizeof b), W8A8_OK);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_null(strstr(a, "raster"));
    ck_assert_ptr_null(strstr(a, "group"));
    snprintf(config, sizeof config, "%sraster=0,group=8,cluster=1,epilogue=1,split=1", base);
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, config, c, sizeof c), W8A8_OK);
    ck_assert_str_ne(a, c);
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, "raster=2x", c, sizeof c),
                     W8A8_INVALID);
    /* specialize=1 compiles N and K in: a cubin per shape */
    snprintf(config, sizeof config, "%sraster=0,group=8,cluster=1,epilogue=0,specialize=1", base);
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, config, c, sizeof c), W8A8_OK);
    ck_assert_ptr_nonnull(strstr(c, ",N=4096,K=4096,"));
    w8a8_problem wider = p;
    wider.n = 6144;
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &wider, config, b, sizeof b),
                     W8A8_OK);
    ck_assert_ptr_nonnull(strstr(b, ",N=6144,K=4096,"));
    /* what the tuner's compile queue gets for one key: its 256 best-ranked candidates */
    space *s = NULL;
    space_device dev;
    space_enumeration e;
    ck_assert(space_device_nominal(ctx, "sm_90a", &dev) == W8A8_OK);
    ck_assert(space_load(ctx, "sm90_gemm", &s) == W8A8_OK);
    ck_assert(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK);
    size_t take = e.count < 256 ? e.count : 256, distinct = 0;
    static char seen[256][512];
    for (size_t i = 0; i < take; i++) {
        ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, e.candidates[i].config,
                                             seen[distinct], sizeof seen[0]),
                         W8A8_OK);
        bool again = false;
        for (size_t j = 0; j < distinct && !again; j++)
            again = strcmp(seen[j], seen[distinct]) == 0;
        distinct += !again;
    }
    printf("sm90_gemm, 512x4096x4096: %zu best-ranked candidates are %zu kernels\n", take, distinct);
    ck_assert_uint_lt(distinct, take);
    /* trigger: a launch argument the tuner tries on its finalists (the space's variants) */
    ck_assert_int_eq(space_variant_count(s), 1);
    ck_assert_str_eq(space_variant_at(s, 0)->name, "trigger");
    ck_assert_int_eq(space_variant_at(s, 0)->count, 1);
    ck_assert_int_eq(space_variant_at(s, 0)->values[0], 1);
    ck_assert_ptr_null(space_variant_at(s, 1));
    char triggered[300];
    snprintf(triggered, sizeof triggered, "%s,trigger=1", e.candidates[0].config);
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, e.candidates[0].config, a,
                                         sizeof a), W8A8_OK);
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, triggered, b, sizeof b),
                     W8A8_OK);
    ck_assert_str_eq(a, b);
    space_enumeration_free(&e);
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

/* Every sm90_gemm row of the shipped caches is a config the family accepts for its problem,
 * shared memory against the sm_90 limit included: a kernel change that outgrows a shipped row
 * would otherwise drop its key to the space default at run time (as the scale areas of block
 * scales did to three rows of cache/h200-decode.sql). */
typedef struct shipped_rows {
    w8a8_context *ctx;
    size_t rows;
} shipped_rows;

static int shipped_row_visit(void *user, const w8a8_cache_entry *entry)
{
    shipped_rows *r = user;
    if (strcmp(entry->family, "sm90_gemm") != 0)
        return 0;
    char defines[1024];
    w8a8_status st = gemm_family_defines(&gemm_family_sm90, r->ctx, &entry->problem,
                                         entry->config, defines, sizeof defines);
    ck_assert_msg(st == W8A8_OK, "%s: N=%lld K=%lld M bucket %lld %s: %s", entry->source,
                  (long long)entry->problem.n, (long long)entry->problem.k,
                  (long long)entry->problem.m, entry->config, w8a8_errmsg(r->ctx));
    r->rows++;
    return 0;
}

START_TEST(shipped_sm90_rows_are_valid_configs)
{
    char dir[512];
    ck_assert_int_eq(setenv("W8A8_CACHE_PATH", W8A8_SOURCE_DIR "/cache", 1), 0);
    w8a8_context *ctx = test_ctx_open_empty_cache(dir, sizeof dir);
    shipped_rows r = {ctx, 0};
    w8a8_cache_filter filter = {0};
    filter.arch = "sm_90";
    w8a8_status st = w8a8_cache_list(ctx, &filter, shipped_row_visit, &r);
    unsetenv("W8A8_CACHE_PATH");
    ck_assert_msg(st == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_uint_gt(r.rows, 300); /* the shipped files hold hundreds of sm90_gemm rows */
    /* and the rule bites: 7 stages of 128×128 with block scales no longer fit */
    w8a8_problem p;
    w8a8_problem_init(&p, 512, 7168, 2048, W8A8_E4M3, W8A8_BF16);
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 128, 1, 0};
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 128, 0, 0};
    char defines[1024];
    const char *seven = "block_m=128,block_n=128,stages=7,consumers=2";
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, seven, defines,
                                         sizeof defines),
                     W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "shared memory"));
    p.a_scale = p.b_scale = (w8a8_scale_layout){W8A8_SCALE_TENSOR, 0, 0, 0, 0};
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm90, ctx, &p, seven, defines,
                                         sizeof defines),
                     W8A8_OK);
    w8a8_context_close(ctx);
}
END_TEST

/* An enumeration comes in rank order and the space's default for p is one of its configs. */
static void assert_ranked_with_default(w8a8_context *ctx, space *s, const w8a8_problem *p,
                                       const space_device *dev, const space_enumeration *e)
{
    for (size_t i = 1; i < e->count; i++)
        ck_assert(e->candidates[i - 1].rank <= e->candidates[i].rank);
    char config[W8A8_SPACE_CONFIG_BYTES];
    ck_assert_msg(space_default(ctx, s, p, dev, config, sizeof config) == W8A8_OK, "M %lld: %s",
                  (long long)p->m, w8a8_errmsg(ctx));
    bool listed = false;
    for (size_t i = 0; i < e->count; i++)
        listed |= strcmp(e->candidates[i].config, config) == 0;
    ck_assert_msg(listed, "default %s is not a valid candidate", config);
}

/* scripts/sm90_swap.lua: sm90_gemm's template with swap=1 in every config, at M <= 64 only,
 * with block scales of A 1×128 and B 128×128 only, never an FP8 zero point; token tiles no
 * wider than the narrowest listed one that holds M; every config it lists is one the
 * family's host code accepts (no valid() rule weaker than sm90_config_check); its default
 * among its candidates. */
START_TEST(sm90_swap_space)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    space_enumeration e;
    w8a8_problem p;
    bool applies = false;
    ck_assert(space_device_nominal(ctx, "sm_90a", &dev) == W8A8_OK);
    ck_assert_msg(space_load(ctx, "sm90_swap", &s) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_str_eq(space_arch(s), "sm_90a");
    ck_assert_str_eq(space_template(s), "sm90_gemm");
    static const struct {
        int64_t m;
        w8a8_dtype type;
        int block, azp; /* block 2: B groups of 64 rows, which no tensor-core family runs */
        bool applies;
    } cases[] = {
        {64, W8A8_E4M3, 0, 0, true},   {65, W8A8_E4M3, 0, 0, false}, {1, W8A8_E5M2, 0, 0, true},
        {16, W8A8_E4M3, 1, 0, true},   {16, W8A8_E4M3, 2, 0, false}, {16, W8A8_INT8, 0, 1, true},
        {16, W8A8_E4M3, 0, 1, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        w8a8_problem_init(&p, cases[i].m, 4096, 4096, cases[i].type, W8A8_BF16);
        if (cases[i].block)
            pgen_block_scales(&p, 0, 0, 0);
        if (cases[i].block == 2)
            p.b_scale.group_rows = 64;
        p.azp = cases[i].azp ? W8A8_AZP_TOKEN : W8A8_AZP_NONE;
        ck_assert(space_applies(ctx, s, &p, &dev, &applies) == W8A8_OK);
        ck_assert_msg(applies == cases[i].applies, "case %zu", i);
    }
    static const int64_t ms[] = {1, 16, 33, 16};
    static const int widest[] = {8, 16, 48, 16}; /* the narrowest listed token tile holding M */
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
        w8a8_problem_init(&p, ms[mi], 4096, 14336, W8A8_E4M3, W8A8_BF16);
        p.a_scale.kind = W8A8_SCALE_ROW;
        if (mi == 3)
            pgen_block_scales(&p, 1, 0, 0); /* the last: block scales */
        ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
        ck_assert_uint_gt(e.count, 50);
        for (size_t i = 0; i < e.count; i++) {
            const char *c = e.candidates[i].config;
            ck_assert_msg(strstr(c, "swap=1") != NULL, "%s", c);
            int block_n = atoi(strstr(c, "block_n=") + 8);
            ck_assert_msg(block_n <= widest[mi], "M %lld: %s", (long long)ms[mi], c);
            char defines[1024];
            ck_assert_msg(gemm_family_defines(&gemm_family_sm90, ctx, &p, c, defines,
                                              sizeof defines) == W8A8_OK,
                          "%s: %s", c, w8a8_errmsg(ctx));
            ck_assert_ptr_nonnull(strstr(defines, ",swap=1"));
        }
        assert_ranked_with_default(ctx, s, &p, &dev, &e);
        space_enumeration_free(&e);
    }
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

/* The configs the decode GPU suite runs (tests/decode_configs.h) pass the family's host
 * check on its odd shapes, the span-1 ones with block scales too: a config the family
 * refuses fails here, without a GPU, not as four failures on the device. */
START_TEST(decode_suite_configs)
{
    w8a8_context *ctx = ctx_open();
    static const int64_t shapes[][3] = {{1, 1, 16}, {33, 517, 1040}, {31, 200, 4112}};
    char defines[1024];
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (int block = 0; block < 2; block++) {
            w8a8_problem p;
            w8a8_problem_init(&p, shapes[si][0], shapes[si][1], shapes[si][2], W8A8_E4M3,
                              W8A8_BF16);
            p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_ROW;
            if (block)
                pgen_block_scales(&p, 0, 0, 0);
            int count = block ? DECODE_SPAN1_COUNT : DECODE_CONFIG_COUNT;
            for (int i = 0; i < count; i++)
                ck_assert_msg(gemm_family_defines(&gemm_family_sm80_decode, ctx, &p,
                                                  decode_configs[i], defines,
                                                  sizeof defines) == W8A8_OK,
                              "%s (block %d): %s", decode_configs[i], block, w8a8_errmsg(ctx));
        }
    w8a8_context_close(ctx);
}
END_TEST

/* sm80_decode's spans: the space offers span > 1 only without block scales and where two
 * CTAs of 8·token_tiles / span tokens hold the bucket, and every config it offers is one the
 * family's host check accepts; the host refuses the spans the space leaves out. */
START_TEST(sm80_decode_span_configs)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    space_enumeration e;
    w8a8_problem p;
    ck_assert(space_device_nominal(ctx, "sm_90a", &dev) == W8A8_OK);
    ck_assert_msg(space_load(ctx, "sm80_decode", &s) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    static const int64_t ms[] = {1, 2, 3, 4, 8, 16, 32, 64};
    static const int widest[] = {8, 8, 8, 8, 8, 4, 2, 1}; /* at most two CTAs along M */
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
        w8a8_problem_init(&p, ms[mi], 57344, 8192, W8A8_E4M3, W8A8_BF16);
        ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
        int most = 1;
        for (size_t i = 0; i < e.count; i++) {
            const char *c = e.candidates[i].config;
            const char *sp = strstr(c, "span=");
            ck_assert_ptr_nonnull(sp);
            int span = atoi(sp + 5);
            most = span > most ? span : most;
            char defines[1024];
            ck_assert_msg(gemm_family_defines(&gemm_family_sm80_decode, ctx, &p, c, defines,
                                              sizeof defines) == W8A8_OK,
                          "%s: %s", c, w8a8_errmsg(ctx));
        }
        ck_assert_msg(most == widest[mi], "M %lld: widest span %d", (long long)ms[mi], most);
        space_enumeration_free(&e);
    }
    /* block scales: span 1 only, in the space and on the host */
    w8a8_problem_init(&p, 1, 7168, 2048, W8A8_E4M3, W8A8_BF16);
    pgen_block_scales(&p, 0, 0, 0);
    ck_assert(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK);
    ck_assert_uint_gt(e.count, 10);
    for (size_t i = 0; i < e.count; i++)
        ck_assert_ptr_nonnull(strstr(e.candidates[i].config, "span=1"));
    space_enumeration_free(&e);
    char defines[1024];
    static const char *const refused[][2] = {
        {"warps=4,row_tiles=1,token_tiles=1,unroll=1,span=2", "block scales"},
        {"warps=4,row_tiles=1,token_tiles=1,unroll=1,span=3", "span 3"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        ck_assert_int_eq(gemm_family_defines(&gemm_family_sm80_decode, ctx, &p, refused[i][0],
                                             defines, sizeof defines),
                         W8A8_INVALID);
        ck_assert_msg(strstr(w8a8_errmsg(ctx), refused[i][1]), "%s", w8a8_errmsg(ctx));
    }
    /* 2-row CTAs: N past 65535 grid rows is refused by both */
    w8a8_problem_init(&p, 1, 131072 + 16, 512, W8A8_E4M3, W8A8_BF16);
    const char *two_rows = "warps=4,row_tiles=1,token_tiles=1,unroll=1,span=8";
    ck_assert_int_eq(gemm_family_defines(&gemm_family_sm80_decode, ctx, &p, two_rows, defines,
                                         sizeof defines),
                     W8A8_INVALID);
    ck_assert_ptr_nonnull(strstr(w8a8_errmsg(ctx), "grid rows"));
    ck_assert(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK);
    for (size_t i = 0; i < e.count; i++)
        ck_assert_msg(!strstr(e.candidates[i].config, "row_tiles=1,token_tiles=1,unroll=1,span=8"),
                      "%s", e.candidates[i].config);
    space_enumeration_free(&e);
    space_free(s);
    w8a8_context_close(ctx);
}
END_TEST

START_TEST(sm90_space_prunes_to_exact_counts)
{
    w8a8_context *ctx = ctx_open();
    space *s = NULL;
    space_device dev;
    space_enumeration e;
    w8a8_problem p;
    bool applies = false;
    ck_assert(space_device_nominal(ctx, "sm_90a", &dev) == W8A8_OK);
    ck_assert_msg(space_load(ctx, "sm90_gemm", &s) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_str_eq(space_arch(s), "sm_90a");
    ck_assert_uint_eq(space_config_total(s), 26873856); /* 3·18·9·2·2·2·4·2·3·3·2·6·2·2·2 */
    for (int int8 = 0; int8 <= 1; int8++) {
        w8a8_problem_init(&p, 4096, 28672, 4096, int8 ? W8A8_INT8 : W8A8_E4M3, W8A8_BF16);
        ck_assert(space_applies(ctx, s, &p, &dev, &applies) == W8A8_OK && applies);
        ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
        /* every listed block_n is also a legal INT8 N, so INT8 keeps the FP8 count; bf16 out */
        ck_assert_uint_eq(sm90_expected_valid(
                              (sm90_expect){4096, 28672, 4096, int8, false, 2, false},
                              dev.max_smem_optin, dev.sm_count, false),
                          52864);
        /* unnamed at M > 64, prune() drops split 2 and 4 (and overlap 1, stagger 1, wave 1: no
         * block scales) before any valid() call */
        ck_assert_uint_eq(e.total, 26873856);
        ck_assert_uint_eq(e.pruned, 26873856 - 373248);
        ck_assert_uint_eq(e.count, 52864);
        ck_assert_uint_eq(e.invalid, 26873856 - 52864);
        assert_ranked_with_default(ctx, s, &p, &dev, &e);
        space_enumeration_free(&e);
    }
    /* FP8 block scales of A 1×128 and B 128×128: doubled accumulators prune more */
    const int smem_90a = dev.max_smem_optin, sms_90a = dev.sm_count;
    size_t block_valid =
        sm90_expected_valid((sm90_expect){4096, 7168, 16384, false, true, 2, true}, smem_90a,
                            sms_90a, false);
    /* unnamed at M > 128: overlap 0..3, wave 0, 1, no stagger 1 */
    ck_assert_uint_eq(block_valid, 141552);
    /* named: both, and overlap 4, 5 (split 2, 4 stay invalid: the tiles fill the GPU) */
    const size_t block_named =
        sm90_expected_valid((sm90_expect){4096, 7168, 16384, false, true, 2, true}, smem_90a,
                            sms_90a, true);
    ck_assert_uint_eq(block_named, 214976);
    w8a8_problem_init(&p, 4096, 7168, 16384, W8A8_E4M3, W8A8_BF16);
    p.a_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 1, 128, 1, 0};
    p.b_scale = (w8a8_scale_layout){W8A8_SCALE_BLOCK, 128, 128, 0, 0};
    ck_assert(space_applies(ctx, s, &p, &dev, &applies) == W8A8_OK && applies);
    ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_uint_eq(e.count, block_valid);
    space_enumeration_free(&e);
    dev.named = true;
    ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_uint_eq(e.count, block_named);
    space_enumeration_free(&e);
    dev.named = false;
    /* promoted per-tensor FP8 (accum promoted) runs the same main loop without scales in the
     * ring: the register rules of block scales, not their shared memory; with INT8 the flag
     * changes nothing (its count stays the fast one) */
    w8a8_problem_init(&p, 4096, 7168, 16384, W8A8_E4M3, W8A8_BF16);
    p.accum = W8A8_ACCUM_PROMOTED;
    ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    const size_t promoted_valid =
        sm90_expected_valid((sm90_expect){4096, 7168, 16384, false, true, 2, false}, smem_90a,
                            sms_90a, false);
    ck_assert_uint_eq(promoted_valid, 127232); /* overlap 0..3; wave 1 only when named */
    ck_assert_uint_eq(e.count, promoted_valid);
    space_enumeration_free(&e);
    p.a_type = p.b_type = W8A8_INT8;
    ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    ck_assert_uint_eq(e.count,
                      sm90_expected_valid((sm90_expect){4096, 7168, 16384, true, false, 2, false},
                                          smem_90a, sms_90a, false));
    space_enumeration_free(&e);
    /* split-K candidates: at M = 256 only when the space is named, at M = 32 and 128 in a
     * plain tune too (where it won on an H100 and an H200), never with cluster 2 or ping-pong */
    w8a8_problem_init(&p, 256, 4096, 4096, W8A8_E4M3, W8A8_BF16);
    ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
    for (size_t i = 0; i < e.count; i++)
        ck_assert_msg(strstr(e.candidates[i].config, "split=1"), "%s", e.candidates[i].config);
    space_enumeration_free(&e);
    for (int pass = 0; pass < 3; pass++) {
        dev.named = pass == 0;
        p.m = pass == 0 ? 256 : pass == 1 ? 128 : 32;
        ck_assert_msg(space_enumerate(ctx, s, &p, &dev, &e) == W8A8_OK, "%s", w8a8_errmsg(ctx));
        size_t splits = 0;
        for (size_t i = 0; i < e.count; i++) {
            const char *c = e.candidates[i].config;
            if (strstr(c, "split=1"))
                continue;
            splits++;
            ck_assert_msg(strstr(c, "cluster=1") && strstr(c, "pingpong=0"), "%s", c);
        }
        ck_assert_uint_gt(splits, 0);
        space_enumeration_free(&e);
    }
    dev.named = false;
    /* not on other parts, not with other block shapes */
    w8a8_problem_init(&p, 4096, 28672, 4096, W8A8_E4M3, W8A8_BF16);
    p.a_scale.kind = p.b_scale.kind = W8A8_SCALE_BLOCK;
    ck_assert(space_applies(ctx, s, &p, &dev, &applies) == W8A8_OK && !applies);
    w8a8_problem_init(&p, 4096, 28672, 4096, W8A8_E4M3, W8A8_BF16);
    ck_assert(space_device_nominal(ctx, "sm_89", &dev) == W8A8_OK);
    ck_assert(space_applies(ctx, s, &p, &dev, &applies) == W8A8_OK && !applies);
    space_free(s);

    w8a8_space_plan plan;
    ck_assert(w8a8_space_compile_plan(ctx, "sm90_gemm", "sm_90a", 8, &plan) == W8A8_OK);
    ck_assert_int_eq(plan.targets_arch, 1);
    ck_assert_uint_eq(plan.problems, 9); /* 5 + 2 promoted + 2 block-scaled */
    ck_assert_uint_eq(plan.not_applied, 0);
    /* the 8 best of each problem, then the best config for every parameter value they miss:
     * every value of every parameter is compiled for every problem where one is valid */
    ck_assert_uint_gt(plan.count, 9 * 8);
    ck_assert(space_load(ctx, "sm90_gemm", &s) == W8A8_OK);
    for (size_t first = 0, next; first < plan.count; first = next) {
        next = first + 1;
        while (next < plan.count && memcmp(&plan.items[next].problem, &plan.items[first].problem,
                                           sizeof plan.items[first].problem) == 0)
            next++;
        ck_assert_uint_ge(next - first, 8);
        if (plan.items[first].problem.a_scale.kind == W8A8_SCALE_BLOCK ||
            plan.items[first].problem.accum == W8A8_ACCUM_PROMOTED)
            continue; /* doubled accumulators: the widest block_n fit nowhere */
        for (int pi = 0; pi < space_param_count(s); pi++) {
            const space_param *param = space_param_at(s, pi);
            if (strcmp(param->name, "split") == 0 || strcmp(param->name, "overlap") == 0 ||
                strcmp(param->name, "stagger") == 0 || strcmp(param->name, "wave") == 0)
                continue; /* split: valid only where tiles leave SMs idle; overlap, stagger,
                           * wave: only with block scales; all checked below */
            for (int v = 0; v < param->count; v++) {
                char item[64];
                snprintf(item, sizeof item, "%s=%lld,", param->name, (long long)param->values[v]);
                bool seen = false;
                for (size_t i = first; i < next && !seen; i++) {
                    char text[W8A8_SPACE_CONFIG_BYTES + 2];
                    snprintf(text, sizeof text, ",%s,", plan.items[i].config);
                    char needle[66];
                    snprintf(needle, sizeof needle, ",%s", item);
                    seen = strstr(text, needle) != NULL;
                }
                ck_assert_msg(seen, "no compiled config has %s", item);
            }
        }
    }
    /* split 2 and 4 are compiled, on the small-M compile problems */
    for (int split = 2; split <= 4; split += 2) {
        char needle[16];
        snprintf(needle, sizeof needle, "split=%d", split);
        bool seen = false;
        for (size_t i = 0; i < plan.count && !seen; i++)
            seen = strstr(plan.items[i].config, needle) != NULL;
        ck_assert_msg(seen, "no compiled config has %s", needle);
    }
    bool overlapped = false, staggered = false, waved = false; /* on the promoted ones */
    for (size_t i = 0; i < plan.count; i++) {
        bool block = plan.items[i].problem.a_scale.kind == W8A8_SCALE_BLOCK ||
                     plan.items[i].problem.accum == W8A8_ACCUM_PROMOTED;
        overlapped |= block && strstr(plan.items[i].config, "overlap=1") != NULL;
        staggered |= block && strstr(plan.items[i].config, "stagger=1") != NULL;
        waved |= block && strstr(plan.items[i].config, "wave=1") != NULL;
    }
    ck_assert_msg(overlapped && staggered && waved,
                  "no compiled config has overlap=1, stagger=1 or wave=1");
    space_free(s);
    /* the compile problems: FP8 bf16, fp16, bf16 out; promoted FP8 fp16, bf16 out (counted as
     * block-scaled: the same main loop); INT8 fp32, bf16 out; block-scaled bf16, fp32 out (the
     * staging of epilogue 1 depends on the out dtype) */
    static const sm90_expect compiled[] = {
        {4096, 28672, 4096, false, false, 2, false}, {16, 4096, 4096, false, false, 2, false},
        {128, 8192, 8192, false, false, 2, false},   {1024, 4096, 14336, false, true, 2, false},
        {48, 8192, 8192, false, true, 2, false},     {512, 6144, 4096, true, false, 4, false},
        {2048, 10240, 8192, true, false, 2, false},  {4096, 7168, 16384, false, true, 2, true},
        {64, 2112, 7168, false, true, 4, true},
    };
    size_t expected = 0;
    for (size_t i = 0; i < sizeof compiled / sizeof compiled[0]; i++)
        expected += sm90_expected_valid(compiled[i], smem_90a, sms_90a, true); /* plans: named */
    ck_assert_uint_eq(plan.capped, expected - plan.count);
    w8a8_space_plan_free(&plan);
    ck_assert(w8a8_space_compile_plan(ctx, "sm90_gemm", "sm_90", 8, &plan) == W8A8_OK);
    ck_assert_int_eq(plan.targets_arch, 0); /* plain sm_90 has no wgmma */
    ck_assert_uint_eq(plan.count, 0);
    w8a8_space_plan_free(&plan);
    w8a8_context_close(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("space");
    TCase *hostile = tcase_create("hostile");
    tcase_set_timeout(hostile, 60);
    tcase_add_test(hostile, endless_loop_hits_the_instruction_budget);
    tcase_add_test(hostile, budget_error_cannot_be_swallowed_by_pcall);
    tcase_add_test(hostile, memory_bombs_hit_the_cap);
    tcase_add_test(hostile, io_and_os_are_absent);
    tcase_add_test(hostile, loaders_and_dump_are_absent);
    tcase_add_test(hostile, gc_finalizers_are_refused);
    tcase_add_test(hostile, work_out_of_the_budget_s_sight_is_bounded);
    tcase_add_test(hostile, environment_holds_only_the_pure_libraries);
    tcase_add_test(hostile, bytecode_is_rejected);
    tcase_add_test(hostile, errors_in_script_functions_name_their_line);
    tcase_add_test(hostile, malformed_spaces_name_file_and_line);
    tcase_add_test(hostile, long_paths_are_reported_whole);
    suite_add_tcase(s, hostile);
    TCase *enumeration = tcase_create("enumeration");
    tcase_set_timeout(enumeration, 60);
    tcase_add_test(enumeration, enumeration_counts_and_order_are_exact);
    tcase_add_test(enumeration, default_applies_and_compile_problems);
    tcase_add_test(enumeration, spaces_get_the_gemm_library);
    tcase_add_test(enumeration, compile_plan_covers_every_applying_problem);
    tcase_add_test(enumeration, enumeration_is_fast);
    tcase_add_test(enumeration, prune_drops_values_before_the_walk);
    tcase_add_test(enumeration, scripts_that_change_the_config_table);
    tcase_add_test(enumeration, the_walk_skips_what_valid_rejected_for_what_it_read);
    tcase_add_test(enumeration, fits_reuses_valid_answers_across_keys);
    tcase_add_test(enumeration, fits_memo_under_threads);
    suite_add_tcase(s, enumeration);
    TCase *shipped = tcase_create("shipped");
    tcase_set_timeout(shipped, 300); /* ~60 s alone on 2 cores: the block-scaled sm90 space is 4x larger when named */
    tcase_add_test(shipped, reference_space);
    tcase_add_test(shipped, reference_compile_plan_covers_every_trait);
    tcase_add_test(shipped, sm90_space_prunes_to_exact_counts);
    tcase_add_test(shipped, sm90_swap_space);
    tcase_add_test(shipped, sm80_decode_span_configs);
    tcase_add_test(shipped, decode_suite_configs);
    tcase_add_test(shipped, shipped_sm90_rows_are_valid_configs);
    tcase_add_test(shipped, sm90_tile_order_is_a_launch_argument);
    tcase_add_test(shipped, sm90_small_m_loads_fewer_rows_of_a);
    tcase_add_test(shipped, sm90_tail_splits_only_a_shortened_wave);
    suite_add_tcase(s, shipped);
    return test_run_suite(s);
}
