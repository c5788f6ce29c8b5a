/* w8a8 info: the device, driver, NVRTC and cache locations. */
#include <string.h>

#include "cli.h"

static void print_json(const w8a8_device_info *d)
{
    printf("{\"version\": \"%s\", \"has_device\": %s, \"device\": ", w8a8_version_string(),
           d->has_device ? "true" : "false");
    cli_json_string(stdout, d->has_device ? d->name : "");
    printf(", \"arch\": \"%s\", \"sm_count\": %d, \"memory_bytes\": %llu, \"l2_bytes\": %llu, "
           "\"max_smem_optin\": %d, \"driver_version\": %d, \"nvrtc\": \"%d.%d\", \"kernel_dir\": ",
           d->arch, d->sm_count, (unsigned long long)d->memory_bytes,
           (unsigned long long)d->l2_bytes, d->max_smem_optin, d->driver_version, d->nvrtc_major,
           d->nvrtc_minor);
    cli_json_string(stdout, d->kernel_dir);
    printf(", \"cache_db\": ");
    cli_json_string(stdout, d->cache_db);
    printf(", \"template_dir\": ");
    cli_json_string(stdout, d->template_dir);
    printf(", \"no_device_reason\": ");
    cli_json_string(stdout, d->no_device_reason);
    printf("}\n");
}

int cmd_info(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: w8a8 info [--json]\n"
                   "Prints the device, driver and NVRTC versions and the cache locations.\n"
                   "Without a device it says \"no CUDA device\" and exits 0.\n");
            return 0;
        } else
            return cli_usage_error("info: unknown option '%s'", argv[i]);
    }
    w8a8_context *ctx = cli_open(0);
    if (!ctx)
        return 1;
    w8a8_device_info d;
    w8a8_status st = w8a8_context_device_info(ctx, &d);
    if (st != W8A8_OK) {
        int rc = cli_fail_ctx(ctx, st);
        w8a8_context_close(ctx);
        return rc;
    }
    if (json) {
        print_json(&d);
    } else {
        printf("w8a8jit     %s\n", w8a8_version_string());
        if (d.has_device)
            printf("device      %s (%s, %d SMs, %.1f GiB, L2 %.0f MiB, smem opt-in %d B)\n", d.name,
                   d.arch, d.sm_count, (double)d.memory_bytes / (1 << 30),
                   (double)d.l2_bytes / (1 << 20), d.max_smem_optin);
        else
            printf("device      %s\n", d.no_device_reason[0] ? d.no_device_reason : "no CUDA device");
        if (d.driver_version)
            printf("driver      CUDA %d.%d\n", d.driver_version / 1000, d.driver_version % 1000 / 10);
        else
            printf("driver      none\n");
        printf("nvrtc       %d.%d\n", d.nvrtc_major, d.nvrtc_minor);
        printf("kernels     %s\n", d.kernel_dir);
        printf("cache db    %s\n", d.cache_db);
        printf("templates   %s\n", d.template_dir[0] ? d.template_dir : "embedded");
    }
    w8a8_context_close(ctx);
    return 0;
}
