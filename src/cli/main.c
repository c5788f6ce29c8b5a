/* w8a8: the command. One file per subcommand; this one dispatches. */
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"info", cmd_info, "device, driver, NVRTC and cache locations"},
    {"compile", cmd_compile, "compile templates or a space's configs with NVRTC (no GPU needed)"},
    {"check", cmd_check, "run the reference kernel against the CPU reference on random problems"},
    {"tune", cmd_tune, "autotune problems and store every measurement in the cache"},
    {"bench", cmd_bench, "time the dispatched kernels (beside cuBLASLt when present)"},
    {"cache", cmd_cache, "list, show, explain, export, import, merge, prune the tuning cache"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: w8a8 <command> [options]   (w8a8 <command> --help for its options)\n\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nenvironment: W8A8_KERNEL_DIR (cubin store), W8A8_CACHE_DB (tuning database),\n"
               "  W8A8_CACHE_PATH (read-only databases), W8A8_TEMPLATE_DIR (template override),\n"
               "  W8A8_TUNE=off|record|online (dispatcher policy on a cache miss),\n"
               "  W8A8_PDL=0 (no programmatic dependent launch),\n"
               "  W8A8_TUNE_WATCHDOG_S (seconds after which the tuner deems a kernel hung)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("w8a8 %s\n", w8a8_version_string());
        return 0;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "w8a8: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
