#!/usr/bin/env python3
"""Compare model.so builds kernel by kernel on a noisy machine.

Runs `dlc-bench --steps` on each model.so in turn, for several interleaved
rounds, and keeps each kernel's least time over the rounds: on a shared host
whose speed drifts between rounds (20-30% in 2026-12 on a 2-core VM, an
unchanged kernel included), the sum of those minimums was the only figure
that ordered builds the same way twice. Prints, for each build, that sum and
its kernel count; with two builds, the kernels (by ONNX node name, the
kernel number stripped) whose minimums moved the most.

usage: compare_steps.py A.so [B.so ...] [--rounds 5] [--threads 1]
                        [--min-time 0.5] [--bin build/bin] [--top 12]
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEP = re.compile(r"([\d.]+) ms\s+[\d.]+%\s+step\s+\d+\s+(k\d+_\S+)")


def steps(bench, so, threads, min_time):
    """Each kernel's time (ms) in one `dlc-bench --steps` run of `so`."""
    out = subprocess.run(
        [str(bench), str(so), "--threads", str(threads), "--min-time",
         str(min_time), "--steps", "100000"],
        capture_output=True, text=True, check=True).stdout
    return {m.group(2): float(m.group(1)) for m in map(STEP.search, out.splitlines()) if m}


def by_node(times):
    """Kernel times summed by name without the kernel number (k12_ -> ''),
    so that builds with different kernel numbering line up."""
    out = {}
    for kernel, t in times.items():
        name = re.sub(r"^k\d+_", "", kernel)
        out[name] = out.get(name, 0.0) + t
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+", type=Path)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--min-time", type=float, default=0.5)
    p.add_argument("--bin", type=Path, default=ROOT / "build" / "bin")
    p.add_argument("--top", type=int, default=12)
    args = p.parse_args()
    bench = args.bin / "dlc-bench"
    if not bench.exists():
        sys.exit(f"compare_steps: {bench} not found (build first, or --bin)")
    best = {so: {} for so in args.models}
    for _ in range(args.rounds):
        for so in args.models:
            for kernel, t in steps(bench, so, args.threads, args.min_time).items():
                if t < best[so].get(kernel, float("inf")):
                    best[so][kernel] = t
    for so in args.models:
        print(f"{so}: {sum(best[so].values()):.3f} ms, sum of {len(best[so])} kernels' "
              f"minimums over {args.rounds} rounds")
    if len(args.models) == 2:
        a, b = (by_node(best[so]) for so in args.models)
        moved = sorted(set(a) | set(b), key=lambda k: b.get(k, 0.0) - a.get(k, 0.0))
        shown = moved[:args.top] + moved[-args.top:] if len(moved) > 2 * args.top else moved
        for name in shown:
            d = b.get(name, 0.0) - a.get(name, 0.0)
            print(f"  {d:+8.3f}  {a.get(name, 0.0):8.3f} -> {b.get(name, 0.0):8.3f}  {name}")


if __name__ == "__main__":
    main()
