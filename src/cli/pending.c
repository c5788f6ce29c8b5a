/* TEMPORARY during parallel development: weak stand-ins for subcommands whose files have not
 * landed yet. Removed before release. */
#include "cli.h"

__attribute__((weak)) int cmd_check(int argc, char **argv) { (void)argc; (void)argv; return cli_fail("check: not built yet"); }
__attribute__((weak)) int cmd_tune(int argc, char **argv) { (void)argc; (void)argv; return cli_fail("tune: not built yet"); }
__attribute__((weak)) int cmd_bench(int argc, char **argv) { (void)argc; (void)argv; return cli_fail("bench: not built yet"); }
__attribute__((weak)) int cmd_cache(int argc, char **argv) { (void)argc; (void)argv; return cli_fail("cache: not built yet"); }
__attribute__((weak)) int cli_bench_quant(int argc, char **argv) { (void)argc; (void)argv; return cli_fail("bench --op quant: not built yet"); }
__attribute__((weak)) int cli_bench_linear(int argc, char **argv) { (void)argc; (void)argv; return cli_fail("bench --op linear: not built yet"); }
