/* Tuning spaces: Lua scripts (scripts/<name>.lua, or a user's file) that say which configs of
 * a template are worth compiling for a problem on a device. Run in a sandbox (space.c).
 *
 * A space is a chunk that returns a table:
 *   name     = "sm90_gemm",           -- the space's name (defaults to the file's stem)
 *   template = "sm90_gemm",           -- templates/<template>.cuh; also the gemm family name
 *   arch     = "sm_90a",              -- NVRTC target of its kernels
 *   applies  = function(problem, device) return bool end,      -- optional, default true
 *   params   = { block_m = {64, 128}, block_n = {...}, ... },  -- integer lists
 *   order    = { "block_m", "block_n", ... },                  -- optional enumeration order
 *   valid    = function(config, problem, device) return ok [, reason] end,   -- optional
 *   rank     = function(config, problem, device) return number end,  -- lower = try first
 *   default  = function(problem, device) return config end,  -- the dispatcher's cache-miss pick
 *   compile_problems = function(device) return {problem, ...} end, -- optional: what
 *              `w8a8 compile --all` builds (defaults to one per-tensor e4m3 bf16 problem)
 * problem = { m, n, k, a_type = "e4m3", b_type, out_type, bias_type ("none"), a_scale =
 *            "tensor"|"row"|"block", b_scale, a_group_rows, a_group_k, b_group_rows, b_group_k,
 *            a_k_major (bool), azp = "none"|"tensor"|"token" }
 * device  = { arch = "sm_90", name, cc_major, cc_minor, sm_count, max_smem (opt-in bytes per
 *            block), l2_bytes, regs_per_sm = 65536 }
 * config  = { param = integer, ... } with every name of params.
 */
#ifndef W8A8_SPACE_H
#define W8A8_SPACE_H

#include "internal.h"

#define W8A8_SPACE_MAX_PARAMS 24
#define W8A8_SPACE_MAX_VALUES 32

typedef struct space_device {
    char arch[16]; /* "sm_90" (the device's, without the a) */
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    int max_smem_optin;
    uint64_t l2_bytes;
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
    size_t invalid; /* rejected by valid() */
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
/* The space's default config for a problem (canonical string). */
w8a8_status space_default(w8a8_context *ctx, const space *s, const w8a8_problem *problem,
                          const space_device *dev, char *config, size_t size);
/* The problems `w8a8 compile --all` builds for this space (malloc'ed array). */
w8a8_status space_compile_problems(w8a8_context *ctx, const space *s, const space_device *dev,
                                   w8a8_problem **problems, size_t *count);

/* Names of the embedded spaces (NULL-terminated, static). */
const char *const *space_builtin_names(void);

#endif
