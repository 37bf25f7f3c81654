#!/usr/bin/env python3
"""Writes the hostile-model corpus: malformed or absurd ONNX files that dlc
must reject with a clear error (or accept, where a documented policy says
so) without crashing.

Usage: make_corpus.py OUT_DIR

Writes OUT_DIR/<name>.onnx for every entry and OUT_DIR/manifest.json, a list
of {name, file, args, check, compile} where `check` and `compile` are
[policy, text]: policy "reject" wants exit 1 and an "error:" line
containing text; "accept" wants exit 0 (and text, when non-empty, somewhere
in stderr, e.g. a warning). Everything is deterministic: same bytes on
every run.
"""

import json
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

IR_VERSION = 8
INT64_MAX = 2**63 - 1

ENTRIES = []


def add(name, data, expect, compile_expect=None, args=(), policy="reject",
        compile_policy=None, compile=True, xfail=None):
    """Registers one corpus entry. `expect` is the text wanted from
    `dlc --check`; the full compile wants `compile_expect` (default: the
    same). compile=False runs only --check (nothing more to learn)."""
    if isinstance(data, onnx.ModelProto):
        data = data.SerializeToString()
    entry = {
        "name": name,
        "file": name + ".onnx",
        "args": list(args),
        "check": [policy, expect],
    }
    if compile:
        entry["compile"] = [compile_policy or policy,
                            expect if compile_expect is None else compile_expect]
    if xfail:
        # "MODE: known issue": a clean exit 1 with another message is
        # tolerated in MODE; a crash or sanitizer report still fails.
        mode, reason = xfail.split(": ", 1)
        entry["xfail"] = {mode: reason}
    ENTRIES.append((entry, data))


def vi(name, dtype=T.FLOAT, shape=(2, 3)):
    return h.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=17, opsets=None,
          ir_version=IR_VERSION):
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    opset_imports = opsets if opsets is not None else [h.make_opsetid("", opset)]
    m = h.make_model(graph, opset_imports=opset_imports)
    m.ir_version = ir_version
    return m


def relu_model(opset=17):
    return model([h.make_node("Relu", ["x"], ["y"])], [vi("x")], [vi("y")],
                 opset=opset)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def tensor(name, dtype, dims, raw=None, floats=None, strings=None):
    """A TensorProto built field by field: onnx.helper refuses bad sizes."""
    t = T()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    if raw is not None:
        t.raw_data = raw
    if floats is not None:
        t.float_data.extend(floats)
    if strings is not None:
        t.string_data.extend(strings)
    return t


def ints(name, values):
    return const(name, np.array(values, dtype=np.int64))


# --- Bytes that are not a ModelProto ------------------------------------------

PARSE = "cannot parse"


def gen_bytes():
    add("empty-file", b"", "the model has no graph")
    rng = random.Random(1234)
    add("random-bytes", bytes(rng.randrange(256) for _ in range(4096)), PARSE)
    # A real model with weights, truncated at several points.
    w = np.arange(64, dtype=np.float32).reshape(8, 8)
    full = model([h.make_node("MatMul", ["x", "w"], ["y"])],
                 [vi("x", shape=(2, 8))], [vi("y", shape=(2, 8))],
                 [const("w", w)]).SerializeToString()
    for cut in (1, 7, len(full) // 2, len(full) - 1):
        data = full[:cut]
        try:
            onnx.ModelProto.FromString(data)
            raise SystemExit(f"truncation at {cut} still parses; pick another")
        except onnx.onnx_cpp2py_export.checker.ValidationError:  # pragma: no cover
            raise
        except Exception:
            pass
        add(f"truncated-{cut}", data, PARSE)
    # ir_version (field 1, the first byte 0x08) followed by an 11-byte varint:
    # protobuf caps varints at 10 bytes.
    assert full[0] == 0x08
    add("overlong-varint", b"\x08" + b"\xff" * 10 + b"\x01" + full[2:], PARSE)
    # The graph field's tag (field 7, length-delimited: 0x3a) turned into
    # wire type 7, which does not exist.
    i = full.index(b"\x3a")
    add("bad-wire-type", full[:i] + b"\x3f" + full[i + 1:], PARSE)
    # The graph's length prefix made larger than the file.
    add("length-past-end", full[:i + 1] + b"\xff\xff\xff\x07" + full[i + 2:],
        PARSE)
    # Tag 0 is invalid in protobuf.
    add("field-zero", b"\x00\x00" + full, PARSE)


# --- Tensors --------------------------------------------------------------------


def init_model(t, shape=(2, 3)):
    """y = x + t: the initializer is used, so it is converted."""
    return model([h.make_node("Add", ["x", t.name], ["y"])], [vi("x", shape=shape)],
                 [vi("y", shape=shape)], [t])


def gen_tensors():
    t = tensor("w", T.FLOAT, [2, 3], raw=b"\0" * 20)
    add("raw-data-short", init_model(t), "raw_data has 20 bytes, expected 24")
    t = tensor("w", T.FLOAT, [2, 3], raw=b"\0" * 28)
    add("raw-data-long", init_model(t), "raw_data has 28 bytes, expected 24")
    t = tensor("w", T.FLOAT, [2, 3], floats=[1.0, 2.0, 3.0])
    add("float-data-count", init_model(t), "has 3 values, expected 6")
    t = tensor("w", T.FLOAT, [2, -3])
    add("negative-dims", init_model(t), "invalid dims")
    t = tensor("w", T.FLOAT, [2**32, 2**32, 2])
    add("dims-overflow-int64", init_model(t), "invalid dims")
    t = tensor("w", T.FLOAT, [2**20, 2**20])
    add("absurd-size-no-data", init_model(t, shape=(2**20, 2**20)),
        "has 0 values, expected 1099511627776")
    t = tensor("w", T.FLOAT, [2, 3])
    t.ClearField("name")
    add("initializer-no-name", init_model(t), "an initializer has no name")
    t = tensor("w", T.FLOAT, [2, 3])
    t.data_location = T.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = "location", "../../../../etc/passwd"
    add("external-data-outside", init_model(t), "external data is not supported")
    t = tensor("w", T.STRING, [2], strings=[b"a", b"b"])
    add("string-initializer", init_model(t, shape=(2,)),
        "unsupported dtype 'string'")
    t = tensor("w", 1000, [2, 3])
    add("unknown-dtype", init_model(t), "unsupported dtype 'dtype 1000'")


# --- Inputs, outputs, shapes -------------------------------------------------


def gen_shapes():
    m = model([h.make_node("Relu", ["x"], ["y"])], [vi("x", T.STRING, (2,))],
              [vi("y", T.STRING, (2,))])
    add("string-input", m, "input 'x' has unsupported dtype 'string'")
    m = model([h.make_node("Relu", ["x"], ["y"])], [vi("x", shape=None)],
              [vi("y", shape=None)])
    add("unknown-rank-input", m, "input 'x' has an unknown rank")
    m = model([h.make_node("Relu", ["x"], ["y"])], [vi("x", shape=("N", 3))],
              [vi("y", shape=("N", 3))])
    add("dynamic-dim-input", m, "input 'x' has dynamic dim 0 ('N')")
    m = model([h.make_node("Relu", ["x"], ["y"])], [vi("x", shape=("N", "M"))],
              [vi("y", shape=("N", "M"))])
    add("huge-input-shape", m, "is too large (more than 2^48 bytes)",
        args=["--input-shape", f"x={2**40}x{2**40}"])
    add("huge-input-shape-static",
        model([h.make_node("Relu", ["x"], ["y"])],
              [vi("x", shape=(2**62, 2**62))], [vi("y", shape=(2**62, 2**62))]),
        "is too large (more than 2^48 bytes)")
    # 4 TiB: legal for the importer; the compile must not overflow.
    add("large-input-shape", m, "", policy="accept",
        args=["--input-shape", f"x={2**20}x{2**20}"])
    add("input-shape-unknown-name", relu_model(),
        "--input-shape names 'nope', which is not an input",
        args=["--input-shape", "nope=2x3"])
    add("input-shape-wrong-rank", relu_model(), "--input-shape x has rank 3",
        args=["--input-shape", "x=2x3x4"])
    add("input-shape-negative", relu_model(), "dims must be positive",
        args=["--input-shape", "x=2x-3"])
    add("graph-without-outputs",
        model([h.make_node("Relu", ["x"], ["y"])], [vi("x")], []),
        "the graph has no outputs")
    add("graph-empty", model([], [], []), "the graph has no outputs")
    add("output-not-produced", model([], [vi("x")], [vi("y")]),
        "graph output 'y' is not defined")
    m = model([h.make_node("Relu", ["x"], ["y"]),
               h.make_node("Relu", ["x"], ["y"])], [vi("x")], [vi("y")])
    add("duplicate-output-names", m, "output 'y' redefines an existing value")
    m = model([h.make_node("Relu", ["x"], ["x"])], [vi("x")], [vi("x")])
    add("node-redefines-input", m, "output 'x' redefines an existing value")
    m = model([h.make_node("Relu", ["missing"], ["y"])], [vi("x")], [vi("y")])
    add("missing-input", m, "input 'missing' is not defined")
    m = model([h.make_node("Relu", ["b"], ["a"]),
               h.make_node("Relu", ["a"], ["b"])], [vi("x")], [vi("a")])
    add("cycle", m, "is produced by a later node")
    m = model([h.make_node("Relu", ["a"], ["a"])], [vi("x")], [vi("a")])
    add("self-loop", m, "is produced by a later node")


# --- Opsets and domains ---------------------------------------------------------


def gen_opsets():
    m = model([h.make_node("Relu", ["x"], ["y"], domain="com.evil")],
              [vi("x")], [vi("y")],
              opsets=[h.make_opsetid("", 17), h.make_opsetid("com.evil", 1)])
    add("unknown-domain", m, "unknown domain 'com.evil'")
    add("opset-99", relu_model(opset=99), "opset 99 is newer", policy="accept")
    add("opset-3", relu_model(opset=3), "opset 3 is not supported")
    add("no-opset-import",
        model([h.make_node("Relu", ["x"], ["y"])], [vi("x")], [vi("y")],
              opsets=[]), "imports no version of the default ONNX domain")
    add("opset-negative", relu_model(opset=-5), "opset -5 is not supported")
    add("opset-huge", relu_model(opset=2**62), "is newer", policy="accept")
    m = model([h.make_node("NoSuchOp", ["x"], ["y"])], [vi("x")], [vi("y")])
    add("unknown-operator", m, "unsupported operator")
    cond = vi("c", T.BOOL, ())
    branch = h.make_graph([h.make_node("Identity", ["x"], ["z"])], "b", [],
                          [vi("z")])
    m = model([h.make_node("If", ["c"], ["y"], then_branch=branch,
                           else_branch=branch)], [vi("x"), cond], [vi("y")])
    # Control flow imports inline: a run-time cond selects between the
    # branches; loops unroll, so hostile trip counts and bodies are errors.
    add("subgraph-if", m, "", policy="accept")
    bad = h.make_graph([h.make_node("Identity", ["nope"], ["z"])], "b", [], [vi("z")])
    m = model([h.make_node("If", ["c"], ["y"], then_branch=bad, else_branch=branch)],
              [vi("x"), cond], [vi("y")])
    add("subgraph-undefined-name", m, "input 'nope' is not defined")
    body = h.make_graph([h.make_node("Identity", ["v"], ["v2"]),
                         h.make_node("Identity", ["cond_in"], ["cond_out"])],
                        "body", [vi("i", T.INT64, ()), vi("cond_in", T.BOOL, ()),
                                 vi("v")], [vi("cond_out", T.BOOL, ()), vi("v2")])
    m = model([h.make_node("Loop", ["n", "", "x"], ["y"], body=body)],
              [vi("x"), vi("n", T.INT64, ())], [vi("y")])
    add("subgraph-loop", m, "(Loop, opset 17): the trip count M must be a constant")
    m = model([h.make_node("Loop", ["n", "", "x"], ["y"], body=body)], [vi("x")],
              [vi("y")], inits=[const("n", np.array(2**62, np.int64))])
    add("subgraph-loop-huge-trip-count", m, "too many to unroll")
    m = model([h.make_node("Loop", ["n", "", "x"], ["y"], body=body)], [vi("x")],
              [vi("y")], inits=[const("n", np.array(-7, np.int64))])
    add("subgraph-loop-negative-trip-count", m, "", policy="accept")
    m = model([h.make_node("Loop", ["n", ""], ["y"], body=body)], [vi("x")],
              [vi("y")], inits=[const("n", np.array(3, np.int64))])
    add("subgraph-loop-body-arity", m, "has 3 inputs, expected 2")
    m = model([h.make_node("Scan", ["x"], ["y"], body=body, num_scan_inputs=1)],
              [vi("x")], [vi("y")])
    add("subgraph-scan-body-arity", m, "has 3 inputs, expected 1")
    # Recurrent ops with empty or mismatched weights.
    m = model([h.make_node("LSTM", ["x3", "w", "r"], ["y"])],
              [vi("x3", T.FLOAT, (2, 1, 3)), vi("w", T.FLOAT, (1, 0, 3)),
               vi("r", T.FLOAT, (1, 0, 0))], [vi("y", T.FLOAT, None)])
    add("lstm-empty-weights", m, "X and W must be non-empty")
    m = model([h.make_node("GRU", ["x3", "w", "r"], ["y"], hidden_size=2**40)],
              [vi("x3", T.FLOAT, (2, 1, 3)), vi("w", T.FLOAT, (1, 6, 3)),
               vi("r", T.FLOAT, (1, 6, 2))], [vi("y", T.FLOAT, None)])
    add("gru-hidden-size-mismatch", m, "hidden_size is 1099511627776 but W has 3 * 2 rows")
    # Signal and scatter operators: lengths and windows that would
    # overflow the importer's arithmetic or build huge constants.
    i64 = lambda n, v: const(n, np.array(v, np.int64))  # noqa: E731
    m = model([h.make_node("DFT", ["x3", "len"], ["y"], axis=1)],
              [vi("x3", T.FLOAT, (1, 8, 1))], [vi("y", T.FLOAT, None)],
              inits=[i64("len", 2**62)])
    add("dft-huge-length", m, "larger than dlc builds")
    m = model([h.make_node("HannWindow", ["n"], ["y"])], [vi("x")], [vi("y", T.FLOAT, None)],
              inits=[i64("n", 2**40)])
    add("window-huge-size", m, "size must be in [1, 16777216]")
    m = model([h.make_node("STFT", ["x3", "step", "", "len"], ["y"])],
              [vi("x3", T.FLOAT, (1, 40000, 1))], [vi("y", T.FLOAT, None)],
              inits=[i64("step", 1), i64("len", 20000)])
    add("stft-too-many-frames", m, "more than dlc gathers")
    m = model([h.make_node("MelWeightMatrix", ["m", "len", "rate", "lo", "hi"], ["y"])],
              [vi("x")], [vi("y", T.FLOAT, None)],
              inits=[i64("m", 8), i64("len", 64), i64("rate", 16000),
                     const("lo", np.array(0, np.float32)), const("hi", np.array(1e30, np.float32))])
    add("mel-huge-upper-edge", m, "maps past the last of the 33 spectrogram bins")
    m = model([h.make_node("Col2Im", ["c", "img", "blk"], ["y"])],
              [vi("c", T.FLOAT, (1, 8, 4))], [vi("y", T.FLOAT, None)],
              inits=[i64("img", [2**40, 2**40]), i64("blk", [2**40, 2**40])])
    add("col2im-huge-block", m, "image_shape and block_shape must be in [1, 2^31]")
    m = model([h.make_node("Col2Im", ["c", "img", "blk"], ["y"], strides=[2**30, 2**30])],
              [vi("c", T.FLOAT, (1, 8, 4))], [vi("y", T.FLOAT, None)],
              inits=[i64("img", [2**31, 2**31]), i64("blk", [2, 2])])
    add("col2im-huge-image", m, "the image is too large")
    m = model([h.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2],
                           strides=[2**31, 2**31])],
              [vi("x", T.FLOAT, (1, 1, 4096, 4096)), vi("i", T.INT64, (1, 1, 4096, 4096))],
              [vi("y", T.FLOAT, None)])
    add("maxunpool-huge-strides", m, "the unpooled shape is too large")
    m = model([h.make_node("AffineGrid", ["theta", "size"], ["y"])],
              [vi("theta", T.FLOAT, (1, 2, 3))], [vi("y", T.FLOAT, None)],
              inits=[i64("size", [1, 1, 2**40, 2**40])])
    add("affinegrid-huge-size", m, "more than 2^24 points")
    # Attention-like and box operators: sequences too long to unroll,
    # intermediates past 2^48 bytes, gathers past 2^31 elements.
    m = model([h.make_node("LinearAttention", ["q", "q", "q"], ["y"], q_num_heads=1,
                           kv_num_heads=1, update_rule="linear")],
              [vi("q", T.FLOAT, (1, 2**40, 1))], [vi("y", T.FLOAT, None)], opset=27,
              ir_version=11)
    add("linear-attention-2p40-steps", m, "steps, more than the 4096 dlc unrolls")
    q4 = vi("q", T.FLOAT, (1, 1, 2**24, 1))
    m = model([h.make_node("FlexAttention", ["q", "q", "q"], ["y"], domain="ai.onnx.preview")],
              [q4], [vi("y", T.FLOAT, None)], ir_version=11,
              opsets=[h.make_opsetid("", 26), h.make_opsetid("ai.onnx.preview", 1)])
    add("flex-attention-huge-scores", m, "is too large (more than 2^48 bytes)")
    m = model([h.make_node("RoiAlign", ["x", "rois", "i"], ["y"], sampling_ratio=64,
                           output_height=4096, output_width=4096)],
              [vi("x", T.FLOAT, (1, 2**40, 1, 1)), vi("rois", T.FLOAT, (2**40, 4)),
               vi("i", T.INT64, (2**40,))], [vi("y", T.FLOAT, None)], opset=16)
    add("roialign-huge-gather", m, "more than 2^31")
    m = model([h.make_node("DeformConv", ["x", "w", "off"], ["y"],
                           kernel_shape=[2**30, 2**30])],
              [vi("x", T.FLOAT, (1, 1, 4, 4)), vi("w", T.FLOAT, (1, 1, 2, 2)),
               vi("off", T.FLOAT, (1, 8, 3, 3))], [vi("y", T.FLOAT, None)], opset=19)
    add("deformconv-huge-kernel", m, "must be 2 values in [1, 2^20]")
    m = model([h.make_node("Cast", ["w2"], ["y"], to=T.FLOAT)], [], [vi("y", T.FLOAT, None)],
              [tensor("w2", 26, [5], raw=bytes([0x1b]))], opset=21, ir_version=11)
    add("int2-initializer-short", m, "has 1 bytes of packed 2-bit values, expected 2")
    m = model([h.make_node("Cast", ["i4"], ["y"], to=T.FLOAT)],
              [vi("i4", 22, (2**40, 2**10))], [vi("y", T.FLOAT, None)], opset=21,
              ir_version=11)
    add("int4-input-huge", m, "is too large (more than 2^48 bytes)")
    f8zp = tensor("zp", 17, [1], raw=bytes([0x38]))
    m = model([h.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"])],
              [vi("x")], [vi("y", 17, None)], [const("s", np.array(0.5, np.float32)), f8zp],
              opset=21, ir_version=9)
    add("float8-nonzero-zero-point", m, "a float8 zero point must be 0")
    # ONNX Runtime's contrib domain: its quantized operators import, the
    # rest are errors; hostile operands of the quantized ones too.
    ms = [h.make_opsetid("", 17), h.make_opsetid("com.microsoft", 1)]
    m = model([h.make_node("BeamSearch", ["x", "x"], ["y"], domain="com.microsoft")],
              [vi("x")], [vi("y")], opsets=ms)
    add("microsoft-unknown-op", m, "unsupported operator in domain 'com.microsoft'")
    s = const("s", np.array(0.1, np.float32))
    z = const("z", np.array(3, np.uint8))
    u8 = lambda n, shape: vi(n, T.UINT8, shape)  # noqa: E731
    m = model([h.make_node("QLinearConcat", ["s", "z"] + ["a", "s", "z"] * 4000 + ["a"],
                           ["y"], axis=0, domain="com.microsoft")],
              [u8("a", (2, 3))], [u8("y", None)], [s, z], opsets=ms)
    add("microsoft-qlinearconcat-4000-inputs", m, "triple per input")
    m = model([h.make_node("QLinearAdd", ["a", "s", "z", "b", "s", "z", "s", "z"], ["y"],
                           domain="com.microsoft")],
              [u8("a", (2, 3)), u8("b", (4, 5))], [u8("y", None)], [s, z], opsets=ms)
    add("microsoft-qlinearadd-broadcast", m, "(QLinearAdd, opset 17)")
    m = model([h.make_node("QGemm", ["a", "s", "z", "a", "s", "z"], ["y"],
                           domain="com.microsoft")],
              [u8("a", (3,))], [vi("y", T.FLOAT, None)], [s, z], opsets=ms)
    add("microsoft-qgemm-1d", m, "must be 2-D")
    w = const("w", np.zeros((3, 9), np.float32))
    m = model([h.make_node("Attention", ["x3", "w"], ["y"], domain="com.microsoft",
                           num_heads=0)],
              [vi("x3", T.FLOAT, (1, 2, 3))], [vi("y", T.FLOAT, None)], [w], opsets=ms)
    add("microsoft-attention-no-heads", m, "must be positive and divide the hidden size")
    m = model([h.make_node("MultiHeadAttention", ["q", "k", "k"], ["y"],
                           domain="com.microsoft", num_heads=1)],
              [vi("q", T.FLOAT, (1, 2, 4)), vi("k", T.FLOAT, (2, 3, 4))],
              [vi("y", T.FLOAT, None)], opsets=ms)
    add("microsoft-mha-batch-mismatch", m, "must be f32 [B, S, D]")
    b = const("b", np.zeros((2, 1, 8), np.uint8))
    sc = const("sc", np.ones(2, np.float32))
    m = model([h.make_node("MatMulNBits", ["x", "b", "sc"], ["y"], domain="com.microsoft",
                           K=2**40, N=2, bits=4, block_size=16)],
              [vi("x")], [vi("y", T.FLOAT, None)], [b, sc], opsets=ms)
    add("microsoft-matmulnbits-huge-k", m, "must be f32 with last dim K")


# --- Operators ------------------------------------------------------------------


def op_model(nodes, inputs, outputs, inits=()):
    return model(nodes, inputs, outputs, inits)


def gen_ops():
    # Gather with constant out-of-range indices on a constant: folding must
    # not read out of bounds; the documented policy clamps at run time.
    m = op_model([h.make_node("Gather", ["d", "i"], ["g"]),
                  h.make_node("Add", ["x", "g"], ["y"])],
                 [vi("x", shape=(1,))], [vi("y", shape=(1,))],
                 [const("d", np.array([1, 2, 3, 4], np.float32)),
                  ints("i", [1000])])
    add("gather-const-index-1000", m, "", policy="accept")
    m = op_model([h.make_node("Gather", ["d", "i"], ["g"]),
                  h.make_node("Add", ["x", "g"], ["y"])],
                 [vi("x", shape=(1,))], [vi("y", shape=(1,))],
                 [const("d", np.array([1, 2, 3, 4], np.float32)),
                  ints("i", [-(2**63)])])
    add("gather-const-index-int64-min", m, "", policy="accept")
    m = op_model([h.make_node("Gather", ["x", "i"], ["y"], axis=5)],
                 [vi("x")], [vi("y")], [ints("i", [0])])
    add("gather-axis-out-of-range", m, "axis 5 is out of range for rank 2")
    x6 = vi("x")

    def reshape(shape, out_shape=(6,)):
        return op_model([h.make_node("Reshape", ["x", "s"], ["y"])], [x6],
                        [vi("y", shape=out_shape)], [ints("s", shape)])
    add("reshape-negative-dim", reshape([-2, 3]), "has invalid dim -2")
    add("reshape-two-minus-one", reshape([-1, -1]), "has more than one -1")
    add("reshape-count-mismatch", reshape([4, 2]), "cannot reshape")
    add("reshape-product-overflow", reshape([2**62, 2**62, 2**62]),
        "cannot reshape")
    add("reshape-zero-past-rank", reshape([2, 3, 0]), "copies dim 2 (0)")
    add("reshape-minus-one-overflow", reshape([-1, 2**62, 2**62]),
        "cannot reshape")
    m = op_model([h.make_node("Concat", ["x", "z"], ["y"], axis=0)],
                 [vi("x"), vi("z", shape=(2, 3, 4))], [vi("y")])
    add("concat-rank-mismatch", m, "Concat")
    m = op_model([h.make_node("Concat", ["x", "x"], ["y"], axis=0.5)],
                 [vi("x")], [vi("y")])
    add("attr-wrong-type", m, "attribute 'axis' must be an int")

    def conv(w_shape, **attrs):
        return op_model([h.make_node("Conv", ["x", "w"], ["y"], **attrs)],
                        [vi("x", shape=(1, 3, 8, 8))],
                        [vi("y", shape=None)],
                        [const("w", np.zeros(w_shape, np.float32))])
    add("conv-channel-mismatch", conv((4, 5, 3, 3)), "channel")
    add("conv-zero-stride", conv((4, 3, 3, 3), strides=[0, 0]), "stride")
    add("conv-negative-pads", conv((4, 3, 3, 3), pads=[-5, -5, -5, -5]), "pad")
    add("conv-group-zero", conv((4, 3, 3, 3), group=0), "group")
    add("conv-kernel-too-big", conv((4, 3, 30, 30)),
        "the kernel window 30 (dilated) is larger than the padded input 8")
    add("conv-huge-pads", conv((4, 3, 3, 3), pads=[2**62] * 4),
        "pads of spatial dim 0 are too large")
    add("conv-huge-dilation", conv((4, 3, 3, 3), dilations=[2**62, 1]),
        "are too large")
    add("conv-huge-stride", conv((4, 3, 3, 3), strides=[2**62, 2**62]), "",
        policy="accept")
    add("conv-zero-dilation", conv((4, 3, 3, 3), dilations=[0, 0]), "dilation")
    m = op_model([h.make_node("MaxPool", ["x"], ["y"], kernel_shape=[20, 20])],
                 [vi("x", shape=(1, 3, 8, 8))], [vi("y", shape=None)])
    add("maxpool-kernel-too-big", m, "is larger than the padded input")
    m = op_model([h.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                              ceil_mode=1, strides=[2**62, 2**62])],
                 [vi("x", shape=(1, 3, 8, 8))], [vi("y", shape=None)])
    add("avgpool-huge-stride-ceil", m, "", policy="accept")
    m = op_model([h.make_node("MaxPool", ["x"], ["y"], kernel_shape=[0, 0])],
                 [vi("x", shape=(1, 3, 8, 8))], [vi("y", shape=None)])
    add("maxpool-kernel-zero", m, "kernel")
    m = op_model([h.make_node("Transpose", ["x"], ["y"], perm=[0, 0])],
                 [vi("x")], [vi("y")])
    add("transpose-perm-duplicate", m, "perm")
    m = op_model([h.make_node("Transpose", ["x"], ["y"], perm=[0, 7])],
                 [vi("x")], [vi("y")])
    add("transpose-perm-out-of-range", m, "perm")

    def slice_model(starts, ends, axes, steps):
        return op_model([h.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])],
                        [vi("x")], [vi("y", shape=None)],
                        [ints("s", starts), ints("e", ends), ints("a", axes),
                         ints("t", steps)])
    add("slice-step-zero", slice_model([0], [2], [0], [0]),
        "steps must be non-zero")
    add("slice-extreme-bounds",
        slice_model([2**63 - 1], [-(2**63)], [1], [-(2**63)]), "",
        policy="accept")
    # Empty result of a backward slice: compiles to an empty output.
    add("slice-empty-negative-step", slice_model([0], [2], [1], [-3]), "",
        policy="accept")
    m = op_model([h.make_node("Split", ["x", "s"], ["a", "b"], axis=1)],
                 [vi("x")], [vi("a", shape=None), vi("b", shape=None)],
                 [ints("s", [1, 1])])
    add("split-sizes-not-summing", m, "split")
    m = op_model([h.make_node("Split", ["x"], ["a", "b"], axis=1,
                              num_outputs=0)],
                 [vi("x")], [vi("a", shape=None)])
    m.opset_import[0].version = 18
    add("split-num-outputs-zero", m, "")
    m = op_model([h.make_node("Relu", ["x"] * 10000, ["y"])], [vi("x")],
                 [vi("y")])
    add("node-10000-inputs", m, "expected 1 input, got 10000")
    m = op_model([h.make_node("Sum", ["x"] * 10000, ["y"])], [vi("x")],
                 [vi("y")])
    # Imports in 0.1 s; the full compile of the 9999-op chain does not finish
    # in 10 minutes (stuck "lowering to kernels"): a pass-side performance
    # issue, so only --check runs here.
    add("sum-10000-inputs", m, "", policy="accept", compile=False)
    nodes = [h.make_node("Relu", ["x" if i == 0 else f"r{i - 1}"], [f"r{i}"])
             for i in range(5000)]
    m = op_model(nodes, [vi("x")], [vi("r4999")])
    add("relu-chain-5000", m, "", policy="accept")
    add("constant-no-value",
        op_model([h.make_node("Constant", [], ["y"])], [vi("x")], [vi("y")]),
        "expected exactly one attribute")
    c = h.make_node("Constant", [], ["c"])
    c.attribute.append(h.make_attribute("value", 1.5))
    add("constant-value-not-tensor",
        op_model([c, h.make_node("Add", ["x", "c"], ["y"])], [vi("x")],
                 [vi("y")]), "attribute 'value' must be a tensor")
    m = op_model([h.make_node("ConstantOfShape", ["s"], ["c"]),
                  h.make_node("Add", ["x", "c"], ["y"])], [vi("x")], [vi("y")],
                 [ints("s", [2**40, 2**40])])
    add("constantofshape-overflow", m, "the result is too large")
    m = op_model([h.make_node("Expand", ["x", "s"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("s", [2**40, 2**40, 2, 3])])
    add("expand-overflow", m, "is too large (more than 2^48 bytes)")
    m = op_model([h.make_node("Tile", ["x", "s"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("s", [-1, 2])])
    add("tile-negative-repeats", m, "repeats")
    m = op_model([h.make_node("Tile", ["x", "s"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("s", [2**62, 2**62])])
    add("tile-overflow", m, "overflow the dims")
    m = op_model([h.make_node("Range", ["a", "b", "d"], ["y"])], [vi("x")],
                 [vi("y", T.INT64, None)],
                 [const("a", np.array(0, np.int64)), const("b", np.array(10, np.int64)),
                  const("d", np.array(0, np.int64))])
    add("range-delta-zero", m, "delta")
    m = op_model([h.make_node("Range", ["a", "b", "d"], ["y"])], [vi("x")],
                 [vi("y", T.INT64, None)],
                 [const("a", np.array(-(2**63), np.int64)),
                  const("b", np.array(2**63 - 1, np.int64)),
                  const("d", np.array(1, np.int64))])
    add("range-overflow", m, "too large to become a constant")
    m = op_model([h.make_node("Range", ["a", "b", "d"], ["y"])], [vi("x")],
                 [vi("y", T.INT64, None)],
                 [const("a", np.array(0, np.int64)),
                  const("b", np.array(10**12, np.int64)),
                  const("d", np.array(1, np.int64))])
    add("range-huge-count", m, "elements is too large to become a constant")
    m = op_model([h.make_node("Range", ["a", "b", "d"], ["y"])], [vi("x")],
                 [vi("y", shape=None)],
                 [const("a", np.array(np.nan, np.float32)),
                  const("b", np.array(10, np.float32)),
                  const("d", np.array(1, np.float32))])
    add("range-nan", m, "Range of nan elements")
    m = op_model([h.make_node("Range", ["a", "b", "d"], ["y"])], [vi("x")],
                 [vi("y", T.INT64, None)],
                 [const("a", np.array(2**62, np.int64)),
                  const("b", np.array(-(2**62), np.int64)),
                  const("d", np.array(1, np.int64))])
    add("range-negative-count", m, "", policy="accept")
    m = op_model([h.make_node("Pad", ["x", "p"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("p", [2**62, 0, 2**62, 0])])
    add("pad-huge", m, "")
    m = op_model([h.make_node("Split", ["x", "s"], ["a", "b"], axis=1)],
                 [vi("x")], [vi("a", shape=None), vi("b", shape=None)],
                 [ints("s", [2**62, 2**62])])
    add("split-sizes-overflow", m, "split")
    m = op_model([h.make_node("Gather", ["x", "i"], ["y"])], [vi("x")],
                 [vi("y", shape=None)],
                 [const("i", np.zeros((2**12, 2**12), np.int64))])
    add("gather-large-indices", m, "", policy="accept")
    m = op_model([h.make_node("Unsqueeze", ["x", "a"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("a", [2**62])])
    add("unsqueeze-huge-axis", m, "out of range")
    m = op_model([h.make_node("Softmax", ["x"], ["y"], axis=-(2**63))],
                 [vi("x")], [vi("y")])
    add("softmax-axis-int64-min", m, "out of range")
    m = op_model([h.make_node("Shape", ["x"], ["y"], start=-(2**63),
                              end=2**63 - 1)], [vi("x")],
                 [vi("y", T.INT64, None)])
    m.opset_import[0].version = 15
    add("shape-extreme-start-end", m, "", policy="accept")
    m = op_model([h.make_node("DepthToSpace", ["x"], ["y"], blocksize=0)],
                 [vi("x", shape=(1, 4, 2, 2))], [vi("y", shape=None)])
    add("depthtospace-blocksize-zero", m, "blocksize")
    m = op_model([h.make_node("Squeeze", ["x", "a"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("a", [9])])
    add("squeeze-axis-out-of-range", m, "out of range")
    m = op_model([h.make_node("Unsqueeze", ["x", "a"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("a", [0, 0])])
    add("unsqueeze-duplicate-axes", m, "")
    m = op_model([h.make_node("Pad", ["x", "p"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [ints("p", [-5, 0, 0, 0])])
    add("pad-negative-beyond-size", m, "")
    m = op_model([h.make_node("Add", ["x", "z"], ["y"])],
                 [vi("x"), vi("z", T.INT64)], [vi("y")])
    add("add-dtype-mismatch", m, "")
    m = op_model([h.make_node("Add", ["x", "z"], ["y"])],
                 [vi("x"), vi("z", shape=(4, 5))], [vi("y")])
    add("add-broadcast-mismatch", m, "")
    m = op_model([h.make_node("TopK", ["x", "k"], ["v", "i"])], [vi("x")],
                 [vi("v", shape=None)], [ints("k", [100])])
    add("topk-k-too-big", m, "")
    m = op_model([h.make_node("OneHot", ["i", "d", "v"], ["y"])],
                 [vi("i", T.INT64, (3,))], [vi("y", shape=None)],
                 [ints("d", [-4]), const("v", np.array([0, 1], np.float32))])
    add("onehot-negative-depth", m, "depth")
    m = op_model([h.make_node("Einsum", ["x", "x"], ["y"], equation="ij,,->>")],
                 [vi("x")], [vi("y", shape=None)])
    add("einsum-malformed", m, "")
    m = op_model([h.make_node("Cast", ["x"], ["y"], to=T.STRING)], [vi("x")],
                 [vi("y", T.STRING)])
    add("cast-to-string", m, "")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "corpus"
    os.makedirs(out, exist_ok=True)
    gen_bytes()
    gen_tensors()
    gen_shapes()
    gen_opsets()
    gen_ops()
    names = [e["name"] for e, _ in ENTRIES]
    assert len(names) == len(set(names)), "duplicate corpus names"
    for entry, data in ENTRIES:
        with open(os.path.join(out, entry["file"]), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump([e for e, _ in ENTRIES], f, indent=1)
    print(f"make_corpus: {len(ENTRIES)} models in {out}")


if __name__ == "__main__":
    main()
