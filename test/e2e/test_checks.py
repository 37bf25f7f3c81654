#!/usr/bin/env python3
"""Run-time checks: Gather/Scatter indices read at run time.

dlc's policy (docs/architecture.md, "Run-time checks"): an index outside
[-n, n) makes the run fail with DLC_ERROR_CHECK_FAILED and a message naming
the ONNX node; the access itself is clamped, so it never faults. Each case
runs one model twice through dlc-run: with good indices (compared with ONNX
Runtime) and with one bad index (must fail with the node's message).

    test_checks.py --bin-dir build/bin [--target cpu|cuda] [--cuda-form]
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
from harness import helper  # noqa: E402

F32, I64 = np.float32, np.int64


def cases():
    data = np.arange(20, dtype=F32).reshape(4, 5)
    upd = np.full((2, 5), -1, F32)
    return {
        # name: (op, attrs, inputs in order, good indices, bad indices)
        "gather": ("Gather", dict(axis=1), {"x": data},
                   np.array([4, -5, 0], I64), np.array([4, 5, 0], I64)),
        "gather_negative": ("Gather", dict(axis=0), {"x": data},
                            np.array([[-4, 3]], I64), np.array([[-5, 3]], I64)),
        "gather_elements": ("GatherElements", dict(axis=0), {"x": data},
                            np.array([[3, 0, -1, 2, 1]], I64),
                            np.array([[3, 0, 4, 2, 1]], I64)),
        "gather_nd": ("GatherND", {}, {"x": data},
                      np.array([[0, 4], [3, -1]], I64), np.array([[0, 4], [3, 5]], I64)),
        "scatter_elements": ("ScatterElements", dict(axis=0), {"x": data},
                             np.array([[1, 0, 3, 2, -1]], I64),
                             np.array([[1, 0, 3, -5, 2]], I64), {"u": upd[:1]}),
        "scatter_nd": ("ScatterND", {}, {"x": data},
                       np.array([[1], [3]], I64), np.array([[1], [4]], I64), {"u": upd}),
    }


def check_case(name, spec, d, dlc, args):
    op, attrs, feeds, good, bad = spec[:5]
    extra = spec[5] if len(spec) > 5 else {}
    node_name = f"{name}_node"
    inputs = list(feeds) + ["i"] + list(extra)
    node = helper.make_node(op, inputs, ["y"], name=node_name, **attrs)
    model = harness.make_model([node], {**feeds, "i": good, **extra}, ["y"], opset=16)
    path = d / "model.onnx"
    harness.onnx.save(model, path)
    ref = harness.run_ort(path, {**feeds, "i": good, **extra})

    so = d / "model.so"
    flags = ["--cuda-kernel-form"] if args.cuda_form else []
    dlc.compile(path, so, target=args.target, extra=flags)
    device = "cuda" if args.target == "cuda" else "cpu"

    for sub in ("good", "bad", "out"):
        (d / sub).mkdir()
    files = harness.save_inputs({**feeds, "i": good, **extra}, d / "good")
    try:
        got = dlc.run(so, files, d / "out", ["y"], device=device)
    except harness.Failure as e:
        if harness.is_no_cuda_error(str(e)):
            raise harness.NoDevice(str(e))
        raise
    harness.compare("y", got["y"], ref["y"])

    files = harness.save_inputs({**feeds, "i": bad, **extra}, d / "bad")
    cmd = [str(dlc.dlc_run), str(so), "--device", device, "--output-dir", str(d / "out")]
    for k, v in files.items():
        cmd += ["--input", f"{k}={v}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    want = f"{op} node '{node_name}': index out of range"
    if p.returncode == 0:
        raise harness.Failure(f"dlc-run accepted the out-of-range indices {bad.tolist()}")
    if want not in p.stderr:
        raise harness.Failure(f"dlc-run failed without naming the node: expected "
                              f"'{want}' in: {p.stderr.strip()}")


def main():
    p = harness.common_args(__doc__)
    p.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--cuda-form", action="store_true",
                   help="compile the CUDA kernel form for the host (--cuda-kernel-form)")
    args = p.parse_args()
    if args.target == "cuda":
        harness.skip_without_gpu()
    harness.require("onnxruntime")
    dlc = harness.Dlc(args.bin_dir)
    table = cases()
    results = harness.run_cases(list(table),
                                lambda n, d: check_case(n, table[n], d, dlc, args), args)
    return harness.finish("e2e-checks", results)


if __name__ == "__main__":
    sys.exit(main())
