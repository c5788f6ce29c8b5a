#!/usr/bin/env python3
"""A tuning space narrowed to given parameter values, for timing chosen configs with
`w8a8 tune --space` (bench/sm80_ab.sh, bench/sm80_probe.sh).

    bench/narrow_space.py SPACE.lua NAME=V[/V...],... > narrowed.lua

Each NAME=V/V... replaces the values of that parameter in the space's `params` table; a name
the space does not declare is dropped (a space from before that parameter existed); every
parameter it declares must be given. Exit 0; 2 on bad arguments or a space without the
`params = { ... },` block (4-space indent) this project's spaces have."""
import re
import sys

BLOCK = re.compile(r"params = \{\n(.*?)\n    \},", re.S)


def narrow(text, spec):
    block = BLOCK.search(text)
    if not block:
        raise ValueError("no `params = { ... },` block")
    # a parameter's values: a table, or a name bound earlier in the script (`stages = STAGES,`)
    declared = re.findall(r"^\s+(\w+) = (?:\{|[A-Za-z_]\w*,)", block.group(1), re.M)
    values = dict(item.split("=", 1) for item in spec.split(","))
    missing = [name for name in declared if name not in values]
    if missing:
        raise ValueError("no values for %s" % ", ".join(missing))
    body = "".join("        %s = { %s },\n" % (name, ", ".join(values[name].split("/")))
                   for name in declared)
    return text[:block.start()] + "params = {\n" + body + "    }," + text[block.end():]


def main(argv):
    if len(argv) != 3 or "=" not in argv[2]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            sys.stdout.write(narrow(f.read(), argv[2]))
    except (OSError, ValueError) as e:
        print("narrow_space: %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
