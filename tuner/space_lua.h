/* What the space files share (space_load.c, space.c, space_tables.c): the loaded space's
 * layout, the problem and device tables a script sees, and reading a problem back from a
 * script's table. */
#ifndef W8A8_SPACE_LUA_H
#define W8A8_SPACE_LUA_H

#include "sandbox.h"
#include "space.h"

/* Largest cross product a space may describe (sm90_gemm: 17,915,904; prune() drops most of
 * it before the walk). */
#define W8A8_SPACE_MAX_CONFIGS ((size_t)1 << 25)

enum { FN_APPLIES, FN_VALID, FN_RANK, FN_DEFAULT, FN_COMPILE_PROBLEMS, FN_PRUNE, FN_FITS, FN_COUNT };
/* "applies", "valid", … by FN_ index. */
extern const char *const space_function_names[FN_COUNT];

struct space {
    char name[64];
    char template_name[64];
    char arch[16];
    char file[W8A8_PATH_BYTES];
    char *source;
    size_t source_size;
    char *library;                  /* scripts/lib/gemm.lua's text, run before the chunk */
    size_t library_size;
    int table_line;                 /* where the returned table ends, for messages */
    int function_line[FN_COUNT];    /* 0: the script has no such function */
    int param_count;
    space_param params[W8A8_SPACE_MAX_PARAMS]; /* in enumeration order */
    size_t total;                   /* size of the cross product */
    int variant_count;              /* `variants`: launch arguments tried on the finalists */
    space_param variants[W8A8_SPACE_MAX_VARIANTS];
    struct space_memo *memo;        /* spaces with fits(): valid()'s answers (space.c) */
};

/* Inside a sandbox body: runs the library (the global `gemm`), then the space's chunk, whose
 * table is left at index 1 (sandbox_run_chunk). */
bool space_run_chunk(sandbox *sb, const space *s, int *last_line);

/* The memo of a space with fits() (space.c): made at load, freed with the space. */
struct space_memo *space_memo_create(void);
void space_memo_free(struct space_memo *memo);

/* Parses an NVRTC target "sm_80" / "sm_90a": cc = 10·major + minor, specific = the
 * trailing 'a' (space_load.c). */
bool space_parse_arch(const char *arch, int *cc, bool *specific);

/* Pushes a fresh table describing problem (the fields listed in space.h). */
void space_push_problem(lua_State *L, const w8a8_problem *problem);
/* Pushes a fresh table describing dev. */
void space_push_device(lua_State *L, const space_device *dev);
/* Reads the problem table at idx (as compile_problems returns them) into out, with the
 * defaults of space.h for absent fields. false with the failure recorded ("file:line:"
 * with `line`, the returning function's line) when a field is wrong; `what` names the item
 * ("compile_problems()[3]"). */
bool space_read_problem(sandbox *sb, int idx, int line, const char *what, w8a8_problem *out);

#endif
