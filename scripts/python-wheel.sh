#!/usr/bin/env bash
# Builds the Python package's wheel into build/py/dist (one py3 wheel: the binding is ctypes),
# for a GPU host that cannot build it (no network, no SQLite/Lua sources): carry build/py/dist
# and run scripts/gpu-python.sh there. Uses python/.venv when present (scripts/setup.sh
# --python creates it), else python3.
set -euo pipefail
cd "$(dirname "$0")/.."
py="${PYTHON:-python3}"
[ -x python/.venv/bin/python ] && py=python/.venv/bin/python
rm -f build/py/dist/w8a8jit-*.whl
"$py" -m pip wheel --no-deps --no-build-isolation -w build/py/dist ./python
ls -l build/py/dist
