/* What the space files share about the Lua side (space.c, space_tables.c): the problem and
 * device tables a script sees, and reading a problem back from a script's table. */
#ifndef W8A8_SPACE_LUA_H
#define W8A8_SPACE_LUA_H

#include "sandbox.h"
#include "space.h"

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
