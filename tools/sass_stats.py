#!/usr/bin/env python3
"""The machine code ptxas makes of dlc's PTX, counted per kernel, without a
GPU: ptxas assembles the PTX for --arch (sm_90a by default) and nvdisasm
(PyPI's nvidia-cuda-nvdisasm, requirements.txt) disassembles the cubin.
Counts are static (an instruction in a loop counts once), so they say what
a change does to a kernel's code, not its time: an int8 epilogue's
instructions per output element, the address arithmetic a gather issues,
what ptxas made of a new PTX idiom.

    sass_stats.py A.ptx                  every kernel: instructions, then
                                         the opcodes of those matching -k
    sass_stats.py A.ptx B.ptx            the kernels whose counts differ
                                         between two builds, and how

    -k REGEX      kernels to break down by opcode (default: none for one
                  file, the changed ones for two)
    --arch ARCH   ptxas -arch (default sm_90a)

A PTX file comes from `dlc MODEL --arch=sm_90a --emit=ptx -o A.ptx`.
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path


def find_tool(name: str) -> str | None:
    """`name` on PATH, under CUDA_HOME, or (nvdisasm) in the pip package."""
    found = shutil.which(name)
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root and (Path(root) / "bin" / name).is_file():
            return str(Path(root) / "bin" / name)
    site = Path(sysconfig.get_paths()["purelib"]) / "nvidia"
    installed = sorted(site.glob(f"cu*/bin/{name}"))
    return str(installed[0]) if installed else None


def disassemble(ptx: Path, arch: str) -> str:
    """The SASS text of `ptx`, assembled by ptxas for `arch`."""
    ptxas, nvdisasm = find_tool("ptxas"), find_tool("nvdisasm")
    if not ptxas or not nvdisasm:
        missing = " and ".join(n for n, t in (("ptxas", ptxas), ("nvdisasm", nvdisasm)) if not t)
        sys.exit(f"sass_stats: {missing} not found (nvdisasm: pip install -r requirements.txt)")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "k.cubin"
        p = subprocess.run([ptxas, f"-arch={arch}", str(ptx), "-o", str(cubin)],
                           capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"sass_stats: ptxas rejected {ptx}:\n{p.stderr.strip()}")
        p = subprocess.run([nvdisasm, str(cubin)], capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"sass_stats: nvdisasm failed on {ptx}:\n{p.stderr.strip()}")
        return p.stdout


def kernels(sass: str) -> dict[str, list[str]]:
    """Each kernel's instructions (the opcode with its modifiers, no
    predicate or operands), in the order nvdisasm prints them."""
    out: dict[str, list[str]] = collections.defaultdict(list)
    current = None
    for line in sass.splitlines():
        label = re.match(r"^\.text\.(\S+):", line)
        if label:
            current = label.group(1)
            continue
        if line.strip().startswith(".section"):
            current = None
            continue
        inst = re.match(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if inst and current:
            out[current].append(inst.group(1))
    return dict(out)


def opcode(inst: str) -> str:
    return inst.split(".")[0]


def mix(insts: list[str]) -> collections.Counter:
    return collections.Counter(opcode(i) for i in insts)


def show_mix(name: str, counts: collections.Counter, base: collections.Counter | None = None):
    total = sum(counts.values())
    if base is None:
        print(f"{name}: {total} instructions")
        print("  " + ", ".join(f"{op} {n}" for op, n in counts.most_common()))
        return
    before = sum(base.values())
    print(f"{name}: {before} -> {total} instructions ({total - before:+d})")
    moved = sorted(set(counts) | set(base), key=lambda op: (-abs(counts[op] - base[op]), op))
    print("  " + ", ".join(f"{op} {base[op]} -> {counts[op]}" for op in moved
                           if counts[op] != base[op]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ptx", type=Path, nargs="+", help="one PTX file, or two to compare")
    ap.add_argument("-k", "--kernels", help="regex of the kernels to break down by opcode")
    ap.add_argument("--arch", default="sm_90a")
    args = ap.parse_args()
    if len(args.ptx) > 2:
        ap.error("one PTX file, or two to compare")
    builds = [kernels(disassemble(p, args.arch)) for p in args.ptx]
    pick = re.compile(args.kernels) if args.kernels else None
    if len(builds) == 1:
        (only,) = builds
        for name, insts in only.items():
            print(f"{len(insts):7d}  {name}")
        for name, insts in only.items():
            if pick and pick.search(name):
                show_mix(name, mix(insts))
        return 0
    a, b = builds
    changed = 0
    for name in list(a) + [n for n in b if n not in a]:
        ca, cb = mix(a.get(name, [])), mix(b.get(name, []))
        if ca == cb or (pick and not pick.search(name)):
            continue
        changed += 1
        show_mix(name, cb, ca)
    print(f"{changed} of {len(set(a) | set(b))} kernels differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
