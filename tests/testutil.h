/* Helpers shared by the Check suites: contexts, random data, GPU buffers, the skip rule. */
#ifndef W8A8_TESTUTIL_H
#define W8A8_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "gemm.h"
#include "internal.h"
#include "problem_gen.h"
#include "w8a8jit.h"

/* Exit status CTest reads as "skipped" (SKIP_RETURN_CODE). */
#define TEST_SKIP_CODE 77

/* Opens a context with default options; fails the test on error. */
w8a8_context *test_ctx_open(void);
/* A CPU-only context whose kernel store is a fresh temporary folder (tmpdir OUT, may be
 * NULL); for tests that must not see earlier cubins. */
w8a8_context *test_ctx_open_fresh(char *tmpdir, size_t size);
/* A context whose kernel store and tuning database are the given paths (NULL: the defaults)
 * and flags; fails the test on error. */
w8a8_context *test_ctx_open_with(const char *kernel_dir, const char *cache_db, uint32_t flags);
/* A context on the device (if any) with a fresh tuning database in dir/tuning.db (dir OUT,
 * a new temporary folder); for GPU suites that must start from an empty cache. */
w8a8_context *test_ctx_open_empty_cache(char *dir, size_t size);

/* The GPU family suites' verdict: FP8 tensor cores accumulate with a reduced-precision adder
 * (about 1e-3 relative for K in the thousands), so FP8 results get this much on top of the
 * out dtype's bound; promoted accumulation (block scales) a tighter bound; INT8 is exact. */
#define TEST_FP8_ACCUMULATION_BOUND 5e-3
#define TEST_PROMOTED_ACCUMULATION_BOUND 1e-3
/* Runs case c through `family` with `config` (output poisoned first) and through the
 * reference kernel; returns whether they agree (no non-finite values, padding untouched,
 * relative error within the bound above); prints the problem and config when not. A failed
 * launch fails the test. */
bool test_family_matches_reference(w8a8_context *ctx, const gemm_family *family,
                                   const pgen_case *c, const char *config);
/* A case of problem p drawn from rng, run through `family` with each of the `count` configs
 * against the reference; adds the runs to *runs and returns the failures. */
int test_family_case_configs(w8a8_context *ctx, const gemm_family *family, pgen_rng *rng,
                             const w8a8_problem *p, const char *const *configs, int count,
                             int *runs);
/* Runs case c through `family` twice with each of the `count` configs; fails the test unless
 * both runs give the same bytes (the families' split-K sums have a fixed order). */
void test_family_runs_are_bitwise_equal(w8a8_context *ctx, const gemm_family *family,
                                        const pgen_case *c, const char *const *configs,
                                        int count);
/* A family suite's choice of config for its run-th problem p, into out. */
typedef void (*test_config_fn)(int run, const w8a8_problem *p, char *out, size_t size);
/* Every problem of pgen's trait list (seeded with seed) that `family` supports, the run-th of
 * them with config choose(run, …), against the reference; prints "<label>: N trait
 * combinations run, F failed"; fails the test unless at least min_runs ran and none failed. */
void test_family_each_trait(w8a8_context *ctx, const gemm_family *family, uint64_t seed,
                            test_config_fn choose, const char *label, int min_runs);
/* The v-th of the block-scaled problems (A 1×128, B 128×128) the family suites cycle through
 * on shape {M, N, K}: A e5m2 every fifth (else e4m3, B e4m3), out bf16 / fp16 / fp32, each
 * scale matrix row-major or K-major, its ld padded on two of three, bias none / fp32 / the
 * out dtype, out rows padded (test_padded_ldc). */
void test_block_problem(w8a8_problem *p, const int64_t shape[3], int v);
/* Compiling ahead: the kernels of every (problem, config) added, and the reference kernels
 * of the problems, compiled on a thread per CPU into the disk store, so the runs load them
 * instead of compiling one at a time (errors are left for the runs to report). */
typedef struct test_prewarm test_prewarm;
test_prewarm *test_prewarm_new(w8a8_context *ctx, const gemm_family *family);
void test_prewarm_add(test_prewarm *l, const w8a8_problem *p, const char *config);
/* Compiles what l holds and the reference kernels of problems[0..count), then frees l. */
void test_prewarm_run(test_prewarm *l, const w8a8_problem *problems, int count);
/* Every shape × config with test_block_problem's (shape s, config c)-th problem, v = s + c,
 * through `family` against the reference (the data drawn from one generator seeded with
 * seed); prints "<label>: N block-scaled config × shape runs, F failed"; fails the test if the
 * family does not support a problem or any run differs. */
void test_family_block_shapes(w8a8_context *ctx, const gemm_family *family, uint64_t seed,
                              const int64_t (*shapes)[3], int shape_count,
                              const char *const *configs, int config_count, const char *label);
/* An out row pitch past N (N rounded up to 8, plus 8): the padding the reference check
 * watches for stray writes. */
int64_t test_padded_ldc(int64_t n);
/* A pgen case's tensors on the device. */
typedef struct test_gpu_tensors {
    void *a, *b, *bias, *a_scale, *b_scale, *azp, *col_sums, *out;
} test_gpu_tensors;
/* Uploads c's inputs (NULL where c has none) and allocates its out, poisoned with 0xFF
 * (pgen_compare checks the padding). */
void test_gpu_tensors_upload(w8a8_context *ctx, const pgen_case *c, test_gpu_tensors *g);
/* The w8a8_tensors that name g's buffers. */
w8a8_tensors test_gpu_tensors_view(const test_gpu_tensors *g);
void test_gpu_tensors_free(w8a8_context *ctx, test_gpu_tensors *g);
/* c's inputs uploaded, w8a8_scaled_mm captured in a CUDA graph and the graph replayed; the out
 * equals the reference kernel's within the problem's bound (ck assertions), and every buffer
 * is freed. */
void test_dispatched_in_a_graph(w8a8_context *ctx, const pgen_case *c);
/* That bound for problem p whose out dtype's own bound is `tolerance` (pgen_compare's). */
double test_accumulation_bound(const w8a8_problem *p, double tolerance);

/* For suites on the stand-in driver (fake_cuda.c): the path of libfake_cuda.so beside this
 * executable (the build puts it there, so a copied build folder finds it too) into path;
 * false when it is not there. */
bool test_fake_cuda_locate(char *path, size_t size);

/* For GPU suites: call first in main(). Prints "skipped: <why>" and exits TEST_SKIP_CODE
 * when the machine has no usable CUDA device. */
void test_require_gpu_or_skip(const char *suite);

/* Runs suite s; returns the process exit status (0 when all passed). */
int test_run_suite(Suite *s);

/* Deterministic xorshift random numbers. */
typedef struct test_rng { uint64_t state; } test_rng;
void test_rng_seed(test_rng *r, uint64_t seed);
uint64_t test_rng_next(test_rng *r);
double test_rng_uniform(test_rng *r);              /* [0, 1) */
double test_rng_normal(test_rng *r);               /* N(0, 1) */
int64_t test_rng_range(test_rng *r, int64_t lo, int64_t hi); /* [lo, hi] */

/* GPU buffers (device pointers as void *); fail the test on error. */
void *test_gpu_alloc(w8a8_context *ctx, size_t bytes);
void test_gpu_free(w8a8_context *ctx, void *ptr);
void test_gpu_upload(w8a8_context *ctx, void *dst, const void *src, size_t bytes);
void test_gpu_download(w8a8_context *ctx, void *dst, const void *src, size_t bytes);
/* Fills with byte `value` (0xFF poisons fp outputs with NaN-ish patterns). */
void test_gpu_poison(w8a8_context *ctx, void *ptr, size_t bytes, unsigned char value);
void test_gpu_sync(w8a8_context *ctx);

/* Makes a temporary folder under $TMPDIR (or /tmp); path OUT. */
void test_mkdtemp(char *path, size_t size);
/* Removes path and everything under it (unreadable entries included, links not followed);
 * errors are ignored. */
void test_remove_tree(const char *path);

#endif
