#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer above its own.

The library's layers, bottom up (a file may include its own layer's headers and those below):
  0  runtime and kernel families  src/ (context, driver, JIT and cubin store, validation,
                                  problem keys; the families' host code), templates/common/
  1  cache                        cache/
  2  tuner                        tuner/ (spaces, timing, the autotuner; uses the cache)
  3  dispatcher                   dispatch/ (cache → space default → reference; tunes on miss)
  4  command                      src/cli/
include/ (the public header) is below everything. The runtime reaches the layers above only
through function pointers they register on the context (src/internal.h).

usage: scripts/check_layers.py [ROOT]     (ROOT: the repository, default this script's parent)
Prints every offending include as FILE:LINE and exits 1 if any, else prints a summary, exits 0.
"""
import os
import re
import sys

# (folder relative to the root, layer); the longest matching folder decides a file's layer
LAYERS = [
    ("include", -1),
    ("src", 0),
    ("templates/common", 0),
    ("cache", 1),
    ("tuner", 2),
    ("dispatch", 3),
    ("src/cli", 4),
]
NAMES = {-1: "public header", 0: "runtime", 1: "cache", 2: "tuner", 3: "dispatcher", 4: "command"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    best = None
    for folder, layer in LAYERS:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best[0]):
                best = (folder, layer)
    return best


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help")):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    root = os.path.abspath(sys.argv[1] if len(sys.argv) == 2 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    headers = {}  # header name → (folder, layer); a name in two folders is ambiguous
    files = []
    for folder, layer in LAYERS:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            print(f"check_layers: no folder {base}", file=sys.stderr)
            return 2
        for name in sorted(os.listdir(base)):
            path = os.path.join(base, name)
            if not os.path.isfile(path) or not name.endswith((".c", ".h", ".cuh")):
                continue
            files.append((os.path.relpath(path, root), layer))
            if name.endswith((".h", ".cuh")):
                headers.setdefault(name, []).append((folder, layer))
    bad = []
    checked = 0
    for rel, layer in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = os.path.basename(m.group(1))
                owners = headers.get(name)
                if not owners:
                    continue  # generated or outside the library (e.g. embedded.h's table)
                checked += 1
                here = os.path.dirname(rel)
                owner = next((o for o in owners if o[0] == here), owners[0])
                if owner[1] > layer:
                    bad.append(f"{rel}:{number}: includes {m.group(1)} ({NAMES[owner[1]]}, "
                               f"{owner[0]}/) from the {NAMES[layer]} layer below it")
    for line in bad:
        print(line)
    if bad:
        print(f"check_layers: {len(bad)} include(s) against the layer order", file=sys.stderr)
        return 1
    print(f"check_layers: {checked} includes in {len(files)} files follow the layer order "
          "(runtime → cache → tuner → dispatcher → command)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
