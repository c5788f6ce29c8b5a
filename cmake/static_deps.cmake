# SQLite and Lua compiled from source, position-independent, for W8A8_STATIC_DEPS: linked
# into libw8a8jit.so (symbols kept private), the command and the tests, so that none of them
# needs the system's SQLite or Lua at run time (Debian's liblua5.4.a and libsqlite3.a are not
# PIC and cannot go into a shared library).
#
# Sources: W8A8_DEPS_DIR (default build/deps) as scripts/fetch-deps.sh leaves them
# (lua/src/*.c, sqlite/sqlite3.{c,h}); with W8A8_FETCH_DEPS the script is run when they are
# missing. Sets W8A8_DEPS_FROM_SOURCE, and when true the targets w8a8_sqlite3 and w8a8_lua
# and SQLITE3_INCLUDE_DIRS / LUA_INCLUDE_DIRS.
set(W8A8_DEPS_FROM_SOURCE OFF)
if(NOT EXISTS ${W8A8_DEPS_DIR}/lua/src/lapi.c OR NOT EXISTS ${W8A8_DEPS_DIR}/sqlite/sqlite3.c)
  if(W8A8_FETCH_DEPS)
    execute_process(COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/fetch-deps.sh ${W8A8_DEPS_DIR}
                    RESULT_VARIABLE w8a8_fetch_result)
    if(NOT w8a8_fetch_result EQUAL 0)
      message(FATAL_ERROR "scripts/fetch-deps.sh failed (${w8a8_fetch_result}): it needs "
        "network access to the Debian archive and tclsh; or carry a filled ${W8A8_DEPS_DIR}")
    endif()
  else()
    return()
  endif()
endif()
set(W8A8_DEPS_FROM_SOURCE ON)

set(w8a8_lua_dir ${W8A8_DEPS_DIR}/lua/src)
file(GLOB w8a8_lua_sources ${w8a8_lua_dir}/*.c)
list(REMOVE_ITEM w8a8_lua_sources ${w8a8_lua_dir}/lua.c ${w8a8_lua_dir}/luac.c)
add_library(w8a8_lua STATIC ${w8a8_lua_sources})
# POSIX but no dlopen: the sandbox never loads C modules.
target_compile_definitions(w8a8_lua PRIVATE LUA_USE_POSIX)
target_compile_options(w8a8_lua PRIVATE -w)
set_target_properties(w8a8_lua PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET default)
target_link_libraries(w8a8_lua PUBLIC m)

add_library(w8a8_sqlite3 STATIC ${W8A8_DEPS_DIR}/sqlite/sqlite3.c)
target_compile_definitions(w8a8_sqlite3 PRIVATE SQLITE_THREADSAFE=1 SQLITE_OMIT_LOAD_EXTENSION
  SQLITE_DQS=0)
target_compile_options(w8a8_sqlite3 PRIVATE -w)
set_target_properties(w8a8_sqlite3 PROPERTIES POSITION_INDEPENDENT_CODE ON
  C_VISIBILITY_PRESET default)
target_link_libraries(w8a8_sqlite3 PUBLIC Threads::Threads m)

# Headers in both layouts the code uses: <lua.h> and <lua5.4/lua.h>.
set(w8a8_lua_include ${PROJECT_BINARY_DIR}/deps-include)
foreach(header lua.h luaconf.h lualib.h lauxlib.h)
  configure_file(${w8a8_lua_dir}/${header} ${w8a8_lua_include}/${header} COPYONLY)
  configure_file(${w8a8_lua_dir}/${header} ${w8a8_lua_include}/lua5.4/${header} COPYONLY)
endforeach()
configure_file(${W8A8_DEPS_DIR}/sqlite/sqlite3.h ${w8a8_lua_include}/sqlite3.h COPYONLY)
set(SQLITE3_INCLUDE_DIRS ${w8a8_lua_include})
set(LUA_INCLUDE_DIRS ${w8a8_lua_include})
