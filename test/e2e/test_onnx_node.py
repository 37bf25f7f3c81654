#!/usr/bin/env python3
"""The ONNX backend node tests (onnx/backend/test/data/node) whose models use
only ops dlc supports: compile with dlc, run with dlc-run on
test_data_set_0/input_*.pb, compare with output_*.pb.

Tests listed in the expected-failures file (`name  # reason`) must fail; any
other failure, and any listed test that passes, fails the run.  Installed onnx
wheels may lack the data: it is then generated from onnx's own test-case
scripts into --cache-dir once per onnx version.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

def supported_ops(dlc_path):
    """(domain, op type) of the importer's own table (`dlc --print-op-table`),
    so every op dlc gains joins this suite without editing it: the default
    domain's table and ai.onnx.preview's (com.microsoft's has no node
    tests)."""
    out = subprocess.run([dlc_path, "--print-op-table"], check=True, capture_output=True,
                         text=True).stdout.split("\n## ")
    ops = set()
    for section in out:
        domain = ("" if section is out[0] else
                  "ai.onnx.preview" if section.startswith("ONNX's preview") else None)
        if domain is None:
            continue
        ops.update((domain, line.split("|")[1].strip()) for line in section.splitlines()
                   if line.startswith("| ") and not line.startswith(("| ONNX op", "| op ")))
    return frozenset(ops)


def supported(model, ops):
    return all(("" if n.domain == "ai.onnx" else n.domain, n.op_type) in ops
               for n in model.graph.node)


def installed_node_dir():
    d = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"
    return d if d.is_dir() and any(d.iterdir()) else None


def generate_node_data(cache_dir):
    """Write the node tests of the supported ops from onnx's test-case scripts
    (the layout of onnx/backend/test/data/node), once per onnx version."""
    out = Path(cache_dir) / f"onnx-{onnx.__version__}" / "node-all"
    if (out / ".complete").is_file():
        return out
    import onnx.backend.test.case.node as node_cases
    import warnings

    print(f"generating ONNX node test data into {out}", flush=True)
    tmp = out.with_name(f"node.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases()
    for case in cases:
        # All of them: which ones run is decided per run from dlc's op table.
        if not case.data_sets:
            continue
        d = tmp / case.name
        (d / "test_data_set_0").mkdir(parents=True)
        (d / "model.onnx").write_bytes(case.model.SerializeToString())
        inputs, outputs = case.data_sets[0]
        for kind, values, infos in (("input", inputs, case.model.graph.input),
                                    ("output", outputs, case.model.graph.output)):
            for j, (value, info) in enumerate(zip(values, infos)):
                (d / "test_data_set_0" / f"{kind}_{j}.pb").write_bytes(serialize(value, info))
    (tmp / ".complete").write_text(onnx.__version__ + "\n")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


def serialize(value, info):
    """A test value as onnx's generate-data writes it (tensor, sequence or optional)."""
    if isinstance(value, onnx.TensorProto):
        return value.SerializeToString()
    kind = info.type.WhichOneof("value")
    if kind == "sequence_type":
        return numpy_helper.from_list(value, info.name).SerializeToString()
    if kind == "optional_type":
        return numpy_helper.from_optional(value, info.name).SerializeToString()
    if kind == "map_type":
        return numpy_helper.from_dict(value, info.name).SerializeToString()
    return numpy_helper.from_array(np.asarray(value), info.name).SerializeToString()


def read_expected(path):
    """{test name: reason} from `name  # reason` lines."""
    expected = {}
    for line in Path(path).read_text().splitlines():
        name, _, reason = line.partition("#")
        name = name.strip()
        if name:
            expected[name] = reason.strip() or "(no reason given)"
    return expected


def write_expected(path, results, old):
    """Rewrite the list from this run: keep the reasons already there, mark
    new entries TODO with the first line of the error."""
    lines = [line for line in Path(path).read_text().splitlines() if line.startswith("#")]
    for r in sorted(results, key=lambda r: r.name):
        if r.status in ("FAIL", "XFAIL"):
            reason = old.get(r.name) or "TODO: " + harness.first_error(r.message, 160)
            lines.append(f"{r.name}  # {reason}")
    Path(path).write_text("\n".join(lines) + "\n")
    print(f"wrote {path}")


def load_tensor(path):
    t = onnx.TensorProto()
    t.ParseFromString(Path(path).read_bytes())
    return numpy_helper.to_array(t)


# Operand slots dlc needs constant at compile time, by op type: input index ->
# what it is.  Most fix a result shape (dlc compiles static shapes); the rest
# become attributes of the dlc op (Clip's bounds, Pad's constant_value,
# Dropout's training_mode) or fold into the requantize multiplier (the
# QLinear scales).  A test that feeds one of these from a graph input
# gets that input bound with `dlc --const-input NAME=input_J.pb` -- what a user
# of a model written this way does -- and the test's own value for it; every
# other input stays a run-time input.
_REDUCE_AXES = {1: "axes"}
CONST_OPERANDS = {
    **{op: _REDUCE_AXES for op in (
        "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
        "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare")},
    **{op: {0: "size"} for op in (
        "BlackmanWindow", "HammingWindow", "HannWindow")},
    "AffineGrid": {1: "size"},
    "CenterCropPad": {1: "shape"},
    "Clip": {1: "min", 2: "max"},
    "Col2Im": {1: "image_shape", 2: "block_shape"},
    "Compress": {1: "condition"},
    "ConstantOfShape": {0: "input (the shape)"},
    "CumProd": {1: "axis"},
    "CumSum": {1: "axis"},
    "DFT": {1: "dft_length", 2: "axis"},
    "Dropout": {2: "training_mode"},
    "Loop": {0: "M (the trip count)", 1: "cond"},
    "Expand": {1: "shape"},
    "MaxUnpool": {2: "output_shape"},
    "MelWeightMatrix": {0: "num_mel_bins", 1: "dft_length", 2: "sample_rate",
                        3: "lower_edge_hertz", 4: "upper_edge_hertz"},
    "OneHot": {1: "depth"},
    "QLinearConv": {1: "x_scale", 4: "w_scale", 6: "y_scale"},
    "QLinearMatMul": {1: "a_scale", 4: "b_scale", 6: "y_scale"},
    "Pad": {1: "pads", 2: "constant_value", 3: "axes"},
    "Range": {0: "start", 1: "limit", 2: "delta"},
    "Reshape": {1: "shape"},
    "Resize": {1: "roi", 2: "scales", 3: "sizes"},
    "Slice": {1: "starts", 2: "ends", 3: "axes", 4: "steps"},
    "Split": {1: "split"},
    "STFT": {1: "frame_step", 3: "frame_length"},
    "Squeeze": {1: "axes"},
    "TopK": {1: "K"},
    "Tile": {1: "repeats"},
    "Trilu": {1: "k"},
    "Unsqueeze": {1: "axes"},
    "Upsample": {1: "scales"},
}


# Ops whose result depends only on their input's (static) shape: tracing a
# constant operand back stops there.
SHAPE_ONLY_OPS = {"Shape", "Size"}


def all_nodes(graph):
    """The graph's nodes and, recursively, those of its nodes' subgraphs
    (If's branches, Loop's and Scan's bodies)."""
    for node in graph.node:
        yield node
        for attr in node.attribute:
            subgraphs = [attr.g] if attr.HasField("g") else list(attr.graphs)
            for g in subgraphs:
                yield from all_nodes(g)


def node_operands(node):
    """The values a node reads: its inputs and, for control flow, whatever
    its subgraphs read (outer values they use, their own values too)."""
    names = [i for i in node.input if i]
    for attr in node.attribute:
        subgraphs = [attr.g] if attr.HasField("g") else list(attr.graphs)
        for g in subgraphs:
            for inner in all_nodes(g):
                names.extend(i for i in inner.input if i)
    return names


def const_inputs(model, input_names):
    """The graph inputs whose values determine a CONST_OPERANDS slot of some
    node (in subgraphs too): feeding it directly, or through the ops that
    compute it (function expansions compute Range's limit or Pad's pads
    from an input, AffineGrid's an If's outputs from its size), but not
    through Shape/Size, which read only shapes."""
    nodes = list(all_nodes(model.graph))
    producers = {out: node for node in nodes for out in node.output}
    pending = [node.input[j] for node in nodes
               for j in CONST_OPERANDS.get(node.op_type, {})
               if j < len(node.input) and node.input[j]]
    names, seen = set(), set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        if value in input_names:
            names.add(value)
            continue
        node = producers.get(value)
        if node is not None and node.op_type not in SHAPE_ONLY_OPS:
            pending.extend(node_operands(node))
    return names


def static_shape(value_info):
    dims = value_info.type.tensor_type.shape.dim
    return all(d.HasField("dim_value") for d in dims)


def check_node_test(test_dir, work, dlc):
    model = onnx.load(test_dir / "model.onnx", load_external_data=False)
    data = test_dir / "test_data_set_0"
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    consts = const_inputs(model, {i.name for i in inputs})
    feeds, shapes, extra = {}, {}, []
    for j, info in enumerate(inputs):
        path = data / f"input_{j}.pb"
        if info.name in consts:
            extra.append(f"--const-input={info.name}={path}")
            continue
        feeds[info.name] = path
        if not static_shape(info):
            shapes[info.name] = load_tensor(path).shape
    dlc.compile(test_dir / "model.onnx", work / "model.so", target="cpu", input_shapes=shapes,
                extra=extra)
    names = [o.name for o in model.graph.output]
    got = dlc.run(work / "model.so", feeds, work / "out", names)
    for j, name in enumerate(names):
        harness.compare(name, got[name], load_tensor(data / f"output_{j}.pb"), rtol=1e-3, atol=1e-5)


def main():
    p = harness.common_args(__doc__)
    p.add_argument("--expected-failures", required=True, help="the list of tests expected to fail")
    p.add_argument("--data-dir", help="the node test folder (default: onnx's, else generated)")
    p.add_argument("--cache-dir", default=".", help="where to generate the data when onnx lacks it")
    p.add_argument("--update-expected", action="store_true",
                   help="rewrite --expected-failures from this run's failures")
    args = p.parse_args()
    dlc = harness.Dlc(args.bin_dir)

    data_dir = (Path(args.data_dir) if args.data_dir
                else installed_node_dir() or generate_node_data(args.cache_dir))
    ops = supported_ops(dlc.dlc)
    tests = {}
    for d in sorted(data_dir.glob("test_*")):
        if (d / "model.onnx").is_file() and supported(
                onnx.load(d / "model.onnx", load_external_data=False), ops):
            tests[d.name] = d
    expected = read_expected(args.expected_failures)
    print(f"onnx {onnx.__version__}: {len(tests)} node tests use only supported ops ({data_dir})")
    for name in sorted(set(expected) - set(tests)):
        print(f"warning: {name} is in {args.expected_failures} but not among the selected tests")

    def check(name, work):
        try:
            check_node_test(tests[name], work, dlc)
        except harness.Failure as e:
            if name in expected:
                raise harness.ExpectedFailure(f"{expected[name]} [{harness.first_error(str(e))}]")
            raise
        if name in expected:
            raise harness.UnexpectedPass(f"listed as expected to fail ({expected[name]}) but passed;"
                                         f" remove it from {Path(args.expected_failures).name}")

    results = harness.run_cases(list(tests), check, args)
    if args.update_expected:
        write_expected(args.expected_failures, results, expected)
    code = harness.finish(f"onnx-node (onnx {onnx.__version__})", results)
    return 0 if args.update_expected and code == 1 else code


if __name__ == "__main__":
    sys.exit(main())
