/* Config strings of the tunable GEMM families ("block_m=128,block_n=144,…"): parsing into a
 * family's struct of ints through its parameter table, and the canonical string (every
 * parameter, in the table's order) that keys cubins, plans and cache rows. Shared so that a
 * new family declares its parameters and nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

static int *param_field(void *config, const gemm_param *param)
{
    return (int *)((char *)config + param->offset);
}

static bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n'; }

w8a8_status gemm_config_parse(w8a8_context *ctx, const char *family, const gemm_param *params,
                              size_t count, const char *text, void *config)
{
    for (size_t i = 0; i < count; i++)
        *param_field(config, &params[i]) = params[i].fallback;
    const char *p = text ? text : "";
    while (*p) {
        while (is_separator(*p))
            p++;
        if (!*p)
            break;
        const char *eq = strchr(p, '=');
        size_t len = eq ? (size_t)(eq - p) : 0;
        size_t i = 0;
        while (i < count && !(len == strlen(params[i].name) && strncmp(p, params[i].name, len) == 0))
            i++;
        if (!eq || i == count)
            return errorf(ctx, W8A8_INVALID, "%s config: unknown item at '%.40s'", family, p);
        char *end;
        long value = strtol(eq + 1, &end, 10);
        if (end == eq + 1 || (*end && !is_separator(*end)) || value < -1000000 || value > 1000000)
            return errorf(ctx, W8A8_INVALID, "%s config: '%s' needs an integer", family,
                          params[i].name);
        *param_field(config, &params[i]) = (int)value;
        p = end;
    }
    return W8A8_OK;
}

static w8a8_status config_format(w8a8_context *ctx, const char *family, const gemm_param *params,
                                 size_t count, const void *config, bool compiled, char *out,
                                 size_t size)
{
    size_t used = 0;
    if (size)
        out[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (compiled && params[i].runtime)
            continue;
        int n = snprintf(out + used, size - used, "%s%s=%d", used ? "," : "", params[i].name,
                         *param_field((void *)config, &params[i]));
        if (n < 0 || (size_t)n >= size - used)
            return errorf(ctx, W8A8_INTERNAL, "%s: config string too long", family);
        used += (size_t)n;
    }
    return W8A8_OK;
}

w8a8_status gemm_config_format(w8a8_context *ctx, const char *family, const gemm_param *params,
                               size_t count, const void *config, char *out, size_t size)
{
    return config_format(ctx, family, params, count, config, false, out, size);
}

w8a8_status gemm_config_format_compiled(w8a8_context *ctx, const char *family,
                                        const gemm_param *params, size_t count,
                                        const void *config, char *out, size_t size)
{
    return config_format(ctx, family, params, count, config, true, out, size);
}
