#!/usr/bin/env python3
"""Time single ONNX ops compiled by dlc next to ONNX Runtime, in one run.

The model zoo (bench_models.py) hides ops that a model fuses away or does
not have: a Softmax that is not inside an attention, a LayerNorm over many
rows, a reduction along a row, an elementwise op with a broadcast operand.
Each case here is a one-node model (onnx.helper, seeded inputs), compiled
with dlc, timed with dlc-bench and with ONNX Runtime on the same inputs and
thread count, its output checked against ONNX Runtime's. Prints one table
and writes it as JSON (`--json`).

usage: bench_ops.py [--build build] [--threads N] [--cases softmax,...]
                    [--dlc-flag=--cpu=native]... [--json out.json]
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_models import arg_parser, time_ort  # noqa: E402


def case(op, shape, attrs=None, consts=(), opset=18):
    """A one-node graph of `op` on an f32 input x of `shape`, then consts."""
    inits = [numpy_helper.from_array(v, f"c{i}") for i, v in enumerate(consts)]
    node = helper.make_node(op, ["x"] + [t.name for t in inits], ["y"],
                            **(attrs or {}))
    graph = helper.make_graph(
        [node], op, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10  # what ONNX Runtime's releases read
    return model, shape


def cases():
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    return {
        # bert_base's scores, a softmax not fused into an attention.
        "softmax": case("Softmax", [1, 12, 128, 128], {"axis": -1}),
        "softmax_axis1": case("Softmax", [12, 128, 128], {"axis": 1}),
        "log_softmax": case("LogSoftmax", [1, 12, 128, 128], {"axis": -1}),
        # bert_base's LayerNorm at batch 8.
        "layernorm_b8": case("LayerNormalization", [8, 128, 768], {"axis": -1},
                             [f32(768), f32(768)], opset=17),
        "reduce_sum_row": case("ReduceSum", [64, 64, 256], {"keepdims": 1},
                               [np.array([-1], np.int64)]),
        "reduce_max_row": case("ReduceMax", [64, 64, 256], {"keepdims": 1},
                               [np.array([-1], np.int64)]),
        # A per-row and a per-channel broadcast operand.
        "div_row": case("Div", [1536, 128], consts=[f32(1536, 1)]),
        "add_channel": case("Add", [8, 64, 56, 56], consts=[f32(1, 64, 1, 1)]),
        # resnet50's convolutions (weights and bias): 1x1 at each stage's
        # plane size, 3x3 on rows of 56 and 28.
        **{f"conv{k}x{k}_{c}to{o}_{hw}": case(
            "Conv", [1, c, hw, hw], {"pads": [k // 2] * 4},
            [f32(o, c, k, k) * np.float32((c * k * k) ** -0.5), f32(o)])
           for k, c, o, hw in [(1, 64, 256, 56), (1, 512, 128, 28),
                               (1, 1024, 256, 14), (1, 512, 2048, 7),
                               (3, 64, 64, 56), (3, 128, 128, 28)]},
    }


def main():
    ap = arg_parser(__doc__, min_time=1.0)
    ap.add_argument("--cases", help="comma-separated subset (default: all)")
    args = ap.parse_args()
    bin_dir = Path(args.build) / "bin"
    all_cases = cases()
    names = args.cases.split(",") if args.cases else list(all_cases)
    unknown = [n for n in names if n not in all_cases]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(all_cases)}")
    rows = []
    for name in names:
        model, shape = all_cases[name]
        x = (np.random.default_rng(1).standard_normal(shape) * 4).astype(np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            path, so, xin = tmp / "m.onnx", tmp / "m.so", tmp / "x.npy"
            onnx.save(model, path)
            np.save(xin, x)
            subprocess.run([str(bin_dir / "dlc"), str(path), "-o", str(so),
                            "--target=cpu", *args.dlc_flag], check=True)
            bench = json.loads(subprocess.run(
                [str(bin_dir / "dlc-bench"), str(so), "--json", "--min-time",
                 str(args.min_time), "--threads", str(args.threads),
                 "--input", f"x={xin}"],
                check=True, capture_output=True, text=True).stdout)
            subprocess.run([str(bin_dir / "dlc-run"), str(so), "--input", f"x={xin}",
                            "--output-dir", str(tmp / "out")], check=True,
                           capture_output=True)
            got = np.load(tmp / "out" / "y.npy")
            ort_ms, ort_out = time_ort(path, {"x": x}, args.threads, args.min_time)
            want = ort_out[0]
            err = float(np.abs(got - want).max() / max(1e-12, np.abs(want).max()))
        rows.append({
            "case": name, "shape": "x".join(map(str, shape)), "threads": args.threads,
            "dlc_flags": args.dlc_flag, "dlc_p50_ms": bench["latency_ms"]["p50"],
            "ort_p50_ms": round(ort_ms, 4),
            "dlc_vs_ort": round(ort_ms / bench["latency_ms"]["p50"], 3),
            "max_rel_err": err,
        })
    cols = ["case", "shape", "dlc_p50_ms", "ort_p50_ms", "dlc_vs_ort", "max_rel_err"]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(f"{r[c]:.3g}" if isinstance(r[c], float) else str(r[c])
                         for c in cols))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    bad = [r["case"] for r in rows if not r["max_rel_err"] < 1e-4]
    if bad:
        print(f"outputs differ from ONNX Runtime's: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
