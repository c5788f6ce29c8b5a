/* Tuning spaces: Lua scripts (scripts/<name>.lua, or a user's file) that say which configs of
 * a template are worth compiling for a problem on a device. Run in a sandbox (sandbox.h);
 * loaded by space_load.c, evaluated by space.c, tables in space_tables.c, public API and
 * compile plans in space_api.c. Scripts have no string patterns (string.find plain only).
 *
 * A space is a chunk that returns a table:
 *   name     = "sm90_gemm",           -- the space's name (defaults to the file's stem)
 *   template = "sm90_gemm",           -- templates/<template>.cuh; also the gemm family name
 *   arch     = "sm_90a",              -- NVRTC target of its kernels
 *   applies  = function(problem, device) return bool end,      -- optional, default true
 *   params   = { block_m = {64, 128}, block_n = {...}, ... },  -- integer lists
 *   order    = { "block_m", "block_n", ... },                  -- optional enumeration order
 *   valid    = function(config, problem, device) return ok [, reason] end,   -- optional
 *   prune    = function(name, value, problem, device) return bool end,  -- optional: false
 *              drops that value of that parameter before the cross product is walked, one
 *              call instead of a valid() call for every config holding it (valid() must
 *              reject those configs too: default() and hand-written configs meet only it)
 *   fits     = function(config, problem, device) return ok [, reason] end,  -- optional:
 *              the checks that read M, N or K. A space with fits() promises that valid() reads
 *              them only through prune(): an enumeration then asks valid() once per problem
 *              class, device and prune() outcome (its answers are kept with the loaded space)
 *              and fits() per key on what valid() accepted; default() meets both
 *   rank     = function(config, problem, device) return number end,  -- lower = try first
 *   default  = function(problem, device) return config end,  -- the dispatcher's cache-miss pick
 *              (nil: no default for this problem; the next family's default is tried)
 *   variants = { trigger = {1}, ... },  -- optional: parameters of the template that only
 *              change how its kernel is launched, outside the cross product (each would double
 *              it). The tuner times each finalist of a key's quick pass again with every one
 *              of these name=value items appended to its config, and the final pass ranks
 *              those beside the finalists (tune.c variants_pass). Names must not be params.
 *   compile_problems = function(device) return {problem, ...} end, -- optional: what
 *              `w8a8 compile --all` builds (defaults to one per-tensor e4m3 bf16 problem)
 * problem = { m, n, k, a_type = "e4m3", b_type, out_type, bias_type ("none"), a_scale =
 *            "tensor"|"row"|"block", b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k,
 *            a_k_major (bool), azp = "none"|"tensor"|"token" }
 * device  = { arch = "sm_90", name, cc_major, cc_minor, sm_count, max_smem (opt-in bytes per
 *            block), l2_bytes, regs_per_sm = 65536, named (bool: the caller named this space,
 *            as `w8a8 tune --space` does) }
 * config  = { param = integer, ... } with every name of params.
 * One enumeration hands every prune(), valid(), fits() and rank() call the same problem and
 * device tables (built once: the calls run hundreds of thousands of times per key), and its
 * valid(), fits() and rank() calls one config table whose fields are rewritten for each
 * config: read them, copy what you keep.
 */
#ifndef W8A8_SPACE_H
#define W8A8_SPACE_H

#include "internal.h"

#define W8A8_SPACE_MAX_PARAMS 24
#define W8A8_SPACE_MAX_VALUES 32
#define W8A8_SPACE_MAX_VARIANTS 4

typedef struct space_device {
    char arch[16]; /* "sm_90" (the device's, without the a) */
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    int max_smem_optin;
    uint64_t l2_bytes;
    /* the space was named by the caller (w8a8 tune --space): a portable family may then
     * apply where a faster family of its own arch normally takes the part */
    bool named;
} space_device;

/* A loaded space: its metadata plus its source, so every evaluation can start a fresh state. */
typedef struct space space;

typedef struct space_param {
    char name[32];
    int count;
    int64_t values[W8A8_SPACE_MAX_VALUES];
} space_param;

/* One candidate: canonical config string ("a=1,b=2" in params order) and its rank. */
typedef struct space_candidate {
    char config[256];
    double rank;
} space_candidate;

typedef struct space_enumeration {
    space_candidate *candidates; /* valid ones, sorted by rank; malloc'ed */
    size_t count;
    size_t total;   /* the full cross product */
    size_t invalid; /* rejected by valid() or prune() */
    size_t pruned;  /* of those, dropped by prune() without a valid() call */
} space_enumeration;

/* Loads a space by name (embedded scripts/<name>.lua, or from W8A8_TEMPLATE_DIR) or, when
 * `name_or_path` contains '/' or ends in ".lua", from that file. Runs the chunk once in the
 * sandbox to read its table. W8A8_SCRIPT_ERROR carries file:line. */
w8a8_status space_load(w8a8_context *ctx, const char *name_or_path, space **out);
void space_free(space *s);

const char *space_name(const space *s);
const char *space_template(const space *s);
const char *space_arch(const space *s);
const char *space_file(const space *s); /* for messages */
int space_param_count(const space *s);
const space_param *space_param_at(const space *s, int i);
/* The space's `variants` (see above): each a name and the values to try, in name order. */
int space_variant_count(const space *s);
const space_param *space_variant_at(const space *s, int i);

/* Describes the context's device, or a nominal device of `arch` ("sm_90a" → a 132-SM
 * H100-class part) when compiling without a GPU. */
w8a8_status space_device_from_ctx(w8a8_context *ctx, space_device *dev);
w8a8_status space_device_nominal(w8a8_context *ctx, const char *arch, space_device *dev);

w8a8_status space_applies(w8a8_context *ctx, const space *s, const w8a8_problem *problem,
                          const space_device *dev, bool *applies);
/* Cross product → valid() → rank(); candidates sorted by rank (stable). */
w8a8_status space_enumerate(w8a8_context *ctx, const space *s, const w8a8_problem *problem,
                            const space_device *dev, space_enumeration *out);
void space_enumeration_free(space_enumeration *e);
/* The space's default config for a problem (canonical string); W8A8_NOT_FOUND when
 * default() returns nil for it. */
w8a8_status space_default(w8a8_context *ctx, const space *s, const w8a8_problem *problem,
                          const space_device *dev, char *config, size_t size);
/* The problems `w8a8 compile --all` builds for this space (malloc'ed array). */
w8a8_status space_compile_problems(w8a8_context *ctx, const space *s, const space_device *dev,
                                   w8a8_problem **problems, size_t *count);

/* Names of the embedded spaces (NULL-terminated, static). */
const char *const *space_builtin_names(void);

/* ---- additions (space_load.c, space_api.c) ---- */

/* The problem compile_problems defaults to when a space has none (per-tensor e4m3 → bf16). */
#define W8A8_SPACE_DEFAULT_M 256
#define W8A8_SPACE_DEFAULT_N 4096
#define W8A8_SPACE_DEFAULT_K 4096

/* How many (class, device, prune() outcome) answers of valid() a space with fits() keeps
 * (0 without fits()); for tests. */
size_t space_memo_entries(const space *s);
/* Size of the cross product of the space's params (1 for a space without params). */
size_t space_config_total(const space *s);
/* Whether kernels of the space can be built for NVRTC target `target`: a space whose arch
 * ends in 'a' ("sm_90a") only for that exact target; any other space ("sm_80") for every
 * target of the same or a newer compute capability. */
bool space_targets_arch(const space *s, const char *target);

/* One kernel `w8a8 compile` builds: a problem class and a config of the space. */
typedef struct space_compile_item {
    w8a8_problem problem;
    char config[256];
    double rank;
} space_compile_item;

typedef struct space_compile_plan {
    space_compile_item *items; /* malloc'ed; per problem in compile_problems order, by rank */
    size_t count;
    size_t problems;    /* compile_problems(device) returned this many */
    size_t not_applied; /* of which applies() rejected this many */
    size_t capped;      /* valid configs left out by max_per_problem */
    size_t total;       /* cross-product points considered (problems that apply × total) */
    size_t invalid;     /* of which valid() rejected this many */
} space_compile_plan;

/* What to compile for space s on dev: for each problem of compile_problems(dev) that
 * applies(), its valid configs in rank order, at most max_per_problem of them (0: all).
 * The caller compiles each item for its own target (see space_targets_arch). */
w8a8_status space_compile_plan_make(w8a8_context *ctx, const space *s, const space_device *dev,
                                    size_t max_per_problem, space_compile_plan *out);
void space_compile_plan_free(space_compile_plan *plan);

#endif
