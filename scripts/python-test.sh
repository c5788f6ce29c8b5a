#!/usr/bin/env bash
# The Python package's tests on this machine: installs ./python into python/.venv (scikit-build-
# core builds the library with static SQLite/Lua; scripts/setup.sh with W8A8_SETUP_PYTHON=1
# makes the venv) and runs pytest from outside the source tree. GPU tests report themselves
# skipped without a device. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=python/.venv
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
  "$venv/bin/pip" install -q --no-deps --no-build-isolation --force-reinstall ./python
root="$PWD"
cd /tmp && "$root/$venv/bin/pytest" -q -rs "$root/python/tests" "$@"
