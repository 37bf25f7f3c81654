#!/usr/bin/env python3
"""Compile the model zoo with dlc and time it next to ONNX Runtime, in one run.

For each model of ../shared/models (weights restored deterministically), this
compiles with dlc (compile time measured), times the model.so with dlc-bench
(warm-up, then latency percentiles) and ONNX Runtime's CPU provider on the
same inputs with the same thread count, checks the outputs agree, and reports
the kernel counts and arena figures of --report-json. Prints one table and
writes it as JSON.

usage: bench_models.py [--build build] [--target cpu|cuda] [--threads N]
                       [--models resnet50,...] [--dlc-flag=--cpu=native]...
                       [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def restore(name, cache):
    out = cache / f"{name}.onnx"
    if not out.exists():
        subprocess.run([sys.executable, str(SHARED / "tools" / "fill_weights.py"),
                        str(SHARED / "models" / f"{name}.skel.onnx"), str(out)],
                       check=True, capture_output=True)
    return out


def time_ort(model, feeds, threads, min_time=1.0, warmup=5):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    sess = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    for _ in range(warmup):
        out = sess.run(None, feeds)
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < min_time or len(times) < 10:
        t = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times)), out


def arg_parser(doc, min_time):
    """The options bench_models.py and bench_ops.py share."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--min-time", type=float, default=min_time)
    ap.add_argument("--dlc-flag", action="append", default=[],
                    help="extra dlc option (repeatable), e.g. --dlc-flag=--cpu=native")
    ap.add_argument("--json")
    return ap


def main():
    ap = arg_parser(__doc__, min_time=2.0)
    ap.add_argument("--target", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--models", default="squeezenet1_1,mobilenet_v2,resnet50")
    args = ap.parse_args()
    bin_dir = Path(args.build) / "bin"
    cache = Path(args.build) / "bench"
    cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        ref = np.load(SHARED / "models" / f"{name}.ref.npz")
        feeds = {k[3:]: ref[k] for k in ref.files if k.startswith("in:")}
        model = restore(name, cache)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            so, report = tmp / "m.so", tmp / "report.json"
            t = time.perf_counter()
            subprocess.run([str(bin_dir / "dlc"), str(model), "-o", str(so),
                            f"--target={args.target}", f"--report-json={report}",
                            *args.dlc_flag], check=True)
            compile_s = time.perf_counter() - t
            rep = json.loads(report.read_text())
            inputs = []
            for k, v in feeds.items():
                np.save(tmp / f"{k}.npy", v)
                inputs += ["--input", f"{k}={tmp / (k + '.npy')}"]
            bench = json.loads(subprocess.run(
                [str(bin_dir / "dlc-bench"), str(so), "--json", "--min-time", str(args.min_time),
                 "--threads", str(args.threads), "--device", args.target, *inputs],
                check=True, capture_output=True, text=True).stdout)
            subprocess.run([str(bin_dir / "dlc-run"), str(so), "--output-dir", str(tmp / "out"),
                            "--device", args.target, *inputs], check=True, capture_output=True)
            ort_ms, ort_out = time_ort(model, feeds, args.threads, args.min_time)
            got = np.load(tmp / "out" / (ref.files[-1][4:] + ".npy"))
            want = ref[ref.files[-1]]
            err = float(np.abs(got - want).max() / max(1e-12, np.abs(want).max()))
        rows.append({
            "model": name, "target": args.target, "threads": args.threads,
            "dlc_flags": args.dlc_flag,
            "compile_s": round(compile_s, 2),
            "dlc_p50_ms": bench["latency_ms"]["p50"], "dlc_p90_ms": bench["latency_ms"]["p90"],
            "dlc_p99_ms": bench["latency_ms"]["p99"], "ort_p50_ms": round(ort_ms, 3),
            "dlc_vs_ort": round(ort_ms / bench["latency_ms"]["p50"], 3),
            "kernels": rep["kernel_count"], "arena_mib": round(rep["arena_bytes"] / 2**20, 2),
            "lower_bound_mib": round(rep["lower_bound_bytes"] / 2**20, 2),
            "naive_mib": round(rep["naive_bytes"] / 2**20, 2), "max_rel_err": err,
        })
    cols = ["model", "compile_s", "dlc_p50_ms", "dlc_p99_ms", "ort_p50_ms", "dlc_vs_ort",
            "kernels", "arena_mib", "lower_bound_mib", "naive_mib", "max_rel_err"]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(f"{r[c]:.3g}" if isinstance(r[c], float) else str(r[c]) for c in cols))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
