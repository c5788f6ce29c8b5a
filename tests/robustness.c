/* Helpers shared by the robustness suites: see robustness.h. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robustness.h"

w8a8_status robust_check_call(const w8a8_context *ctx, w8a8_status st, const char *what,
                              int line)
{
    ck_assert_msg((unsigned)st <= (unsigned)W8A8_HUNG, "line %d: %s returned %d", line, what,
                  (int)st);
    const char *msg = w8a8_errmsg(ctx);
    ck_assert_msg(msg != NULL, "line %d: %s: w8a8_errmsg is NULL", line, what);
    if (st != W8A8_OK) {
        ck_assert_msg(msg[0] != '\0', "line %d: %s returned %s without a message", line, what,
                      w8a8_status_string(st));
        if (ctx)
            ck_assert_msg(w8a8_errcode(ctx) == st, "line %d: %s returned %s, w8a8_errcode %s",
                          line, what, w8a8_status_string(st),
                          w8a8_status_string(w8a8_errcode(ctx)));
    }
    return st;
}

void robust_quiet_begin(robust_quiet *q)
{
    const char *off = getenv("W8A8_TEST_NO_CAPTURE"), *tmp = getenv("TMPDIR");
    q->on = !(off && *off && strcmp(off, "0") != 0);
    if (!q->on)
        return;
    fflush(stdout);
    fflush(stderr);
    snprintf(q->path, sizeof q->path, "%s/w8a8-robustness-%ld.txt", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    int fd = open(q->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ck_assert_msg(fd >= 0, "cannot create %s", q->path);
    q->saved_out = dup(STDOUT_FILENO);
    q->saved_err = dup(STDERR_FILENO);
    ck_assert(q->saved_out >= 0 && q->saved_err >= 0);
    ck_assert(dup2(fd, STDOUT_FILENO) >= 0 && dup2(fd, STDERR_FILENO) >= 0);
    close(fd);
}

void robust_quiet_end(robust_quiet *q)
{
    if (!q->on)
        return;
    fflush(stdout);
    fflush(stderr);
    dup2(q->saved_out, STDOUT_FILENO);
    dup2(q->saved_err, STDERR_FILENO);
    close(q->saved_out);
    close(q->saved_err);
    char text[512] = "";
    FILE *f = fopen(q->path, "rb");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f)
        fclose(f);
    unlink(q->path);
    ck_assert_msg(got == 0, "the library printed: %s", text);
}

void robust_write_bytes(const char *dir, const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    fclose(f);
}

void robust_write_text(const char *dir, const char *name, const char *text)
{
    robust_write_bytes(dir, name, text, strlen(text));
}

void robust_make_hostile_files(const char *dir)
{
    unsigned char garbage[4096];
    test_rng r;
    test_rng_seed(&r, 7);
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (unsigned char)test_rng_next(&r);
    robust_write_bytes(dir, "garbage.db", garbage, sizeof garbage);
    robust_write_bytes(dir, "garbage.lua", garbage, sizeof garbage);
    robust_write_bytes(dir, "garbage.sql", garbage, sizeof garbage);
    robust_write_text(dir, "truncated.db", "SQLite format 3");
    robust_write_text(dir, "empty.lua", "");
    robust_write_text(dir, "drop.sql", "DROP TABLE measurements; DELETE FROM devices;");
    robust_write_text(dir, "syntax.lua", "return {");
    robust_write_text(dir, "number.lua", "return 42");
    robust_write_text(dir, "error.lua", "error('\\xff\\xfe not utf-8')");
    robust_write_text(dir, "badfields.lua",
                      "return {name = 7, template = '../../etc', arch = 'sm_\\xff',"
                      " params = {x = {}}}");
    robust_write_bytes(dir, "bytecode.lua", "\x1bLua\x54\x00\x19\x93\r\n\x1a\n\x04\x08\x08", 15);
    robust_write_bytes(dir, "\xff\xfe.lua", garbage, 64);
    robust_write_text(dir, "unreadable.lua", "return {}");
    char path[1024];
    snprintf(path, sizeof path, "%s/unreadable.lua", dir);
    ck_assert_int_eq(chmod(path, 0), 0);
    static const char *const folders[] = {"folder.lua", "folder.db", "folder.sql"};
    for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, folders[i]);
        ck_assert_int_eq(mkdir(path, 0755), 0);
    }
}

w8a8_context *robust_open_in(const char *dir)
{
    char kernels[1024], db[1024];
    snprintf(kernels, sizeof kernels, "%s/kernels", dir);
    snprintf(db, sizeof db, "%s/tuning.db", dir);
    return test_ctx_open_with(kernels, db, W8A8_CONTEXT_CPU_ONLY);
}

char robust_long_text[ROBUST_LONG_TEXT_BYTES + 1];

void robust_fill_long_text(void)
{
    memset(robust_long_text, 'a', ROBUST_LONG_TEXT_BYTES);
    robust_long_text[0] = '/';
    robust_long_text[ROBUST_LONG_TEXT_BYTES] = '\0';
}

const char *robust_bad_string(int i)
{
    switch (i) {
    case 0: return NULL;
    case 1: return "";
    case 2: return robust_long_text;
    case 3: return robust_long_text + 1; /* no slash: a name, not a path */
    case 4: return "\xff\xfe\xc3\x28";
    case 5: return "../../../../etc/passwd";
    case 6: return "/nonexistent/w8a8/x.lua";
    case 7: return " ";
    case 8: return "sm_90\n#include </dev/zero>";
    case 9: return "%s%s%s%n";
    }
    return ROBUST_BAD_STRING_END;
}

w8a8_problem robust_good_problem(void)
{
    w8a8_problem p;
    w8a8_problem_init(&p, 4, 16, 32, W8A8_E4M3, W8A8_BF16);
    return p;
}

w8a8_context *robust_env_begin(robust_env *env)
{
    robust_quiet_begin(&env->quiet);
    test_mkdtemp(env->dir, sizeof env->dir);
    env->ctx = robust_open_in(env->dir);
    return env->ctx;
}

void robust_env_end(robust_env *env)
{
    w8a8_context_close(env->ctx);
    env->ctx = NULL;
    test_remove_tree(env->dir);
    robust_quiet_end(&env->quiet);
}
