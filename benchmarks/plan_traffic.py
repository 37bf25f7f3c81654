#!/usr/bin/env python3
"""Activation traffic between the kernels of a compiled plan.

    dlc MODEL.onnx --target=cpu --emit=mlir --stage=plan -o plan.mlir
    python3 benchmarks/plan_traffic.py plan.mlir [-v]

Reads the model function of the plan: every arena buffer (memref.alloc;
expand/collapse_shape and other views count as their source) and the kernel
calls taking it. A buffer taken by two or more kernels crosses a kernel
boundary; its traffic is its size times the kernels taking it (one write,
each other kernel a read). Buffers taken by one kernel are that kernel's
intermediates and cost no traffic. Model inputs, outputs and weights are
not counted (they are the same whatever the plan). Prints the kernel count,
the crossing bytes and the traffic by element type; -v lists the buffers.
"""
import re
import sys
from collections import defaultdict
from math import prod

BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i8": 1, "i1": 1}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    if len(args) != 1:
        sys.exit(__doc__)
    text = open(args[0]).read()
    main_fn = text[text.index("func.func @main"):]
    root, size, elt = {}, {}, {}
    users = defaultdict(set)
    for line in main_fn.splitlines():
        m = re.match(r"\s*(%[\w]+) = memref\.alloc\(\).*: memref<((?:\d+x)*)(\w+)>", line)
        if m:
            v = m.group(1)
            root[v] = v
            dims = [int(d) for d in m.group(2).split("x") if d]
            size[v] = prod(dims) * BYTES[m.group(3)]
            elt[v] = m.group(3)
            continue
        m = re.match(r"\s*(%[\w]+) = memref\.\w+ (%[\w]+)", line)
        if m and m.group(2) in root:
            root[m.group(1)] = root[m.group(2)]
            continue
        m = re.match(r"\s*call @(\w+)\(([^)]*)\)", line)
        if m:
            for a in m.group(2).split(","):
                if a.strip() in root:
                    users[root[a.strip()]].add(m.group(1))
    crossing = {v: k for v, k in users.items() if len(k) >= 2}
    by_type = defaultdict(int)
    for v, k in crossing.items():
        by_type[elt[v]] += size[v] * len(k)
    kernels = set().union(*users.values()) if users else set()
    print(f"kernels {len(kernels)}, buffers {len(size)}, crossing kernels {len(crossing)} "
          f"({sum(size[v] for v in crossing)} B), traffic {sum(by_type.values())} B ("
          + ", ".join(f"{t} {b}" for t, b in sorted(by_type.items())) + ")")
    if "-v" in sys.argv:
        for v, k in crossing.items():
            print(f"  {v}: {size[v]} B {elt[v]}, {' '.join(sorted(k))}")


if __name__ == "__main__":
    main()
