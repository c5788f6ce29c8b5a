#!/usr/bin/env bash
# The layering check (scripts/check_layers.py): the repository follows the layer order, and a
# tree with an include against it (runtime → tuner, cache → dispatcher) is refused with the
# file and line named. CPU only.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
check="$here/scripts/check_layers.py"
command -v python3 >/dev/null || { echo "check_layers: no python3"; exit 77; }
fail=0
python3 "$check" "$here" || { echo "FAIL: the repository breaks the layer order"; fail=1; }

tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/{include,src/cli,templates/common,cache,tuner,dispatch}
echo '#include "internal.h"' > "$tree/cache/store.c"
printf '#include "internal.h"\n#include "tune.h"\n' > "$tree/src/context.c"
echo '#include "dispatch.h"' > "$tree/cache/keys.c"
touch "$tree/src/internal.h" "$tree/tuner/tune.h" "$tree/dispatch/dispatch.h"
out="$(python3 "$check" "$tree" 2>&1)"
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: a tree with upward includes gave exit $rc"; fail=1; }
for want in "src/context.c:2: includes tune.h (tuner" "cache/keys.c:1: includes dispatch.h (dispatcher"; do
  grep -qF "$want" <<<"$out" || { echo "FAIL: no '$want' in:"; echo "$out"; fail=1; }
done
[ $fail -eq 0 ] && echo "check_layers: ok"
exit $fail
