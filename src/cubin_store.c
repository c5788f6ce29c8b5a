/* The on-disk cubin store: <dir>/<sha256>.cubin beside <sha256>.info (the ptxas report), both
 * written to a temporary file and renamed, so a reader sees a whole file or none; the info is
 * renamed first, so a present cubin always has its info. <sha256>.lock serializes processes
 * that start cold together: the second one finds what the first stored. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "jit.h"

static bool store_path(char *out, size_t size, const char *dir, const char *key, const char *ext)
{
    return util_format(out, size, "%s/%s.%s", dir, key, ext);
}

static void info_write(char *buf, size_t size, const w8a8_kernel_info *info)
{
    snprintf(buf, size,
             "registers=%d\nshared_bytes=%d\nspill_stores=%d\nspill_loads=%d\nstack_bytes=%d\n"
             "compile_ms=%.3f\nrejected=%d\nreject_reason=%s\n",
             info->registers, info->shared_bytes, info->spill_stores, info->spill_loads,
             info->stack_bytes, info->compile_ms, info->rejected, info->reject_reason);
}

static bool info_parse(const char *text, w8a8_kernel_info *info)
{
    memset(info, 0, sizeof *info);
    int fields = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        fields += sscanf(line, "registers=%d", &info->registers);
        fields += sscanf(line, "shared_bytes=%d", &info->shared_bytes);
        fields += sscanf(line, "spill_stores=%d", &info->spill_stores);
        fields += sscanf(line, "spill_loads=%d", &info->spill_loads);
        fields += sscanf(line, "stack_bytes=%d", &info->stack_bytes);
        fields += sscanf(line, "rejected=%d", &info->rejected);
        if (strncmp(line, "reject_reason=", 14) == 0) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line - 14) : strlen(line + 14);
            if (len >= sizeof info->reject_reason)
                len = sizeof info->reject_reason - 1;
            memcpy(info->reject_reason, line + 14, len);
            info->reject_reason[len] = '\0';
        }
    }
    return fields >= 6;
}

bool store_lookup(const char *dir, const char *key, void **data, size_t *size,
                  w8a8_kernel_info *info)
{
    char path[W8A8_PATH_BYTES + 96];
    char *text = NULL, *cubin = NULL;
    size_t cubin_size = 0;
    if (!store_path(path, sizeof path, dir, key, "cubin") ||
        util_read_file(path, &cubin, &cubin_size) != 0)
        return false;
    w8a8_kernel_info parsed;
    if (!store_path(path, sizeof path, dir, key, "info") || util_read_file(path, &text, NULL) != 0 ||
        !info_parse(text, &parsed) || cubin_size < 4 || memcmp(cubin, "\177ELF", 4) != 0) {
        free(text);
        free(cubin); /* a damaged entry counts as a miss and is rewritten */
        return false;
    }
    free(text);
    *data = cubin;
    *size = cubin_size;
    *info = parsed;
    info->compile_ms = 0;
    return true;
}

int store_put(const char *dir, const char *key, const void *data, size_t size,
              const w8a8_kernel_info *info)
{
    char path[W8A8_PATH_BYTES + 96];
    char text[512];
    info_write(text, sizeof text, info);
    if (!store_path(path, sizeof path, dir, key, "info"))
        return ENAMETOOLONG;
    int err = util_write_file_atomic(path, text, strlen(text));
    if (err)
        return err;
    if (!store_path(path, sizeof path, dir, key, "cubin"))
        return ENAMETOOLONG;
    return util_write_file_atomic(path, data, size);
}

int store_lock(const char *dir, const char *key)
{
    char path[W8A8_PATH_BYTES + 96];
    if (!store_path(path, sizeof path, dir, key, "lock"))
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

void store_unlock(int fd)
{
    if (fd < 0)
        return;
    flock(fd, LOCK_UN);
    close(fd);
}
