/* The Lua sandbox that tuning spaces run in (sandbox.c): one fresh lua_State per evaluation,
 * only the base, string, table and math libraries (without load, loadfile, dofile,
 * collectgarbage, print, warn, string.dump, string patterns, table.move, math.random and __gc
 * metamethods), text chunks only, a memory cap enforced by the allocator, and an instruction
 * budget and a time limit per script call enforced by a count hook. Every failure becomes
 * a message "file:line: what" kept in the sandbox, which sandbox_protect turns into
 * W8A8_SCRIPT_ERROR on the context.
 *
 * Discipline: every Lua API call that may allocate runs inside sandbox_protect (a lua_pcall
 * of a C function), so an allocation failure can never reach Lua's panic handler (abort). */
#ifndef W8A8_SANDBOX_H
#define W8A8_SANDBOX_H

#include <lua.h>

#include "internal.h"

/* The heap a script may keep alive; crossing it stops the script at its next instruction. */
#define W8A8_SANDBOX_MEMORY_CAP ((size_t)32 << 20)
/* No single allocation may take the heap past this (it fails; Lua reports out of memory). */
#define W8A8_SANDBOX_MEMORY_HARD_CAP ((size_t)64 << 20)
/* Lua VM instructions one script call (the chunk, or one valid()/rank()/… call) may run. */
#define W8A8_SANDBOX_INSTRUCTION_BUDGET 10000000ull
/* Wall-clock time one script call may take (checked by the count hook). */
#define W8A8_SANDBOX_TIME_LIMIT_MS 2000
/* Instructions between two runs of the count hook. */
#define W8A8_SANDBOX_HOOK_INTERVAL 1000

typedef struct sandbox {
    lua_State *L;
    const char *file;       /* borrowed: the script's file name, for messages */
    char short_src[LUA_IDSIZE]; /* how Lua abbreviates file in its own messages */
    size_t used;            /* bytes the state holds */
    bool over_cap;          /* used crossed W8A8_SANDBOX_MEMORY_CAP; the hook checks */
    bool refused;           /* an allocation past W8A8_SANDBOX_MEMORY_HARD_CAP was refused */
    int refused_line;       /* the script's line at the first refusal, 0 if unknown */
    int hook_interval;      /* the count the hook is installed with now */
    uint64_t instructions;  /* run by the current call */
    uint64_t budget;
    double deadline;        /* util_now() after which the current call is stopped */
    int sample_line;        /* a line the current call was seen on by the hook, 0 if none */
    int spent;              /* the call ran out of budget or memory: the hook raises again */
    bool failed;
    char message[W8A8_ERRMSG_BYTES];
} sandbox;

/* A C function run protected inside the sandbox; it reports failures with sandbox_fail (or
 * the false of sandbox_call/sandbox_run_chunk) and returns. */
typedef void (*sandbox_body)(sandbox *sb, void *ud);

/* Creates a fresh state for script `file` (borrowed; must outlive the sandbox). Returns
 * W8A8_OK, W8A8_NO_MEMORY or W8A8_SCRIPT_ERROR. Close with sandbox_close even on failure. */
w8a8_status sandbox_open(w8a8_context *ctx, sandbox *sb, const char *file);
void sandbox_close(sandbox *sb);

/* Runs body(sb, ud) under lua_pcall. Returns W8A8_OK, or W8A8_SCRIPT_ERROR with the
 * message the body recorded (sandbox_fail) or the error that escaped it. */
w8a8_status sandbox_protect(w8a8_context *ctx, sandbox *sb, sandbox_body body, void *ud);

/* Inside a body: loads `text` as a text chunk named "@file" and runs it with a fresh budget,
 * leaving its first result on the stack. Bytecode is refused. false (with the message
 * recorded) on failure. last_line (optional OUT) gets the chunk's last line holding code
 * (where its returned table ends), for messages about that table. */
bool sandbox_run_chunk(sandbox *sb, const char *text, size_t size, int *last_line);
/* Runs a library chunk (messages name it `name`) and stores what it returns in the global
 * `global`. Same failures as sandbox_run_chunk. */
bool sandbox_run_library(sandbox *sb, const char *name, const char *global, const char *text,
                         size_t size);

/* Inside a body: calls the function below nargs arguments on the stack with a fresh budget
 * and the sandbox's message handler, leaving nresults results. On failure records
 * "file:line: message (context)" and returns false; `fallback_line` is used when the error
 * carries no line (a memory error). */
bool sandbox_call(sandbox *sb, int nargs, int nresults, int fallback_line, const char *context);

/* sandbox_call whose context `describe(user, out, size)` writes only when the call fails: the
 * hot loops (valid() and rank() of every config) format no message for calls that succeed. */
typedef void (*sandbox_describe)(const void *user, char *out, size_t size);
bool sandbox_call_described(sandbox *sb, int nargs, int nresults, int fallback_line,
                            sandbox_describe describe, const void *user);

/* Records "file:line: message" (line 0: "file: message") as the failure; returns false. */
bool sandbox_fail(sandbox *sb, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The line a Lua function at stack index idx was defined on (0 if not a Lua function). */
int sandbox_function_line(lua_State *L, int idx);

#endif
