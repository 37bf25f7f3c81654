#!/usr/bin/env python3
"""Builds of one model with different dlc options, side by side: compiled in
parallel, then each timed (dlc-bench --resident unless --host-copies, p50) and run once on the
same random inputs, its outputs compared with those of the first variant of
the same --precision (options that only change the schedule give the same
int8 outputs to the bit, and f16 ones within rounding). Made for a device
call, where compiling variants one after another (bench_pytorch.py's
--variant) spends most of the time.

    gpu_variants.py --bin DIR --model M.onnx --out DIR [--common FLAGS]
                    [--jobs N] [--min-time S] [--steps N] NAME=FLAGS...

FLAGS are split like a shell line (no quoting). Of the variants naming a
--calibration-cache, the first compiles before the others (which read it).
A variant whose model.so is byte-identical to an earlier one's (an option
that changes nothing in that model) is not run: it is reported as the same
build, and the device time goes to the others. --compile-only stops after
the compiles (no GPU needed: dlc runs ptxas on every kernel), so that a
session's variants can be checked on the development machine first: which
fail to compile, and which are the same build as another.
Writes DIR/variants.json (after each variant, so that a part cut short keeps
what it measured) and prints a table: compile seconds, p50 ms, speedup over
the precision's first variant, and max|out - ref| / max|ref| against it,
then for each variant the kernels whose step times (--steps) moved most
against its reference. A dlc-run or dlc-bench that outlasts --run-timeout (a
kernel that hangs: a wrong mbarrier count waits forever) is killed and its
variant marked failed, so one bad schedule costs a device call that much and
no more.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx

NP_TYPES = {1: np.float32, 10: np.float16, 7: np.int64, 6: np.int32, 9: np.bool_}


def model_inputs(path: Path, out: Path) -> list[str]:
    """One random sample per graph input (seed 0), saved as NAME.npy; the
    --input arguments of dlc-run and dlc-bench."""
    m = onnx.load(str(path), load_external_data=False)
    init = {i.name for i in m.graph.initializer}
    rng = np.random.default_rng(0)
    args = []
    out.mkdir(parents=True, exist_ok=True)
    for i in m.graph.input:
        if i.name in init:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        if any(s <= 0 for s in shape):
            sys.exit(f"gpu_variants: input {i.name} has a dynamic shape {shape}")
        dtype = NP_TYPES.get(t.elem_type)
        if dtype is None:
            sys.exit(f"gpu_variants: input {i.name} has unsupported element type {t.elem_type}")
        if np.issubdtype(dtype, np.integer):
            value = rng.integers(0, 100, size=shape).astype(dtype)
        else:
            value = rng.standard_normal(shape).astype(dtype)
        file = out / (i.name.replace("/", "_").replace(":", "_") + ".npy")
        np.save(file, value)
        args += ["--input", f"{i.name}={file}"]
    return args


def precision(flags: list[str]) -> str:
    for f in flags:
        if f.startswith("--precision="):
            return f.split("=", 1)[1]
    return "fp32"


def compile_variant(bin_dir: Path, model: Path, out: Path, name: str, flags: list[str]):
    so = out / f"{name}.so"
    cmd = [str(bin_dir / "dlc"), str(model), *flags, "-o", str(so)]
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if p.returncode != 0:
        return name, None, seconds, (p.stderr or p.stdout).strip()[-2000:]
    return name, so, seconds, ""


def run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(
            cmd, 124, "", f"{Path(cmd[0]).name} timed out after {timeout:g} s (a hang?)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", type=Path, required=True, help="directory of dlc, dlc-run, dlc-bench")
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--common", default="", help="dlc flags of every variant")
    ap.add_argument("--jobs", type=int, default=4, help="compiles at once")
    ap.add_argument("--min-time", type=float, default=1.0, help="dlc-bench --min-time")
    ap.add_argument("--steps", type=int, default=0, help="dlc-bench --steps (0: none)")
    ap.add_argument("--device", default="auto", help="dlc-bench/dlc-run --device")
    ap.add_argument("--run-timeout", type=float, default=120,
                    help="seconds a dlc-run or dlc-bench of one variant may take")
    ap.add_argument("--host-copies", action="store_true",
                    help="time with the host copies (without dlc-bench --resident; host models)")
    ap.add_argument("--compile-only", action="store_true",
                    help="compile the variants and report; run nothing")
    ap.add_argument("variants", nargs="+", help="NAME=FLAGS")
    args = ap.parse_args()

    variants: dict[str, list[str]] = {}
    for v in args.variants:
        name, sep, flags = v.partition("=")
        if not sep or not name.replace("-", "").replace("_", "").isalnum():
            ap.error(f"variant '{v}' is not NAME=FLAGS (NAME: letters, digits, '-', '_')")
        if name in variants:
            ap.error(f"variant '{name}' given twice")
        variants[name] = args.common.split() + flags.split()
    args.out.mkdir(parents=True, exist_ok=True)
    inputs = model_inputs(args.model, args.out / "inputs")

    built: dict[str, dict] = {}

    def record(result):
        name, so, seconds, error = result
        built[name] = {"flags": variants[name], "compile_s": round(seconds, 1),
                       "so": str(so) if so else None, "error": error}
        print(f"[gpu_variants] {name}: compiled in {seconds:.1f} s"
              + (f", FAILED: {error.splitlines()[-1] if error else ''}" if error else ""),
              flush=True)

    # Variants sharing a --calibration-cache: the first calibrates and
    # writes it alone, the others then read it instead of calibrating too.
    first = next((n for n, f in variants.items()
                  if any(x.startswith("--calibration-cache=") for x in f)), None)
    if first:
        record(compile_variant(args.bin, args.model, args.out, first, variants[first]))
    with cf.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(compile_variant, args.bin, args.model, args.out, n, f)
                   for n, f in variants.items() if n != first]
        for fut in cf.as_completed(futures):
            record(fut.result())

    # Byte-identical builds: the first of each is run, the others name it.
    first_of: dict[str, str] = {}
    for name in variants:
        r = built[name]
        if r["so"]:
            digest = hashlib.sha256(Path(r["so"]).read_bytes()).hexdigest()
            first = first_of.setdefault(digest, name)
            if first != name:
                r["same_as"] = first
    device = ["--device", args.device]
    refs: dict[str, str] = {}
    save = lambda: (args.out / "variants.json").write_text(json.dumps(built, indent=1))
    save()
    if args.compile_only:
        print_compiles(built, variants)
        return 1 if any(r["error"] for r in built.values()) else 0
    for name in variants:
        r = built[name]
        if not r["so"] or "same_as" in r:
            continue
        outdir = args.out / f"{name}.out"
        p = run([str(args.bin / "dlc-run"), r["so"], *inputs, *device, "--output-dir", str(outdir)],
                args.run_timeout)
        if p.returncode != 0:
            r["error"] = (p.stderr or p.stdout).strip()[-2000:]
            print(f"[gpu_variants] {name}: dlc-run failed: {r['error']}", flush=True)
            continue
        bench = [str(args.bin / "dlc-bench"), r["so"], *inputs, *device, "--json",
                 "--min-time", str(args.min_time)]
        if not args.host_copies:
            bench.append("--resident")
        if args.steps:
            bench += ["--steps", str(args.steps)]
        p = run(bench, args.run_timeout)
        if p.returncode != 0:
            r["error"] = (p.stderr or p.stdout).strip()[-2000:]
            print(f"[gpu_variants] {name}: dlc-bench failed: {r['error']}", flush=True)
            continue
        report = json.loads(p.stdout)
        r["p50_ms"] = report["latency_ms"]["p50"]
        if "steps" in report:
            r["steps_total_ms"] = report.get("steps_total_ms")
            r["top_steps"] = report["steps"]
        prec = precision(r["flags"])
        ref = refs.setdefault(prec, name)
        r["ref"] = ref
        if ref != name:
            base = built[ref]
            r["speedup"] = base["p50_ms"] / r["p50_ms"]
            err = 0.0
            for f in sorted((args.out / f"{ref}.out").glob("*.npy")):
                a = np.load(f).astype(np.float64)
                b = np.load(outdir / f.name).astype(np.float64)
                if a.shape != b.shape:
                    err = float("inf")
                    break
                err = max(err, float(np.max(np.abs(a - b))) / max(float(np.max(np.abs(a))), 1e-30))
            r["rel_diff"] = err
        print(f"[gpu_variants] {name}: p50 {r['p50_ms']:.4f} ms", flush=True)
        save()

    save()
    print("| variant | flags | compile_s | p50_ms | vs ref | rel diff vs ref |")
    print("|---|---|---|---|---|---|")
    for name in variants:
        r = built[name]
        flags = shown_flags(r)
        if "same_as" in r:
            print(f"| {name} | {flags} | {r['compile_s']} | same build as {r['same_as']} | | |")
            continue
        if "p50_ms" not in r:
            print(f"| {name} | {flags} | {r['compile_s']} | failed | | |")
            continue
        vs = f"{r['speedup']:.3f}x" if "speedup" in r else "ref"
        diff = f"{r['rel_diff']:.2e}" if "rel_diff" in r else ""
        print(f"| {name} | {flags} | {r['compile_s']} | {r['p50_ms']:.4f} | {vs} | {diff} |")
    print_step_changes(built, variants)
    return 1 if any(not r.get("p50_ms") and "same_as" not in r for r in built.values()) else 0


def shown_flags(r: dict) -> str:
    """A variant's flags for the tables, without the --calibrate directory."""
    return " ".join(f for f in r["flags"] if not f.startswith("--calibrate="))


def print_compiles(built: dict, variants: dict):
    """--compile-only: each variant's compile, failure or identical build."""
    print("| variant | flags | compile_s | build |")
    print("|---|---|---|---|")
    for name in variants:
        r = built[name]
        flags = shown_flags(r)
        if r["error"]:
            status = "FAILED: " + r["error"].splitlines()[-1][:120]
        elif "same_as" in r:
            status = f"same as {r['same_as']}"
        else:
            status = "ok"
        print(f"| {name} | {flags} | {r['compile_s']} | {status} |")


def step_changes(ref_steps: list[dict], steps: list[dict], count: int) -> list[tuple]:
    """The `count` kernels whose step time moved most between two --steps
    lists (by kernel name; a kernel missing from one side counts 0 there):
    (name, ref ms, ms), largest |change| first."""
    def totals(rows):
        t: dict[str, float] = {}
        for s in rows:
            t[s["name"]] = t.get(s["name"], 0.0) + s["ms"]
        return t
    a, b = totals(ref_steps), totals(steps)
    rows = [(n, a.get(n, 0.0), b.get(n, 0.0)) for n in set(a) | set(b)]
    rows.sort(key=lambda x: (-abs(x[2] - x[1]), x[0]))
    return rows[:count]


def print_step_changes(built: dict, variants: dict, count: int = 8):
    """Per variant with step times: the kernels that moved most against its
    reference, so a log shows where a schedule won or lost."""
    for name in variants:
        r = built[name]
        ref = built.get(r.get("ref", name), {})
        if name == r.get("ref", name) or not r.get("top_steps") or not ref.get("top_steps"):
            continue
        print(f"{name} vs {r['ref']}, the kernels that moved most (ms):")
        for kernel, before, after in step_changes(ref["top_steps"], r["top_steps"], count):
            print(f"  {kernel:48} {before:8.4f} -> {after:8.4f} ({after - before:+.4f})")


if __name__ == "__main__":
    sys.exit(main())
