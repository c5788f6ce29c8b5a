/* Helpers the subcommands share: failing with a message, opening a context, JSON strings,
 * shapes. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

static int vfail(int code, const char *fmt, va_list ap)
{
    fputs("w8a8: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    return code;
}

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = vfail(1, fmt, ap);
    va_end(ap);
    return code;
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = vfail(2, fmt, ap);
    va_end(ap);
    return code;
}

int cli_fail_ctx(w8a8_context *ctx, w8a8_status st)
{
    return cli_fail("%s: %s", w8a8_status_string(st), w8a8_errmsg(ctx));
}

w8a8_context *cli_open(uint32_t flags)
{
    w8a8_context_options options = {0};
    options.flags = flags;
    w8a8_context *ctx = NULL;
    w8a8_status st = w8a8_context_open(&ctx, &options);
    if (st != W8A8_OK) {
        cli_fail_ctx(ctx, st);
        w8a8_context_close(ctx);
        return NULL;
    }
    return ctx;
}

bool cli_is_tty(void) { return isatty(2) != 0; }

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

bool cli_parse_shape(const char *text, long long *m, long long *n, long long *k)
{
    long long v[3];
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        char *end = NULL;
        if (!isdigit((unsigned char)*p))
            return false;
        v[i] = strtoll(p, &end, 10);
        if (v[i] <= 0 || (i < 2 && *end != ',') || (i == 2 && *end != '\0'))
            return false;
        p = end + 1;
    }
    *m = v[0], *n = v[1], *k = v[2];
    return true;
}
