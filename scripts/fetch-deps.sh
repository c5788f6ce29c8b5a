#!/usr/bin/env bash
# Fetches the sources of the static dependencies into build/deps (or $1) so that the
# static-deps preset and the Python package link SQLite and Lua compiled position-independent
# into libw8a8jit.so (Debian's liblua5.4.a / libsqlite3.a are not PIC and cannot go into a
# shared library). The sources are the Debian archive's original tarballs, checked against
# their SHA-256; SQLite's amalgamation (sqlite3.c, sqlite3.h) is generated with tclsh.
#   build/deps/lua/src/*.c             Lua 5.4.4
#   build/deps/sqlite/sqlite3.{c,h}    SQLite 3.40.1
# Nothing is fetched when both are present. Carry build/deps to build on a host without
# network access (cmake/static_deps.cmake reads it).
set -euo pipefail
cd "$(dirname "$0")/.."
dest="${1:-build/deps}"
mirror="${W8A8_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
lua_tar=lua5.4_5.4.4.orig.tar.gz
lua_sha=164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61
sqlite_tar=sqlite3_3.40.1.orig.tar.xz
sqlite_sha=aaa776260ab4dc976db34aa7891819484c8676b5b2783123ebc6301e2ca5d655

if [ -f "$dest/lua/src/lapi.c" ] && [ -f "$dest/sqlite/sqlite3.c" ]; then
  exit 0
fi
mkdir -p "$dest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fetch() { # fetch POOL_PATH FILE SHA256
  echo "fetch-deps: $mirror/pool/main/$1/$2"
  curl -fsSL --retry 3 -o "$work/$2" "$mirror/pool/main/$1/$2"
  echo "$3  $work/$2" | sha256sum -c --quiet -
}

if [ ! -f "$dest/lua/src/lapi.c" ]; then
  fetch l/lua5.4 "$lua_tar" "$lua_sha"
  tar xzf "$work/$lua_tar" -C "$work"
  rm -rf "$dest/lua"
  mv "$work/lua-5.4.4" "$dest/lua"
fi

if [ ! -f "$dest/sqlite/sqlite3.c" ]; then
  command -v tclsh >/dev/null || { echo "fetch-deps: tclsh is needed (apt-get install tcl)" >&2; exit 1; }
  fetch s/sqlite3 "$sqlite_tar" "$sqlite_sha"
  tar xJf "$work/$sqlite_tar" -C "$work"
  mkdir -p "$work/sqlite3-3.40.1/bld"
  (cd "$work/sqlite3-3.40.1/bld" && ../configure --disable-tcl >/dev/null &&
     make -j"$(nproc)" sqlite3.c >/dev/null)
  mkdir -p "$dest/sqlite"
  cp "$work/sqlite3-3.40.1/bld/sqlite3.c" "$work/sqlite3-3.40.1/bld/sqlite3.h" "$dest/sqlite/"
fi
echo "fetch-deps: sources in $dest"
