/* Random matmul problems with data, for checking the reference kernel against the CPU
 * reference (tests/check_gpu_reference.c and `w8a8 check`). Prefix: pgen_.
 *
 * Problems cycle through every trait combination — dtype pair (e4m3/e5m2 mixes, int8) ×
 * A scale kind × B scale kind × out dtype × bias (none / out dtype / fp32) × zero point (int8
 * with per-tensor/row scales) — with random odd shapes, block group shapes, K-major and
 * padded scale layouts, padded row strides, and data that is never zero. */
#ifndef W8A8_PROBLEM_GEN_H
#define W8A8_PROBLEM_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "w8a8jit.h"

struct gemm_family; /* gemm.h */

/* Problems stay below this many multiply-adds, so the CPU reference of a few hundred of them
 * takes seconds. */
#define PGEN_MAX_MACS (1ll << 25)

typedef struct pgen_rng {
    uint64_t state;
} pgen_rng;

void pgen_rng_seed(pgen_rng *rng, uint64_t seed);
uint64_t pgen_rng_next(pgen_rng *rng);
double pgen_rng_uniform(pgen_rng *rng); /* [0, 1) */

/* How many trait combinations there are; problem i uses combination i % count. */
int pgen_trait_count(void);
/* A random problem with the traits of combination `index % pgen_trait_count()`. */
void pgen_problem(pgen_rng *rng, int index, w8a8_problem *problem /* OUT */);

/* DeepSeek-V3 block scales on p (A 1×128, B 128×128), each scale matrix row-major or K-major
 * (a_k_major, b_k_major) with its dense leading dimension plus `pad` floats. */
void pgen_block_scales(w8a8_problem *p, int a_k_major, int b_k_major, int pad);

/* Host tensors of one problem. Sizes in bytes; out_bytes covers m full rows of ldc. */
typedef struct pgen_case {
    w8a8_problem problem; /* strides resolved (never 0) */
    void *a, *b, *bias;
    float *a_scale, *b_scale;
    int32_t *azp, *b_col_sums;
    size_t a_bytes, b_bytes, out_bytes, a_scale_bytes, b_scale_bytes, bias_bytes;
    size_t azp_bytes, b_col_sums_bytes;
} pgen_case;

/* Allocates and fills the inputs of `problem` (validated). W8A8_NO_MEMORY on failure. */
w8a8_status pgen_case_create(w8a8_context *ctx, pgen_rng *rng, const w8a8_problem *problem,
                             pgen_case *c /* OUT */);
void pgen_case_destroy(pgen_case *c);
/* The case's host tensors writing to `out` (out_bytes). */
w8a8_tensors pgen_case_tensors(const pgen_case *c, void *out);

/* Uploads the case, poisons the device output with 0xFF bytes, runs w8a8_scaled_mm_reference,
 * waits, and downloads all out_bytes into out_host. Needs a device. */
w8a8_status pgen_run_reference_gpu(w8a8_context *ctx, const pgen_case *c, void *out_host);
/* The same through the reference family planned with `config` (extra defines such as
 * "FP8_DECODE_BITS=1"); NULL config is pgen_run_reference_gpu. */
w8a8_status pgen_run_reference_gpu_config(w8a8_context *ctx, const pgen_case *c,
                                          const char *config, void *out_host);
/* The same through any GEMM family planned with `config` (the family under test); the output
 * is poisoned with 0xFF bytes before the run, as above. */
w8a8_status pgen_run_family_gpu(w8a8_context *ctx, const struct gemm_family *family, const pgen_case *c,
                                const char *config, void *out_host);

/* Compiles the reference kernels of `count` problems for the context's device on a thread
 * per CPU, into the on-disk cubin store, so the runs that follow load instead of compiling
 * one at a time. Does nothing without a device or with the disk store disabled; compile
 * errors are left for the runs to report. */
void pgen_prewarm(w8a8_context *ctx, const w8a8_problem *problems, int count);
/* Compiles template_name's kernel of each of `count` define strings (the i-th at defines +
 * i · stride) for arch on a thread per CPU, into the on-disk cubin store; compile errors are
 * left for whoever runs them. */
void pgen_compile_each(w8a8_context *ctx, const char *template_name, const char *arch,
                       const char *defines, size_t stride, int count);

/* Comparison of an output with the CPU reference's. */
typedef struct pgen_result {
    double max_error;   /* max |got − want| */
    double max_ref;     /* max |want| */
    double rel_error;   /* max_error / max_ref */
    double tolerance;   /* allowed rel_error for the out dtype */
    int64_t bad_values; /* NaN/inf where the reference is finite */
    int64_t bad_padding; /* bytes between n and ldc that are no longer 0xFF */
    bool ok;
} pgen_result;

/* Compares got and want (both out_bytes of the case's problem). Padding is only checked in
 * got, which must have been poisoned with 0xFF before the run. */
void pgen_compare(const w8a8_problem *problem, const void *got, const void *want,
                  pgen_result *result /* OUT */);

/* Allowed max|got − want| / max|want|: one unit in the last place of the out dtype (two
 * correctly rounded results may differ by that) plus slack for fp32 accumulation order. */
double pgen_tolerance(w8a8_dtype out_type);

/* Case classes for reports: dtype pair × A scale kind × B scale kind. */
#define PGEN_CLASS_COUNT 45
int pgen_class_index(const w8a8_problem *problem);
/* "e4m3×e5m2 row×block" into out. */
void pgen_class_name(int index, char *out, size_t size);
/* One line describing a problem ("m=7 n=24 k=272 e4m3×e4m3 block(1×128,kmajor)×tensor
 * out=bf16 bias=fp32 azp=none lda=288 …"). */
void pgen_problem_describe(const w8a8_problem *problem, char *out, size_t size);

#endif
