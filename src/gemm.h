/* GEMM kernel families. A family is one template plus the host code that turns a problem and
 * a config into a launch: the reference family (reference_gemm.c) and the Hopper family
 * (sm90_gemm.c), the decode family (sm80_decode.c) and the portable mma.sync family
 * (sm80_gemm.c) implement it; the dispatcher and the tuner only see this interface. */
#ifndef W8A8_GEMM_H
#define W8A8_GEMM_H

#include "gemm_args.h"
#include "jit.h"

#define W8A8_CONFIG_BYTES 256 /* canonical config string: "block_m=128,block_n=128,…" */
#define W8A8_PLAN_KERNELS 2

/* Everything a launch needs that does not depend on the tensors' addresses. Built once per
 * (problem class, config) and kept by the dispatcher; launching reads it only. */
typedef struct gemm_plan {
    const struct gemm_family *family;
    char config[W8A8_CONFIG_BYTES];
    const jit_kernel *kernels[W8A8_PLAN_KERNELS];
    jit_launch launch;       /* grid, block, smem, cluster; stream filled per call */
    int64_t workspace_bytes; /* device scratch the family needs (split-K partials), 0 if none */
    int64_t ints[16];        /* family-private precomputed values */
} gemm_plan;

typedef struct gemm_family {
    const char *name;     /* the template's stem: "reference_gemm", "sm90_gemm" */
    const char *space;    /* the Lua space driving it (scripts/<space>.lua), or NULL */
    const char *arch;     /* the arch its kernels build for ("sm_90a"), or NULL: the device's */
    /* Whether the family can run this problem on this device at all (dtypes, scales, arch). */
    bool (*supports)(const w8a8_context *ctx, const w8a8_problem *problem);
    /* Compiles/loads the kernels of `config` for `problem`'s class and fills plan. */
    w8a8_status (*plan)(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                        gemm_plan *plan);
    /* Launches plan on stream. No allocation, no synchronization. */
    w8a8_status (*run)(w8a8_context *ctx, const gemm_plan *plan, const w8a8_problem *problem,
                       const w8a8_tensors *tensors, CUstream stream);
    /* The defines of config's kernel for problem, as plan compiles it: the config parsed and
     * checked (a config the family refuses has none; `w8a8 compile --winners` and the shipped
     * caches' test find stale rows so), some items possibly launch arguments rather than
     * macros (configs differing only there share one cubin, so the tuner compiles it once);
     * NULL: every item is a define (gemm_defines). */
    w8a8_status (*defines)(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                           char *out, size_t size);
} gemm_family;

extern const gemm_family gemm_family_reference;
extern const gemm_family gemm_family_sm90;
extern const gemm_family gemm_family_sm80_decode;
extern const gemm_family gemm_family_sm80_gemm;

/* NULL-terminated list of every family, most specialized first. */
extern const gemm_family *const gemm_families[];
/* The family whose name is `name`, or NULL. */
const gemm_family *gemm_family_find(const char *name);

/* The one block-scale shape the tensor-core families implement (DeepSeek-V3 / vLLM):
 * A 1×128, B 128×128, promoted accumulation per 128-wide K block. */
#define GEMM_SCALE_GROUP 128

/* What the tensor-core families (sm90_gemm, sm80_decode) can run, before arch and size:
 * operands FP8 × FP8 (any e4m3/e5m2 mix) or INT8 × INT8, a bf16/fp16/fp32 out, a bias of the
 * out dtype or fp32, per-tensor / per-row scales on either side or GEMM_SCALE_GROUP block
 * scales on both (FP8 only), a zero point only with INT8. */
typedef enum gemm_operands {
    GEMM_OPERANDS_UNSUPPORTED,
    GEMM_OPERANDS_FP8,
    GEMM_OPERANDS_INT8,
} gemm_operands;
gemm_operands gemm_tensor_core_operands(const w8a8_problem *problem);

/* The per-block opt-in shared memory of every sm_90 part (H100, H200, H20, GH200): what
 * sm90_gemm plans against without a device, and the nominal sm_90 device of the spaces. */
#define GEMM_SM90_SMEM_OPTIN 232448

/* Whether a kernel must promote its FP8 partial sums for problem (w8a8_accum): accum is
 * W8A8_ACCUM_PROMOTED, the operands FP8 and neither side block-scaled. Everywhere else the
 * accumulation is already exact or promoted, so W8A8_ACCUM_PROMOTED changes nothing there
 * (and the tuning key stores "fast"). */
bool gemm_promotes(const w8a8_problem *problem);

/* DESIGN.md's M bucket of m ≥ 1: the smallest bucket ≥ m, the last one for larger m. A cache
 * key (cache_m_bucket) and so a dispatched plan hold every M of one bucket; a family whose
 * kernels depend on M (sm90_gemm's A_ROWS) takes the bucket from here. */
int64_t gemm_m_bucket(int64_t m);

/* sm90_gemm's tail > 1 (src/sm90_gemm.c): of `units` tiles on `ctas` CTAs in clusters of
 * `tail`, how many go whole before the last partial wave, whose tiles are split into `tail`
 * K slices of `groups` K groups each: units (no split) unless that wave holds at most a tile
 * a cluster and every slice gets a group; else a multiple of ctas. */
int64_t sm90_tail_whole(int64_t units, int64_t ctas, int64_t tail, int64_t groups);

/* A tunable family's parameter: its name in config strings and spaces, the offset of its int
 * in the family's config struct, the value a config that leaves it out gets, and whether the
 * kernel takes it at launch (runtime) instead of as a define. */
typedef struct gemm_param {
    const char *name;
    size_t offset;
    int fallback;
    bool runtime;
} gemm_param;

/* Parses "name=value" items separated by ',' or whitespace into config (a struct of ints laid
 * out by params); every parameter not named gets its fallback. Unknown names and non-integer
 * values are W8A8_INVALID, with `family` in the message. */
w8a8_status gemm_config_parse(w8a8_context *ctx, const char *family, const gemm_param *params,
                              size_t count, const char *text, void *config);
/* The canonical string of config: every parameter, in params' order. */
w8a8_status gemm_config_format(w8a8_context *ctx, const char *family, const gemm_param *params,
                               size_t count, const void *config, char *out, size_t size);
/* The same without the runtime parameters: what the kernel is compiled with. */
w8a8_status gemm_config_format_compiled(w8a8_context *ctx, const char *family,
                                        const gemm_param *params, size_t count,
                                        const void *config, char *out, size_t size);

/* The problem-trait defines every GEMM template receives (W8A8_A_TYPE=…, W8A8_A_SCALE=…,
 * W8A8_AZP=…; SOFT_FP8=1 while gemm_force_soft_fp8 holds), appended to config: writes
 * "config,A_TYPE=1,…" into out. */
w8a8_status gemm_defines(w8a8_context *ctx, const w8a8_problem *problem, const char *config,
                         char *out, size_t size);
/* For tests: FP8 problems' defines carry SOFT_FP8=1, with which the mma.sync families
 * (common/sm80.cuh) unpack FP8 with the integer operations sm_80/86 use, so that path can be
 * checked on newer GPUs. Not thread-safe with compiles. */
void gemm_force_soft_fp8(bool on);
/* The defines of family's kernel for (problem, config): its defines hook, else gemm_defines. */
w8a8_status gemm_family_defines(const gemm_family *family, w8a8_context *ctx,
                                const w8a8_problem *problem, const char *config, char *out,
                                size_t size);

/* Fills args from a (validated) problem and its tensors. */
void gemm_args_fill(w8a8_gemm_args *args, const w8a8_problem *problem, const w8a8_tensors *tensors);

/* Dense strides resolved: the problem with lda/ldb/ldc and scale lds filled in. */
void gemm_problem_resolve(const w8a8_problem *in, w8a8_problem *out);

/* Validation (validate.c): everything in the problem; check_pointers adds the tensors. */
w8a8_status validate_problem(w8a8_context *ctx, const w8a8_problem *problem);
w8a8_status validate_tensors(w8a8_context *ctx, const w8a8_problem *problem,
                             const w8a8_tensors *tensors);
/* Both: what every public matmul entry point checks before anything runs. */
w8a8_status validate_call(w8a8_context *ctx, const w8a8_problem *problem,
                          const w8a8_tensors *tensors);

#endif
