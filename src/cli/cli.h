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

#endif
