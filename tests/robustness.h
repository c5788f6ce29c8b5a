/* Helpers shared by the robustness suites (check_robustness.c, check_bad_input.c,
 * check_fuzz.c): the checks every public call must pass, capture of what the library prints,
 * hostile files and strings, and CPU-only contexts in a folder of their own. */
#ifndef W8A8_ROBUSTNESS_H
#define W8A8_ROBUSTNESS_H

#include <stdbool.h>
#include <stddef.h>

#include "testutil.h"

#define ROBUST_LONG_TEXT_BYTES 5000     /* longer than every path and name buffer */
#define FAKE_DEVICE_BYTES 4096          /* stands in for device memory never touched here */

/* Checks what every call promises: a status of the enum, and on failure a message and the
 * code kept on the context. Returns the status. */
w8a8_status robust_check_call(const w8a8_context *ctx, w8a8_status st, const char *what,
                              int line);
#define CALL(ctx, expr) robust_check_call((ctx), (expr), #expr, __LINE__)

/* The call fails (any status but OK). */
#define FAILS(ctx, expr)                                                                        \
    do {                                                                                       \
        w8a8_status st_ = CALL(ctx, expr);                                                     \
        ck_assert_msg(st_ != W8A8_OK, "line %d: %s succeeded", __LINE__, #expr);              \
    } while (0)

/* The call returns exactly `code`. */
#define EXPECT(ctx, expr, code)                                                                 \
    do {                                                                                       \
        w8a8_status st_ = CALL(ctx, expr);                                                     \
        ck_assert_msg(st_ == (code), "line %d: %s: want %s, got %s (%s)", __LINE__, #expr,     \
                      w8a8_status_string(code), w8a8_status_string(st_), w8a8_errmsg(ctx));    \
    } while (0)

/* Success leaves "" as the message. */
#define EXPECT_OK_CLEAN(ctx, expr)                                                              \
    do {                                                                                       \
        EXPECT(ctx, expr, W8A8_OK);                                                            \
        ck_assert_msg(w8a8_errmsg(ctx)[0] == '\0' && w8a8_errcode(ctx) == W8A8_OK,             \
                      "line %d: %s succeeded but left '%s'", __LINE__, #expr, w8a8_errmsg(ctx)); \
    } while (0)

/* The library never prints: stdout and stderr go to a file while a test runs, which must stay
 * empty (under the sanitize build UBSan reports land there too). The file,
 * $TMPDIR/w8a8-robustness-<pid>.txt, is removed at the end of a passing test and left behind
 * when the test fails or dies (an ASan report is there then); W8A8_TEST_NO_CAPTURE=1 turns
 * capturing off. */
typedef struct robust_quiet {
    bool on;
    char path[512];
    int saved_out, saved_err;
} robust_quiet;

void robust_quiet_begin(robust_quiet *q);
/* Restores stdout and stderr; fails the test when anything was printed. */
void robust_quiet_end(robust_quiet *q);

/* Writes a file dir/name; fails the test on error. */
void robust_write_bytes(const char *dir, const char *name, const void *data, size_t size);
void robust_write_text(const char *dir, const char *name, const char *text);

/* A folder of hostile files: garbage databases and spaces, a Lua bytecode header, scripts that
 * fail, folders with file names, a file nobody may read, a name that is not UTF-8. */
void robust_make_hostile_files(const char *dir);

/* A CPU-only context whose kernel store and tuning database live in dir. */
w8a8_context *robust_open_in(const char *dir);

/* What most robustness tests start with and end with: output captured, a fresh folder, a
 * CPU-only context in it; at the end the context is closed (if still open), the folder
 * removed and the capture checked empty. */
typedef struct robust_env {
    robust_quiet quiet;
    char dir[512];
    w8a8_context *ctx;
} robust_env;
w8a8_context *robust_env_begin(robust_env *env);
void robust_env_end(robust_env *env);

/* A '/' followed by ROBUST_LONG_TEXT_BYTES - 1 'a's, filled by robust_fill_long_text (call it
 * in main(), before the forks). */
extern char robust_long_text[ROBUST_LONG_TEXT_BYTES + 1];
void robust_fill_long_text(void);

/* Bad string number i for names, paths, defines and arches (NULL included);
 * ROBUST_BAD_STRING_END past the last. */
const char *robust_bad_string(int i);
#define ROBUST_BAD_STRING_END ((const char *)-1)

/* A small legal problem: 4 x 16 x 32, E4M3 in, BF16 out. */
w8a8_problem robust_good_problem(void);

#endif
