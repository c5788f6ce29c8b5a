/* The `w8a8` command: one file per subcommand, sharing these helpers. */
#ifndef W8A8_CLI_H
#define W8A8_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "w8a8jit.h"

/* Each subcommand: argv[0] is the subcommand's name. Returns the exit status. */
int cmd_info(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_cache(int argc, char **argv);

/* Prints "w8a8: <message>" to stderr; returns 1 (or 2 for usage errors via cli_usage_error). */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the context's last error as "w8a8: <status>: <message>" and returns 1. */
int cli_fail_ctx(w8a8_context *ctx, w8a8_status st);
/* Opens a context with the environment's defaults; on failure prints and returns NULL. */
w8a8_context *cli_open(uint32_t flags);
/* Whether stderr is a terminal (progress bars only then). */
bool cli_is_tty(void);
/* Writes s as a JSON string literal (with quotes) to f. */
void cli_json_string(FILE *f, const char *s);
/* Parses "M,N,K" into three positive integers; false if malformed. */
bool cli_parse_shape(const char *text, long long *m, long long *n, long long *k);

/* ---- restarting after a hung kernel (src/cli/supervise.c) ------------------------------------ */

/* The exit status of a command stopped by a hung kernel (sysexits' EX_TEMPFAIL: running it
 * again may succeed, and resumes). */
#define CLI_EXIT_HUNG 75
/* Runs work(user) in a child process and returns its exit status; each time the child exits
 * with CLI_EXIT_HUNG, a new child runs it again (a line on stderr says so), at most `restarts`
 * times. Call it before this process touches CUDA, which does not survive fork(). */
int cli_supervise(const char *command, int restarts, int (*work)(void *user), void *user);

/* ---- shared by tune and bench (src/cli/tune.c) ---------------------------------------------- */

/* One linear layer of a model preset: out features N, in features K. */
typedef struct cli_layer {
    const char *name;
    long long n, k;
} cli_layer;

/* The layers of a preset ("llama3-8b", "llama3-70b", "deepseek-v3"); NULL when unknown.
 * *count gets their number; *block_scales is set for models quantized with 128-blocks. */
const cli_layer *cli_model_layers(const char *model, size_t *count, bool *block_scales);
/* The preset names, for usage messages ("llama3-8b|llama3-70b|deepseek-v3"). */
const char *cli_model_names(void);
/* The M buckets of the cache (1 … 16384), their number in *count. */
const long long *cli_m_buckets(size_t *count);
/* Parses "1,16,64" into up to max values, each ≥ min; false if malformed or too many. */
bool cli_parse_list(const char *text, long long min, long long *values, size_t max,
                    size_t *count);

/* The dtype/scale/out options shared by tune and bench. */
typedef struct cli_problem_spec {
    w8a8_dtype ab_type, out_type;
    w8a8_scale_kind a_scale, b_scale;
    bool scale_given; /* --scale was on the command line */
    w8a8_accum accum;
} cli_problem_spec;
/* Handles --dtype, --scale A,B (tensor|row|block; one name means both), --out, --accum at argv[*i]
 * (advancing *i past the value). Returns 1 if consumed, 0 if not one of them, -1 (after
 * printing) on a bad value. */
int cli_problem_option(int argc, char **argv, int *i, cli_problem_spec *spec);
/* A problem of the spec: block scales are vLLM's 1×128 (A, K-major) and 128×128 (B). */
void cli_problem_make(w8a8_problem *p, long long m, long long n, long long k,
                      const cli_problem_spec *spec);
/* "tensor", "row", "block", or "A,B" when the two differ (static storage). */
const char *cli_scale_label(const cli_problem_spec *spec);

/* ---- bench --op (src/cli/bench_quant.c) ----------------------------------------------------- */
/* `w8a8 bench --op quant|linear …`: argv as given to cmd_bench. */
int cli_bench_quant(int argc, char **argv);
int cli_bench_linear(int argc, char **argv);
/* `w8a8 bench --op mma-peak` (bench_mma.c): mma.sync.m16n8k32 peak throughput. */
int cli_bench_mma_peak(int argc, char **argv);

#endif
