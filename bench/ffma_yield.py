#!/usr/bin/env python3
"""Experiment (issue 11): set the yield hint on promotion FFMAs of stored cubins, in place.

The block-scaled main loop promotes each K block with long runs of FFMAs (`acc += s * tmp`).
While a warp issues such a run, the operand-reuse cache pins the scheduler to it. This script
finds every run of at least --min-run consecutive FFMAs in each kernel's SASS
(`cuobjdump -sass`), and in the first --fraction of each run, where an FFMA has the reuse flag
on its second source set, clears that flag and sets the yield bit of its control word. Both are
scheduling hints: the instruction's result cannot change. The kernel's .text section is found
by parsing the cubin's ELF section headers, so only the listed instructions are rewritten.

Usage: ffma_yield.py [--mode half|all] [--min-run 8] CUBIN...
The cubins are rewritten in place (the disk store's <sha>.cubin files: the runtime loads
them as stored). Prints per cubin: kernels, FFMA runs, instructions changed.
"""
import argparse
import re
import struct
import subprocess
import sys

REUSE_B = 1 << 59  # bit 123 of the instruction: reuse flag of the second source
YIELD = 1 << 45    # bit 109: the yield hint

INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\*\s*(0x[0-9a-f]{16})\s*\*/")
HIGH = re.compile(r"^\s*/\*\s*(0x[0-9a-f]{16})\s*\*/\s*$")


def sections(blob):
    """{name: (file offset, size)} from the ELF64 section headers."""
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
    heads = [struct.unpack_from("<IIQQQQ", blob, shoff + i * shentsize) for i in range(shnum)]
    stroff = heads[shstrndx][4]
    out = {}
    for name, _type, _flags, _addr, offset, size in heads:
        end = blob.index(b"\0", stroff + name)
        out[blob[stroff + name:end].decode()] = (offset, size)
    return out


def functions(sass):
    """Yield (function name, [(address, opcode, low, high)])."""
    name, insns, lines = None, [], sass.splitlines()
    for i, line in enumerate(lines):
        if "Function :" in line:
            if name:
                yield name, insns
            name, insns = line.split("Function :", 1)[1].strip(), []
            continue
        m = INSN.search(line)
        if not m or i + 1 >= len(lines):
            continue
        h = HIGH.match(lines[i + 1])
        if not h:
            continue
        text = m.group(2).split()
        op = next((t for t in text if not t.startswith("@")), "")
        insns.append((int(m.group(1), 16), op, int(m.group(3), 16), int(h.group(1), 16)))
    if name:
        yield name, insns


def patch(path, mode, min_run, fraction):
    blob = bytearray(open(path, "rb").read())
    if blob[:4] != b"\x7fELF":
        return "not an ELF file"
    sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True, check=True).stdout
    secs = sections(blob)
    kernels = runs = changed = 0
    lengths = {}
    for name, insns in functions(sass):
        sec = secs.get(".text." + name)
        if not sec:
            continue
        kernels += 1
        i = 0
        while i < len(insns):
            j = i
            while j < len(insns) and insns[j][1].startswith("FFMA"):
                j += 1
            if j - i >= min_run:
                runs += 1
                lengths[j - i] = lengths.get(j - i, 0) + 1
                count = j - i if mode == "all" else int((j - i) * fraction)
                for addr, _op, low, high in insns[i:i + count]:
                    if not high & REUSE_B:
                        continue
                    at = sec[0] + addr
                    assert struct.unpack_from("<QQ", blob, at) == (low, high), (path, name, hex(addr))
                    struct.pack_into("<Q", blob, at + 8, (high & ~REUSE_B) | YIELD)
                    changed += 1
            i = max(j, i + 1)
    open(path, "wb").write(blob)
    hist = " ".join(f"{n}x{c}" for n, c in sorted(lengths.items()))
    return f"kernels {kernels} runs {runs} changed {changed} run lengths {hist}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["half", "all"], default="half")
    ap.add_argument("--min-run", type=int, default=8)
    ap.add_argument("--fraction", type=float, default=9 / 16)
    ap.add_argument("cubins", nargs="+")
    args = ap.parse_args()
    for path in args.cubins:
        print(path, patch(path, args.mode, args.min_run, args.fraction))
    return 0


if __name__ == "__main__":
    sys.exit(main())
