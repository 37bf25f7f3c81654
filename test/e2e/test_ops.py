#!/usr/bin/env python3
"""Per-op end-to-end checks: a small ONNX model per case, ONNX Runtime as the
reference, dlc + dlc-run as the system under test.

    test_ops.py --bin-dir build/bin [--target cpu|cuda] [-k REGEX] [-j N]
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

F32 = np.float32
I64 = np.int64



@dataclass
class Case:
    model: onnx.ModelProto
    feeds: dict
    rtol: float = 1e-3
    atol: float = 1e-5
    xfail: dict = field(default_factory=dict)  # {target: reason} for known compiler bugs
    extra: tuple = ()  # dlc options for --target cpu (e.g. --cuda-kernel-form)
    flags: tuple = ()  # dlc options for every target (e.g. --precision=fp16)
    # "onnx": onnx's reference evaluator, for ops ONNX Runtime has no kernel
    # for (float8 Pad, Squeeze, ...); else ONNX Runtime.
    reference: str = "ort"


@dataclass
class Table:
    """The case table; every case draws its data from one seeded generator."""
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    cases: dict = field(default_factory=dict)

    def rand(self, *shape, lo=-1.0, hi=1.0):
        return self.rng.uniform(lo, hi, size=shape).astype(F32)

    def add(self, name, nodes, feeds, outputs=("y",), consts=None, opset=17, ir_version=8,
            **kw):
        assert name not in self.cases, name
        model = harness.make_model(nodes, feeds, list(outputs), consts, opset=opset,
                                   ir_version=ir_version)
        self.cases[name] = Case(model, feeds, **kw)

    def op(self, name, op_type, feeds, consts=None, order=None, opset=17, attrs=None, **kw):
        """A one-node case; the node's inputs are `order` (names, '' for an
        omitted optional input) or the feeds followed by the consts."""
        consts = consts or {}
        inputs = order if order is not None else list(feeds) + list(consts)
        node = helper.make_node(op_type, inputs, ["y"], **(attrs or {}))
        self.add(name, [node], feeds, consts=consts, opset=opset, **kw)


def microsoft_cases(t):
    """ONNX Runtime's fused transformer operators (its optimizer and Hugging
    Face Optimum write them) against ONNX Runtime's own kernels."""
    def add(name, op, feeds, consts, outputs=("y",), **attrs):
        inputs = [k for k in list(feeds) + list(consts)]
        domain = "" if op == "SimplifiedLayerNormalization" else "com.microsoft"
        node = helper.make_node(op, inputs, list(outputs), domain=domain, **attrs)
        t.cases[name] = Case(harness.make_microsoft_model([node], feeds, outputs, consts), feeds, rtol=1e-4,
                             atol=1e-5)

    x, h = t.rand(2, 5, 16, lo=-3, hi=3), 16
    add("ms_gelu", "Gelu", {"x": x}, {})
    add("ms_bias_gelu", "BiasGelu", {"x": x}, {"b": t.rand(h)})
    add("ms_fast_gelu_bias", "FastGelu", {"x": x}, {"b": t.rand(h)})
    add("ms_fast_gelu", "FastGelu", {"x": x}, {})
    add("ms_quick_gelu", "QuickGelu", {"x": x}, {}, alpha=1.5)
    skip = {"skip": t.rand(2, 5, 16)}
    norm = {"gamma": t.rand(h, lo=0.5, hi=1.5), "beta": t.rand(h), "bias": t.rand(h)}
    t.cases["ms_skip_layer_norm_all_outputs"] = Case(harness.make_microsoft_model(
        [helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"],
                          ["y", "mean", "inv_std", "sum"], domain="com.microsoft",
                          epsilon=1e-6)],
        {"x": x, **skip}, ["y", "mean", "inv_std", "sum"], norm), {"x": x, **skip},
        rtol=1e-4, atol=1e-5)
    t.cases["ms_skip_layer_norm_sum_only"] = Case(harness.make_microsoft_model(
        [helper.make_node("SkipLayerNormalization", ["x", "skip", "gamma"],
                          ["y", "", "", "sum"], domain="com.microsoft")],
        {"x": x, **skip}, ["y", "sum"], {"gamma": norm["gamma"]}), {"x": x, **skip},
        rtol=1e-4, atol=1e-5)
    # Attention: [2, 6, 16] input, 4 heads of 4, no mask, a [B, S] padding
    # mask, [B] lengths, causal (with and without padding), its own scale.
    xa = t.rand(2, 6, 16)
    qkv = {"w": t.rand(16, 48, lo=-0.5, hi=0.5), "b": t.rand(48, lo=-0.1, hi=0.1)}
    pad = {"mask": np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], np.int32)}
    lengths = {"mask": np.array([3, 6], np.int32)}

    def attention(name, feeds, **attrs):
        names = ["x", "w", "b"] + (["mask"] if "mask" in feeds else [])
        node = helper.make_node("Attention", names, ["y"], domain="com.microsoft", num_heads=4,
                                **attrs)
        t.cases[name] = Case(harness.make_microsoft_model([node], feeds, ["y"], qkv), feeds, rtol=1e-4,
                             atol=1e-5)

    attention("ms_attention", {"x": xa})
    attention("ms_attention_padding_mask", {"x": xa, **pad})
    attention("ms_attention_lengths", {"x": xa, **lengths})
    attention("ms_attention_causal", {"x": xa}, unidirectional=1)
    attention("ms_attention_causal_padding", {"x": xa, **pad}, unidirectional=1)
    attention("ms_attention_scale_filter", {"x": xa, **pad}, scale=0.3, mask_filter_value=-500.0)

    # MultiHeadAttention: cross attention (4 queries, 6 keys) with a bias,
    # a [B, L] padding mask and [B] lengths; causal self attention.
    mq, mk, mv = t.rand(2, 4, 16), t.rand(2, 6, 16), t.rand(2, 6, 16)
    mbias = {"bias": t.rand(48, lo=-0.1, hi=0.1)}

    def mha(name, feeds, inputs, **attrs):
        node = helper.make_node("MultiHeadAttention", inputs, ["y"], domain="com.microsoft",
                                num_heads=4, **attrs)
        t.cases[name] = Case(harness.make_microsoft_model([node], feeds, ["y"], mbias), feeds, rtol=1e-4,
                             atol=1e-5)

    mha("ms_mha_cross", {"q": mq, "k": mk, "v": mv}, ["q", "k", "v", "bias"])
    mha("ms_mha_cross_padding", {"q": mq, "k": mk, "v": mv, **pad}, ["q", "k", "v", "bias", "mask"])
    mha("ms_mha_cross_lengths", {"q": mq, "k": mk, "v": mv, **lengths},
        ["q", "k", "v", "bias", "mask"])
    mha("ms_mha_self_causal", {"q": mk, "k": mk, "v": mv}, ["q", "k", "v", "bias"],
        unidirectional=1)
    # EmbedLayerNormalization: word + position + segment embeddings, the
    # mask's row sums, the sum before the normalization; without segments
    # and mask; with position_ids.
    ids = t.rng.integers(0, 30, size=(2, 6)).astype(np.int32)
    emb = {"word": t.rand(30, 16), "position": t.rand(8, 16), "segment": t.rand(2, 16),
           "gamma": t.rand(16, lo=0.5, hi=1.5), "beta": t.rand(16)}
    seg = t.rng.integers(0, 2, size=(2, 6)).astype(np.int32)
    outs3 = {"y": F32, "mask_index": np.int32, "sum": F32}

    def embed(name, inputs, feeds, outs, consts):
        node = helper.make_node("EmbedLayerNormalization", inputs, list(outs),
                                domain="com.microsoft", epsilon=1e-6)
        t.cases[name] = Case(harness.make_microsoft_model([node], feeds, outs, consts), feeds, rtol=1e-4,
                             atol=1e-5)

    embed("ms_embed_layer_norm", ["ids", "seg", "word", "position", "segment", "gamma", "beta",
                                  "mask"],
          {"ids": ids, "seg": seg, "mask": pad["mask"]}, outs3, emb)
    embed("ms_embed_layer_norm_plain", ["ids", "", "word", "position", "", "gamma", "beta"],
          {"ids": ids}, {"y": F32, "mask_index": np.int32},
          {k: v for k, v in emb.items() if k != "segment"})
    embed("ms_embed_layer_norm_position_ids",
          ["ids", "", "word", "position", "", "gamma", "beta", "", "pos"], {"ids": ids},
          {"y": F32, "mask_index": np.int32},
          {**{k: v for k, v in emb.items() if k != "segment"},
                       "pos": np.array([[5, 4, 3, 2, 1, 0]], np.int32)})
    t.cases["ms_skip_simplified_layer_norm"] = Case(harness.make_microsoft_model(
        [helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma", "bias"],
                          ["y", "mean", "inv_std", "sum"], domain="com.microsoft",
                          epsilon=1e-6)],
        {"x": x, **skip}, ["y", "mean", "inv_std", "sum"],
        {"gamma": norm["gamma"], "bias": norm["bias"]}), {"x": x, **skip}, rtol=1e-4, atol=1e-5)
    # FusedConv and FusedMatMul (the graphs ONNX Runtime saves optimized).
    xc = t.rand(1, 4, 7, 7)
    conv = {"w": t.rand(6, 4, 3, 3, lo=-0.5, hi=0.5), "b": t.rand(6)}
    z = {"z": t.rand(1, 6, 7, 7)}

    def fused_conv(name, feeds, inputs, **attrs):
        node = helper.make_node("FusedConv", inputs, ["y"], domain="com.microsoft",
                                pads=[1, 1, 1, 1], **attrs)
        t.cases[name] = Case(harness.make_microsoft_model([node], feeds, ["y"], conv), feeds, rtol=1e-4,
                             atol=1e-5)

    fused_conv("ms_fused_conv_relu_sum", {"x": xc, **z}, ["x", "w", "b", "z"], activation="Relu")
    fused_conv("ms_fused_conv_leaky", {"x": xc}, ["x", "w", "b"], activation="LeakyRelu",
               activation_params=[0.2])
    fused_conv("ms_fused_conv_clip", {"x": xc}, ["x", "w", "b"], activation="Clip",
               activation_params=[0.0, 0.5])
    fused_conv("ms_fused_conv_hard_sigmoid", {"x": xc}, ["x", "w", "b"],
               activation="HardSigmoid", activation_params=[0.3, 0.4])
    fused_conv("ms_fused_conv_plain", {"x": xc}, ["x", "w", "b"])
    fa, fb = t.rand(2, 3, 5, 4), t.rand(2, 3, 6, 5)
    for name, attrs, a, b in [("ms_fused_matmul_trans_b_alpha", dict(transB=1, alpha=0.125),
                               fa, t.rand(2, 3, 6, 4)),
                              ("ms_fused_matmul_trans_a", dict(transA=1), t.rand(2, 3, 4, 5),
                               t.rand(4, 6)),
                              ("ms_fused_matmul_plain", {}, fa, t.rand(4, 6))]:
        node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain="com.microsoft",
                                **attrs)
        t.cases[name] = Case(harness.make_microsoft_model([node], {"a": a, "b": b}, ["y"], {}),
                             {"a": a, "b": b}, rtol=1e-4, atol=1e-5)
    del fb

    # A CNN and an attention block as ONNX Runtime saves them optimized
    # (SessionOptions.optimized_model_filepath): FusedConv (with the
    # residual as Z), QuickGelu (x * sigmoid(x)), FusedMatMul (Q.K^T scaled).
    xs = t.rand(1, 4, 8, 8)
    cnn = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
           helper.make_node("Relu", ["c1"], ["r1"]),
           helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
           helper.make_node("Add", ["c2", "r1"], ["a2"]),
           helper.make_node("Relu", ["a2"], ["r2"]),
           helper.make_node("Sigmoid", ["r2"], ["s2"]),
           helper.make_node("Mul", ["r2", "s2"], ["y"])]
    cnn_w = {"w1": t.rand(6, 4, 3, 3, lo=-0.5, hi=0.5), "b1": t.rand(6),
             "w2": t.rand(6, 6, 3, 3, lo=-0.5, hi=0.5), "b2": t.rand(6)}
    qa, ka = t.rand(2, 4, 5, 8), t.rand(2, 4, 5, 8)
    att = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
           helper.make_node("MatMul", ["q", "kt"], ["s"]),
           helper.make_node("Div", ["s", "d"], ["sd"]),
           helper.make_node("Softmax", ["sd"], ["p"], axis=-1),
           helper.make_node("MatMul", ["p", "q"], ["y"])]
    for name, nodes, feeds, consts, fused in [
            ("ort_saved_optimized_cnn", cnn, {"x": xs}, cnn_w, {"FusedConv", "QuickGelu"}),
            ("ort_saved_optimized_attention", att, {"q": qa, "k": ka},
             {"d": np.array(np.sqrt(8), F32)}, {"FusedMatMul"})]:
        t.cases[name] = Case(harness.ort_saved_optimized(
            harness.make_model(nodes, feeds, ["y"], consts), fused), feeds, rtol=1e-4,
            atol=1e-5)
    add("simplified_layer_norm", "SimplifiedLayerNormalization", {"x": x},
        {"scale": norm["gamma"]}, epsilon=1e-6)
    add("simplified_layer_norm_axis1", "SimplifiedLayerNormalization", {"x": x},
        {"scale": t.rand(5, 16)}, outputs=("y", "inv_std"), axis=1)


def add_qdq_conv(t, r, name, x_shape, w_shape, xz, ys, yz, conv_attrs, **kw):
    """One QDQ int8 Conv (dlc-fold-qdq: conv_integer + requantize): input
    scale 0.01 and zero point `xz`, per-channel int8 weights of `w_shape`
    (random from `r`, zero point 0) with a bias, the output requantized to
    `ys`, `yz`."""
    o = w_shape[0]
    t.add(name, [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
        helper.make_node("Conv", ["xd", "wd", "b"], ["c"], **conv_attrs),
        helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "ys", "yz"], ["y"])],
        {"x": t.rand(*x_shape)},
        consts={"xs": np.array(0.01, F32), "xz": np.array(xz, np.int8),
                "w": r.integers(-127, 127, size=w_shape).astype(np.int8),
                "ws": r.uniform(0.002, 0.01, size=o).astype(F32), "wz": np.zeros(o, np.int8),
                "b": t.rand(o, lo=-0.2, hi=0.2),
                "ys": np.array(ys, F32), "yz": np.array(yz, np.int8)}, **kw)


def conv_cases(t):
    t.op("conv2d", "Conv", {"x": t.rand(1, 3, 8, 8)},
         {"w": t.rand(4, 3, 3, 3), "b": t.rand(4)})
    t.op("conv2d_nobias_batch2", "Conv", {"x": t.rand(2, 3, 6, 7)}, {"w": t.rand(5, 3, 2, 3)})
    t.op("conv2d_pads_strides", "Conv", {"x": t.rand(1, 3, 9, 8)},
         {"w": t.rand(4, 3, 3, 3), "b": t.rand(4)},
         attrs=dict(pads=[1, 2, 0, 1], strides=[2, 3]))
    t.op("conv2d_dilations", "Conv", {"x": t.rand(1, 2, 10, 10)},
         {"w": t.rand(3, 2, 3, 3), "b": t.rand(3)}, attrs=dict(dilations=[2, 3], pads=[1, 1, 1, 1]))
    t.op("conv2d_groups2", "Conv", {"x": t.rand(1, 4, 7, 7)},
         {"w": t.rand(6, 2, 3, 3), "b": t.rand(6)}, attrs=dict(group=2))
    t.op("conv2d_depthwise", "Conv", {"x": t.rand(1, 8, 9, 9)},
         {"w": t.rand(8, 1, 3, 3), "b": t.rand(8)}, attrs=dict(group=8, pads=[1, 1, 1, 1]))
    t.op("conv2d_depthwise_stride2_mult2", "Conv", {"x": t.rand(1, 4, 8, 8)},
         {"w": t.rand(8, 1, 3, 3)}, attrs=dict(group=4, pads=[1, 1, 1, 1], strides=[2, 2]))
    # Host: a depthwise conv's padded copy is the pad value, then the input
    # over it through a shifted map, except along a dim padded at its end
    # only (SAME_UPPER at stride 2, TensorFlow's depthwise convs).
    t.op("conv2d_depthwise_asym_pads", "Conv", {"x": t.rand(1, 4, 9, 8)},
         {"w": t.rand(4, 1, 3, 3), "b": t.rand(4)}, attrs=dict(group=4, pads=[0, 1, 1, 0]))
    t.op("conv2d_depthwise_same_upper_stride2", "Conv", {"x": t.rand(1, 4, 8, 8)},
         {"w": t.rand(4, 1, 3, 3)}, attrs=dict(group=4, auto_pad="SAME_UPPER", strides=[2, 2]))
    t.op("conv2d_depthwise_pads_2_1", "Conv", {"x": t.rand(1, 4, 7, 9)},
         {"w": t.rand(4, 1, 3, 3)}, attrs=dict(group=4, pads=[2, 1, 1, 2]))
    t.op("conv2d_1x1", "Conv", {"x": t.rand(1, 16, 5, 5)}, {"w": t.rand(8, 16, 1, 1), "b": t.rand(8)})
    # Host: a 1x1 conv and its epilogue over a 7x7 (14x14) plane take the
    # plane as one row of 49 (196) outputs (dlc-collapse-row-planes).
    for hw in (7, 14):
        t.add(f"conv1x1_plane_residual_{hw}", [
            helper.make_node("Conv", ["x", "w", "b"], ["c"]),
            helper.make_node("Add", ["c", "r"], ["a"]),
            helper.make_node("Relu", ["a"], ["y"])],
            {"x": t.rand(1, 48, hw, hw), "r": t.rand(1, 64, hw, hw)},
            consts={"w": t.rand(64, 48, 1, 1), "b": t.rand(64)})
    # Host: a strided 1x1 conv reads a subsampled copy at stride 1 (odd
    # input: the last row and column are never read).
    t.op("conv1x1_stride2_subsampled", "Conv", {"x": t.rand(1, 32, 15, 15)},
         {"w": t.rand(64, 32, 1, 1), "b": t.rand(64)}, attrs=dict(strides=[2, 2]))
    # Host: a 3x3 conv whose output rows are shorter than a tile runs at
    # every position of its padded input's plane, the valid columns kept
    # afterwards (convOnInputWidth); unpadded, on the input's own width.
    for hw, pads in ((7, 1), (13, 1), (9, 0)):
        t.add(f"conv3x3_input_width_{hw}_pad{pads}", [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[pads] * 4),
            helper.make_node("Relu", ["c"], ["y"])],
            {"x": t.rand(1, 24, hw, hw)},
            consts={"w": t.rand(64, 24, 3, 3), "b": t.rand(64)})
    # Strided convs on their input's phases (host): the plane form (rows of
    # 7 and 8, 64 channels), odd sizes and asymmetric pads, the row form
    # (a 7x7 stem-like window), stride 3.
    for name, hw, k, s, pads in [("plane_14", 14, 3, 2, [1, 1, 1, 1]),
                                 ("plane_odd_15", 15, 3, 2, [0, 1, 1, 0]),
                                 ("rows_7x7", 35, 7, 2, [3, 3, 3, 3]),
                                 ("stride3_5x5", 20, 5, 3, [2, 2, 1, 1]),
                                 # (stride 3 over a 2x2 window: no phases)
                                 ("stride3_2x2", 20, 2, 3, [0, 0, 0, 0])]:
        t.add(f"conv_phases_{name}", [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=pads, strides=[s, s]),
            helper.make_node("Relu", ["c"], ["y"])],
            {"x": t.rand(1, 8, hw, hw)},
            consts={"w": t.rand(64, 8, k, k), "b": t.rand(64)})
    t.op("conv2d_same_upper", "Conv", {"x": t.rand(1, 2, 7, 6)}, {"w": t.rand(3, 2, 3, 3)},
         attrs=dict(auto_pad="SAME_UPPER", strides=[2, 2]))
    t.op("conv2d_weight_input", "Conv", {"x": t.rand(1, 3, 6, 6), "w": t.rand(2, 3, 3, 3)})
    t.op("conv1d", "Conv", {"x": t.rand(2, 3, 10)}, {"w": t.rand(5, 3, 3), "b": t.rand(5)},
         attrs=dict(strides=[2], pads=[1, 1]))
    t.op("conv1d_groups_dilations", "Conv", {"x": t.rand(1, 4, 12)}, {"w": t.rand(4, 2, 3)},
         attrs=dict(group=2, dilations=[2], pads=[2, 0]))


def gemm_matmul_cases(t):
    t.op("gemm", "Gemm", {"a": t.rand(3, 4)}, {"b": t.rand(4, 5), "c": t.rand(5)})
    t.op("gemm_transA_transB_alpha_beta", "Gemm", {"a": t.rand(4, 3), "b": t.rand(5, 4)},
         {"c": t.rand(3, 5)}, attrs=dict(transA=1, transB=1, alpha=0.5, beta=2.0))
    t.op("gemm_c_col", "Gemm", {"a": t.rand(3, 4)}, {"b": t.rand(4, 5), "c": t.rand(3, 1)})
    t.op("gemm_c_scalar", "Gemm", {"a": t.rand(3, 4), "b": t.rand(4, 5)}, {"c": t.rand(1)},
         attrs=dict(beta=0.25))
    t.op("gemm_no_c", "Gemm", {"a": t.rand(2, 6)}, {"b": t.rand(7, 6)}, attrs=dict(transB=1))
    t.op("gemm_c_input", "Gemm", {"a": t.rand(3, 4), "b": t.rand(4, 5), "c": t.rand(3, 5)},
         attrs=dict(alpha=-1.5))
    t.op("matmul_2d", "MatMul", {"a": t.rand(3, 4), "b": t.rand(4, 5)})
    t.op("matmul_2d_const_b", "MatMul", {"a": t.rand(7, 16)}, {"b": t.rand(16, 9)})
    t.op("matmul_batched", "MatMul", {"a": t.rand(2, 3, 4), "b": t.rand(2, 4, 5)})
    t.op("matmul_broadcast_4d", "MatMul", {"a": t.rand(2, 1, 3, 4), "b": t.rand(3, 4, 5)})
    t.op("matmul_broadcast_2d_3d", "MatMul", {"a": t.rand(3, 4), "b": t.rand(2, 4, 5)})
    t.op("matmul_broadcast_3d_2d", "MatMul", {"a": t.rand(2, 3, 4)}, {"b": t.rand(4, 5)})
    t.op("matmul_1d_2d", "MatMul", {"a": t.rand(4), "b": t.rand(4, 5)})
    t.op("matmul_3d_1d", "MatMul", {"a": t.rand(2, 3, 4), "b": t.rand(4)})
    t.op("matmul_1d_1d", "MatMul", {"a": t.rand(4), "b": t.rand(4)})


def elementwise_cases(t):
    for op in ("Add", "Sub", "Mul", "Div"):
        lo = 0.5 if op == "Div" else -1.0
        low = op.lower()
        t.op(f"{low}_same_shape", op, {"a": t.rand(2, 3, 4), "b": t.rand(2, 3, 4, lo=lo)})
        t.op(f"{low}_bcast_last", op, {"a": t.rand(2, 3, 4), "b": t.rand(4, lo=lo)})
        t.op(f"{low}_bcast_both", op, {"a": t.rand(2, 1, 4), "b": t.rand(3, 1, lo=lo)})
        t.op(f"{low}_scalar_const", op, {"a": t.rand(3, 5)}, {"b": np.array(1.5, F32)})
        t.op(f"{low}_const_lhs", op, {"b": t.rand(2, 3, lo=lo)}, {"a": t.rand(2, 1)}, order=["a", "b"])
    t.op("add_int64", "Add", {"a": np.arange(6, dtype=I64).reshape(2, 3)},
         {"b": np.array([10, -20, 30], I64)})
    t.op("mul_int64", "Mul", {"a": np.arange(-3, 3, dtype=I64)}, {"b": np.array(7, I64)})
    t.op("relu", "Relu", {"x": t.rand(2, 3, 4)})
    t.op("sigmoid", "Sigmoid", {"x": t.rand(3, 7, lo=-8, hi=8)})
    t.op("tanh", "Tanh", {"x": t.rand(3, 7, lo=-4, hi=4)})
    t.op("erf", "Erf", {"x": t.rand(4, 5, lo=-3, hi=3)})
    t.op("sqrt", "Sqrt", {"x": t.rand(4, 5, lo=0.0, hi=9.0)})
    t.op("exp", "Exp", {"x": t.rand(4, 5, lo=-5, hi=5)})
    t.op("pow_scalar_2", "Pow", {"x": t.rand(3, 4)}, {"p": np.array(2.0, F32)})
    t.op("pow_scalar_half", "Pow", {"x": t.rand(3, 4, lo=0.1, hi=4)}, {"p": np.array(0.5, F32)})
    t.op("pow_tensor_bcast", "Pow", {"x": t.rand(2, 3, lo=0.1, hi=2), "p": t.rand(3, lo=-2, hi=3)})
    # Clip: opset 11+ takes min/max as (optional) inputs, opset 6 as attributes.
    x = t.rand(3, 8, lo=-3, hi=3)
    lo, hi = np.array(-0.5, F32), np.array(1.25, F32)
    t.op("clip_min_max", "Clip", {"x": x}, {"lo": lo, "hi": hi})
    t.op("clip_min_only", "Clip", {"x": x}, {"lo": lo})
    t.op("clip_max_only", "Clip", {"x": x}, {"hi": hi}, order=["x", "", "hi"])
    t.op("clip_none", "Clip", {"x": x})
    t.op("clip_opset11_relu6", "Clip", {"x": x}, {"lo": np.array(0, F32), "hi": np.array(6, F32)},
         opset=11)
    # Clip-6 (attributes) is the Clip of opsets 6 to 10; dlc imports opsets >= 7.
    t.op("clip_opset6_attrs", "Clip", {"x": x}, opset=10, attrs=dict(min=-1.0, max=0.5))
    t.op("clip_opset6_default_max", "Clip", {"x": x}, opset=7, attrs=dict(min=0.0))
    # Inverse trigonometric and hyperbolic functions (from atan2, expm1 and
    # log1p, which both targets lower), over their domains' edges too.
    for op, lo, hi in (("Tan", -1.4, 1.4), ("Asin", -1, 1), ("Acos", -1, 1), ("Atan", -30, 30),
                       ("Sinh", -9, 9), ("Cosh", -9, 9), ("Asinh", -200, 200), ("Acosh", 1, 200),
                       ("Atanh", -0.999, 0.999)):
        v = t.rand(3, 9, lo=lo, hi=hi)
        v[0, :3] = (lo, hi, (lo + hi) / 2)
        t.op(op.lower(), op, {"x": v})
    t.op("shrink", "Shrink", {"x": t.rand(3, 8, lo=-3, hi=3)}, opset=17, attrs=dict(lambd=1.0, bias=0.25))


def normalization_cases(t):
    x = t.rand(2, 3, 4, 5, lo=-3, hi=3)
    for opset in (17, 11):
        for axis in (1, -1, 0):
            t.op(f"softmax_opset{opset}_axis{axis}", "Softmax", {"x": x}, opset=opset,
                 attrs=dict(axis=axis))
        t.op(f"softmax_opset{opset}_default", "Softmax", {"x": x}, opset=opset)
    # Rows whose first columns are -inf (a left-padding mask): the online
    # max starts at -inf, where exp(x - max) would be exp(-inf - -inf).
    masked = t.rand(3, 8, lo=-3, hi=3)
    masked[:, :2] = -np.inf
    masked[1, :7] = -np.inf
    t.op("softmax_masked_first", "Softmax", {"x": masked}, attrs=dict(axis=-1))
    t.op("hardmax", "Hardmax", {"x": t.rand(2, 3, 5, lo=-3, hi=3)}, attrs=dict(axis=1))
    t.op("hardmax_opset11_flatten", "Hardmax", {"x": t.rand(2, 3, 5, lo=-3, hi=3)}, opset=11,
         attrs=dict(axis=1))
    t.op("lpnorm_l2", "LpNormalization", {"x": t.rand(2, 3, 5)}, attrs=dict(axis=1))
    t.op("lpnorm_l1_last", "LpNormalization", {"x": t.rand(2, 3, 5)}, attrs=dict(p=1))
    # (MeanVarianceNormalization: onnx's strict shape inference rejects its
    # function body here; the node tests test_mvn* cover it.)
    t.op("lrn_5", "LRN", {"x": t.rand(1, 7, 3, 4, lo=-2, hi=2)},
         attrs=dict(size=5, alpha=0.01, beta=0.6, bias=1.5))
    t.op("lrn_default", "LRN", {"x": t.rand(2, 6, 5, 3)}, attrs=dict(size=3))
    t.op("global_max_pool", "GlobalMaxPool", {"x": t.rand(2, 3, 4, 5)})
    bn = {"scale": t.rand(3, lo=0.5, hi=1.5), "b": t.rand(3), "mean": t.rand(3),
          "var": t.rand(3, lo=0.1, hi=2.0)}
    t.op("batchnorm", "BatchNormalization", {"x": x}, bn, attrs=dict(epsilon=1e-3))
    t.op("batchnorm_opset9_2d", "BatchNormalization", {"x": t.rand(4, 3)}, bn, opset=9)
    t.op("batchnorm_3d", "BatchNormalization", {"x": t.rand(2, 3, 6)}, bn)
    t.op("layernorm_last", "LayerNormalization", {"x": t.rand(2, 3, 8)},
         {"g": t.rand(8), "b": t.rand(8)})
    t.op("layernorm_axis1_nobias", "LayerNormalization", {"x": t.rand(2, 3, 4)}, {"g": t.rand(3, 4)},
         attrs=dict(axis=1, epsilon=1e-3))
    t.op("layernorm_axis_neg2", "LayerNormalization", {"x": t.rand(2, 5, 3, 4)},
         {"g": t.rand(3, 4), "b": t.rand(3, 4)}, attrs=dict(axis=-2))
    # Shapes that take the host's row forms (KernelForm.cpp): at least 8
    # rows and a reduction of at least 16 along the contiguous dim keep one
    # output a work item (reducesContiguously); a broadcast operand beside
    # one read at the output's index runs as rows (readsBroadcast); the
    # host's Softmax is max, exp, sum, times the reciprocal.
    rows = t.rand(2, 6, 12, 40, lo=-6, hi=6)
    rows[0, 1, :, :5] = -np.inf
    rows[1, 2, 3, :39] = -np.inf
    t.op("softmax_rows_last", "Softmax", {"x": rows}, attrs=dict(axis=-1))
    t.op("log_softmax_rows_last", "LogSoftmax", {"x": t.rand(2, 6, 12, 40, lo=-6, hi=6)},
         attrs=dict(axis=-1))
    t.op("softmax_rows_axis1", "Softmax", {"x": t.rand(4, 20, 24, lo=-6, hi=6)},
         attrs=dict(axis=1))
    t.op("layernorm_rows", "LayerNormalization", {"x": t.rand(8, 4, 48, lo=-2, hi=3)},
         {"g": t.rand(48), "b": t.rand(48)}, attrs=dict(axis=-1))
    t.op("reducesum_rows_last", "ReduceSum", {"x": t.rand(8, 6, 32)},
         {"axes": np.array([-1], I64)}, opset=18, attrs=dict(keepdims=1))
    t.op("reducemax_rows_last", "ReduceMax", {"x": t.rand(8, 6, 32, lo=-5, hi=5)},
         {"axes": np.array([-1], I64)}, opset=18, attrs=dict(keepdims=0))
    t.op("div_row_broadcast", "Div", {"x": t.rand(24, 40)}, {"s": t.rand(24, 1, lo=0.5, hi=2)})
    t.op("add_channel_broadcast", "Add", {"x": t.rand(2, 8, 5, 20)}, {"b": t.rand(1, 8, 1, 1)})
    xr = t.rand(2, 3, 4, 5)
    t.op("reducemean_keepdims", "ReduceMean", {"x": xr}, opset=13, attrs=dict(axes=[1]))
    t.op("reducemean_no_keepdims", "ReduceMean", {"x": xr}, opset=13, attrs=dict(axes=[1, -1], keepdims=0))
    t.op("reducemean_all", "ReduceMean", {"x": xr}, opset=13, attrs=dict(keepdims=0))
    t.op("reducemean_opset18_input", "ReduceMean", {"x": xr}, {"axes": np.array([2, 3], I64)}, opset=18)
    t.op("reducemean_opset18_no_keepdims", "ReduceMean", {"x": xr}, {"axes": np.array([-1], I64)},
         opset=18, attrs=dict(keepdims=0))
    t.op("reducemean_opset18_no_axes", "ReduceMean", {"x": xr}, opset=18)


def pool_cases(t):
    # Cubic Resize (Keys' kernel, 4 taps a dim): up and down, torch's
    # coefficient and ONNX's default, exclude_outside, align_corners.
    xr = t.rand(1, 2, 6, 7, lo=-2, hi=3)
    up = {"scales": np.array([1, 1, 2.0, 1.5], F32)}
    t.op("resize_cubic_up", "Resize", {"x": xr}, up, order=["x", "", "scales"], opset=19,
         attrs=dict(mode="cubic"))
    # (align_corners at a fractional scale: ONNX Runtime aligns to the
    # rounded output length, the ONNX reference and dlc to input * scale.)
    t.op("resize_cubic_torch_align_corners", "Resize", {"x": xr},
         {"scales": np.array([1, 1, 2.0, 2.0], F32)}, order=["x", "", "scales"],
         opset=19, attrs=dict(mode="cubic", cubic_coeff_a=-0.75,
                              coordinate_transformation_mode="align_corners"))
    t.op("resize_cubic_down_exclude_outside", "Resize", {"x": xr},
         {"sizes": np.array([1, 2, 4, 3], I64)}, order=["x", "", "", "sizes"], opset=19,
         attrs=dict(mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1))
    # Antialiased downsampling (opset 18+, torchvision's resize): the filter
    # stretched by 1 / scale; tf_crop_and_resize's box with an
    # extrapolation value (some of the box outside the input).
    xa = t.rand(1, 2, 17, 13, lo=-2, hi=3)
    t.op("resize_linear_antialias_down", "Resize", {"x": xa},
         {"scales": np.array([1, 1, 0.35, 0.5], F32)}, order=["x", "", "scales"], opset=19,
         attrs=dict(mode="linear", antialias=1), rtol=1e-4, atol=1e-5)
    t.op("resize_cubic_antialias_exclude_outside", "Resize", {"x": xa},
         {"sizes": np.array([1, 2, 6, 5], I64)}, order=["x", "", "", "sizes"], opset=19,
         attrs=dict(mode="cubic", antialias=1, exclude_outside=1), rtol=1e-4, atol=1e-5)
    t.op("resize_tf_crop_and_resize_extrapolate", "Resize", {"x": xa},
         {"roi": np.array([0, 0, -0.2, 0.3, 1, 1, 0.7, 1.25], F32),
          "sizes": np.array([1, 2, 5, 4], I64)}, order=["x", "roi", "", "sizes"], opset=19,
         attrs=dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize",
                    extrapolation_value=-7.0), rtol=1e-4, atol=1e-5)
    # GridSample: coordinates past [-1, 1] too, so that every padding
    # mode's outside path runs.
    xg, grid = t.rand(2, 3, 5, 6, lo=-2, hi=3), t.rand(2, 4, 7, 2, lo=-1.3, hi=1.3)
    t.op("gridsample_bilinear_zeros", "GridSample", {"x": xg, "grid": grid}, opset=16)
    t.op("gridsample_nearest_reflection_align", "GridSample", {"x": xg, "grid": grid}, opset=16,
         attrs=dict(mode="nearest", padding_mode="reflection", align_corners=1))
    t.op("gridsample_bicubic_border", "GridSample", {"x": xg, "grid": grid}, opset=16,
         attrs=dict(mode="bicubic", padding_mode="border"))
    t.op("gridsample_bilinear_reflection", "GridSample", {"x": xg, "grid": grid}, opset=16,
         attrs=dict(padding_mode="reflection"))
    x = t.rand(1, 2, 9, 9)
    t.op("maxpool_k2s2", "MaxPool", {"x": x}, attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))
    t.op("maxpool_k3s2_pads", "MaxPool", {"x": x}, attrs=dict(kernel_shape=[3, 3], strides=[2, 2],
                                                             pads=[1, 1, 1, 1]))
    t.op("maxpool_ceil", "MaxPool", {"x": t.rand(1, 2, 8, 8)},
         attrs=dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1))
    t.op("maxpool_dilations", "MaxPool", {"x": x}, attrs=dict(kernel_shape=[2, 2], dilations=[2, 2]))
    t.op("maxpool_asym_pads", "MaxPool", {"x": x}, attrs=dict(kernel_shape=[3, 2], pads=[0, 1, 2, 0]))
    t.op("maxpool_1d", "MaxPool", {"x": t.rand(2, 3, 11)}, attrs=dict(kernel_shape=[3], strides=[2]))
    t.op("maxpool_negative_only", "MaxPool", {"x": t.rand(1, 1, 4, 4, lo=-2, hi=-1)},
         attrs=dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    t.op("avgpool_k2s2", "AveragePool", {"x": x}, attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))
    for cip in (0, 1):
        t.op(f"avgpool_pads_count_include_pad{cip}", "AveragePool", {"x": x},
             attrs=dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=cip))
    t.op("avgpool_ceil", "AveragePool", {"x": t.rand(1, 2, 8, 8)},
         attrs=dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1))
    t.op("avgpool_dilations", "AveragePool", {"x": x}, opset=19,
         attrs=dict(kernel_shape=[2, 2], dilations=[2, 2]))
    t.op("avgpool_1d", "AveragePool", {"x": t.rand(2, 3, 10)}, attrs=dict(kernel_shape=[4], strides=[3]))
    t.op("globalavgpool", "GlobalAveragePool", {"x": t.rand(2, 3, 5, 5)})
    t.op("globalavgpool_1d", "GlobalAveragePool", {"x": t.rand(2, 3, 7)})


def shape_cases(t):
    x = t.rand(2, 3, 4)
    for axis in (0, 1, 2, -1):
        t.op(f"flatten_axis{axis}", "Flatten", {"x": x}, attrs=dict(axis=axis))
    t.op("reshape_zero_minus1", "Reshape", {"x": x}, {"s": np.array([0, -1], I64)})
    t.op("reshape_minus1_front", "Reshape", {"x": x}, {"s": np.array([-1, 3, 2, 2], I64)})
    t.op("reshape_zero_middle_opset7", "Reshape", {"x": x}, {"s": np.array([4, 0, 2], I64)}, opset=7)
    t.op("transpose_perm", "Transpose", {"x": x}, attrs=dict(perm=[1, 2, 0]))
    t.op("transpose_default", "Transpose", {"x": x})
    t.op("transpose_4d_nchw_nhwc", "Transpose", {"x": t.rand(1, 3, 4, 5)}, attrs=dict(perm=[0, 2, 3, 1]))
    t.op("concat_axis1", "Concat", {"a": t.rand(2, 1, 4), "b": t.rand(2, 3, 4), "c": t.rand(2, 2, 4)},
         attrs=dict(axis=1))
    t.op("concat_axis_neg1_const", "Concat", {"a": x}, {"b": t.rand(2, 3, 2)}, attrs=dict(axis=-1))
    t.op("concat_int64", "Concat", {"a": np.array([1, 2], I64)}, {"b": np.array([-1], I64)},
         attrs=dict(axis=0))
    t.op("identity", "Identity", {"x": x})
    t.add("constant_tensor", [
        helper.make_node("Constant", [], ["c"], value=helper.make_tensor(
            "v", TensorProto.FLOAT, [3, 1], [1.0, -2.0, 0.5])),
        helper.make_node("Add", ["x", "c"], ["y"])], {"x": t.rand(2, 3, 4)})
    t.add("constant_value_float_ints", [
        helper.make_node("Constant", [], ["s"], value_float=3.0),
        helper.make_node("Constant", [], ["shape"], value_ints=[4, 6]),
        helper.make_node("Mul", ["x", "s"], ["m"]),
        helper.make_node("Reshape", ["m", "shape"], ["y"])], {"x": x})
    t.add("identity_chain", [helper.make_node("Identity", ["x"], ["i"]),
                             helper.make_node("Relu", ["i"], ["y"])], {"x": x})

    data = t.rand(5, 4, 3)
    t.op("gather_axis0", "Gather", {"x": data}, {"i": np.array([0, 4, 2], I64)})
    t.op("gather_negative_indices", "Gather", {"x": data}, {"i": np.array([-1, 0, -5], I64)})
    t.op("gather_axis1_2d_indices", "Gather", {"x": data}, {"i": np.array([[0, 3], [-2, 1]], I64)},
         attrs=dict(axis=1))
    t.op("gather_axis_neg1_scalar", "Gather", {"x": data}, {"i": np.array(-1, I64)}, attrs=dict(axis=-1))
    t.op("gather_int32_indices", "Gather", {"x": data}, {"i": np.array([1, -1], np.int32)})
    t.op("gather_runtime_indices", "Gather", {"x": data, "i": np.array([[4, -1, 0]], I64)})
    t.op("gather_int64_data", "Gather", {"x": np.arange(12, dtype=I64).reshape(4, 3)},
         {"i": np.array([3, -4], I64)})

    t.op("shape", "Shape", {"x": x})
    t.op("shape_start_end", "Shape", {"x": t.rand(2, 3, 4, 5)}, opset=15, attrs=dict(start=1, end=-1))
    t.add("shape_subgraph_reshape", [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["newshape"], axis=0),
        helper.make_node("Reshape", ["x", "newshape"], ["y"])],
        {"x": t.rand(2, 3, 4, 5)},
        consts={"zero": np.array(0, I64), "axes0": np.array([0], I64), "minus1": np.array([-1], I64)})

    t.op("unsqueeze_opset13", "Unsqueeze", {"x": x}, {"axes": np.array([0, 4], I64)})
    t.op("unsqueeze_negative", "Unsqueeze", {"x": x}, {"axes": np.array([-1, 1], I64)})
    t.op("unsqueeze_opset11_attr", "Unsqueeze", {"x": x}, opset=11, attrs=dict(axes=[1]))
    x1 = t.rand(1, 3, 1, 4)
    t.op("squeeze_opset13_axes", "Squeeze", {"x": x1}, {"axes": np.array([2], I64)})
    t.op("squeeze_all", "Squeeze", {"x": x1})
    t.op("squeeze_negative", "Squeeze", {"x": x1}, {"axes": np.array([-2, 0], I64)})
    t.op("squeeze_opset11_attr", "Squeeze", {"x": x1}, opset=11, attrs=dict(axes=[0]))

    s = t.rand(6, 5, 4)
    big = np.iinfo(np.int64).max

    def slice_case(name, starts, ends, axes=None, steps=None, opset=13):
        consts = {"starts": np.array(starts, I64), "ends": np.array(ends, I64)}
        order = ["x", "starts", "ends"]
        if axes is not None:
            consts["axes"] = np.array(axes, I64)
            order.append("axes")
        if steps is not None:
            if axes is None:
                order.append("")
            consts["steps"] = np.array(steps, I64)
            order.append("steps")
        t.op(name, "Slice", {"x": s}, consts, order=order, opset=opset)

    slice_case("slice_basic", [1, 0, 1], [4, 5, 3])
    slice_case("slice_axes", [1], [-1], axes=[1])
    slice_case("slice_negative_axes", [-3], [big], axes=[-1])
    slice_case("slice_steps", [0, 1], [6, 5], axes=[0, 1], steps=[2, 3])
    slice_case("slice_negative_step", [-1], [-big], axes=[0], steps=[-1])
    slice_case("slice_negative_step2_clamped", [100, 3], [0, -100], axes=[2, 1], steps=[-2, -1])
    slice_case("slice_steps_no_axes", [0, 0, 3], [6, 5, 0], steps=[1, 2, -1])
    slice_case("slice_opset10", [1, 2], [5, 4], axes=[0, 2], opset=10)
    t.op("slice_opset9_attrs", "Slice", {"x": s}, opset=9,
         attrs=dict(starts=[1, -3], ends=[3, 100], axes=[0, 1]))

    xc = np.array([[-2.7, -1.0, -0.3, 0.0], [0.4, 1.0, 2.9, 100.25]], F32)
    t.op("cast_float_to_int64", "Cast", {"x": xc}, attrs=dict(to=TensorProto.INT64))
    t.op("cast_float_to_int32", "Cast", {"x": xc}, attrs=dict(to=TensorProto.INT32))
    t.op("cast_float_to_bool", "Cast", {"x": xc}, attrs=dict(to=TensorProto.BOOL))
    t.op("cast_int64_to_float", "Cast", {"x": np.array([[-5, 0, 7, 1 << 20]], I64)},
         attrs=dict(to=TensorProto.FLOAT))
    t.op("cast_int32_to_float", "Cast", {"x": np.array([-3, 0, 9], np.int32)},
         attrs=dict(to=TensorProto.FLOAT))
    t.op("cast_bool_to_float", "Cast", {"x": np.array([True, False, True])},
         attrs=dict(to=TensorProto.FLOAT))
    t.op("cast_int64_to_int32", "Cast", {"x": np.array([-5, 0, 7], I64)}, attrs=dict(to=TensorProto.INT32))
    t.op("cast_float_to_float", "Cast", {"x": xc}, attrs=dict(to=TensorProto.FLOAT))


def erf_gelu(x, y, half="half"):
    """GELU as exporters write it below opset 20: x * (erf(x / sqrt2) + 1) * 0.5
    (constants `sqrt2`, `one` and `half`)."""
    return [helper.make_node("Div", [x, "sqrt2"], [x + "_d"]),
            helper.make_node("Erf", [x + "_d"], [x + "_e"]),
            helper.make_node("Add", [x + "_e", "one"], [x + "_e1"]),
            helper.make_node("Mul", [x, x + "_e1"], [x + "_m"]),
            helper.make_node("Mul", [x + "_m", half], [y])]


def graph_cases(t):
    """A few multi-op graphs, so fusion and memory planning see real patterns."""
    t.add("conv_bn_relu_pool", [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"]),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"]),
        helper.make_node("Flatten", ["g"], ["y"])],
        {"x": t.rand(1, 3, 8, 8)},
        consts={"w": t.rand(6, 3, 3, 3), "b": t.rand(6), "s": t.rand(6, lo=0.5, hi=1.5),
                "bb": t.rand(6), "m": t.rand(6), "v": t.rand(6, lo=0.5, hi=1.0)})
    t.add("residual_block", [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "x"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"])],
        {"x": t.rand(1, 4, 6, 6)}, consts={"w1": t.rand(4, 4, 3, 3), "w2": t.rand(4, 4, 3, 3)})
    t.add("mlp_gelu", [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        *erf_gelu("hb", "g"),
        helper.make_node("MatMul", ["g", "w2"], ["y"])],
        {"x": t.rand(2, 4, 8)},
        consts={"w1": t.rand(8, 16), "b1": t.rand(16), "w2": t.rand(16, 8),
                "sqrt2": np.array(np.sqrt(2), F32), "one": np.array(1, F32), "half": np.array(0.5, F32)})
    # Host rows of 768 and 3072 columns (BERT's FFN at a smaller K): split
    # in panels (--host-row-panel), B packed panel by panel, the GELU and
    # the residual add in the epilogues, LayerNormalization in a kernel of
    # its own. 600 columns take panels of 40 (8 divides it, 16 does not).
    t.add("ffn_panels_layernorm", [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        *erf_gelu("hb", "g"),
        helper.make_node("MatMul", ["g", "w2"], ["o"]),
        helper.make_node("Add", ["o", "x"], ["r"]),
        helper.make_node("LayerNormalization", ["r", "ln_g", "ln_b"], ["y"], axis=-1)],
        {"x": t.rand(1, 24, 768)},
        consts={"w1": t.rand(768, 3072, lo=-0.05, hi=0.05), "b1": t.rand(3072),
                "w2": t.rand(3072, 768, lo=-0.05, hi=0.05),
                "ln_g": t.rand(768), "ln_b": t.rand(768),
                "sqrt2": np.array(np.sqrt(2), F32), "one": np.array(1, F32), "half": np.array(0.5, F32)})
    t.op("matmul_panels_600", "MatMul", {"a": t.rand(2, 10, 64)}, {"b": t.rand(64, 600)})
    t.add("attention", [
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["ss"]),
        helper.make_node("Softmax", ["ss"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"])],
        {"q": t.rand(1, 2, 5, 8), "kt": t.rand(1, 2, 8, 5), "v": t.rand(1, 2, 5, 8)},
        consts={"scale": np.array(1 / np.sqrt(8), F32)})
    attention_cases(t)
    flash_attention_cases(t)
    tensor_core_cases(t)
    warp_reduction_cases(t)
    t.add("layernorm_residual_tanh", [
        helper.make_node("Add", ["x", "r"], ["s"]),
        helper.make_node("LayerNormalization", ["s", "g", "b"], ["n"], axis=-1),
        helper.make_node("Tanh", ["n"], ["y"])],
        {"x": t.rand(3, 16), "r": t.rand(3, 16)}, consts={"g": t.rand(16), "b": t.rand(16)})
    t.add("two_outputs", [
        helper.make_node("Sigmoid", ["x"], ["a"]),
        helper.make_node("Exp", ["x"], ["b"]),
        helper.make_node("Sub", ["a", "b"], ["y"])],
        {"x": t.rand(4, 4)}, outputs=("y", "a"))


def tensor_core_cases(t):
    """dlc-tile-gemm-kernels: 16-bit GEMMs as mma.sync CTA programs. On the
    host they run in the CUDA kernel form with every ldmatrix / mma.sync
    emulated per lane, so the schedule's swizzle and fragment indexing is
    checked here; on a GPU the same cases run the real instructions.
    (test/target/tensor-cores.onnxtxt checks that each shape takes that path.)"""
    H = np.float16
    form = ("--cuda-kernel-form",)
    # Native f16; partial CTA tiles in M and N, a partial k-tile (K = 40),
    # B batched like A; f32 accumulation rounded once to f16.
    t.op("mma_f16_tails_batched", "MatMul",
         {"a": t.rand(3, 72, 40).astype(H), "b": t.rand(3, 40, 88).astype(H)},
         extra=form, rtol=2e-3, atol=2e-3)
    # An f32 model at --precision=fp16: a shared [K, N] weight (ldmatrix
    # .trans), bias and Relu applied to the accumulator registers.
    half = ("--precision=fp16",)
    t.add("mma_fp16_bias_relu", [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"])],
        {"x": t.rand(4, 64, 256)}, consts={"w": t.rand(256, 128), "b": t.rand(128)},
        flags=half, extra=form, rtol=1e-2, atol=5e-3)
    # Gemm with transB (B read as [N, K]), alpha scaling the product and
    # beta * C as the accumulator's initial value; bf16 operands.
    t.op("mma_bf16_gemm_transb_alpha_beta", "Gemm", {"x": t.rand(130, 96)},
         {"w": t.rand(200, 96), "c": t.rand(200)},
         attrs=dict(transB=1, alpha=0.5, beta=2.0),
         flags=("--precision=bf16",), extra=form, rtol=3e-2, atol=2e-2)
    # Enough CTAs for every SM with 128x128 tiles (4 warps of 64x64).
    t.op("mma_fp16_128x128_tiles", "MatMul", {"a": t.rand(2048, 32)}, {"b": t.rand(32, 1152)},
         flags=half, extra=form, rtol=1e-2, atol=5e-3)
    # int8: mma.sync m16n8k32 with i32 accumulators, exact. A u8 activation
    # with a zero point (moved into the accumulator's init as -zp * sum(w))
    # times an s8 [K, N] weight (stored [N, K] at compile time); partial
    # tiles in M, N and K (K = 80: a 64-wide k-tile and a zero-filled one).
    ints = lambda dtype, *shape: t.rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max,
                                                size=shape, endpoint=True).astype(dtype)
    # An s8 operand that is a model input, in [-64, 63]: on x86 CPUs without
    # VNNI, ONNX Runtime adds u8 x s8 product pairs in saturating int16 for
    # a non-constant B (harness.run_ort's exact-kernel option covers only
    # constant ones), so full-range inputs would give a wrong reference.
    s8_input = lambda *shape: t.rng.integers(-64, 63, size=shape, endpoint=True).astype(np.int8)
    t.op("mma_int8_u8s8_zero_point", "MatMulInteger", {"x": ints(np.uint8, 2, 72, 80)},
         {"w": ints(np.int8, 80, 88), "xz": np.array(131, np.uint8)}, extra=form)
    # Two activations (attention's P.V in int8): the rhs goes [N, K] through
    # a transpose kernel and the lhs zero point leaves the product through
    # the rhs's column sums, computed at run time; batch dims broadcast.
    t.op("mma_int8_activations", "MatMulInteger",
         {"x": ints(np.uint8, 2, 3, 40, 64), "v": s8_input(1, 3, 64, 48)},
         {"xz": np.array(200, np.uint8), "vz": np.array(0, np.int8)}, extra=form)
    # Both zero points nonzero: -x_zp colsum(v) - v_zp rowsum(x) + K x_zp v_zp.
    t.op("mma_int8_activations_both_zero_points", "MatMulInteger",
         {"x": ints(np.int8, 3, 48, 96), "v": ints(np.int8, 3, 96, 40)},
         {"xz": np.array(-9, np.int8), "vz": np.array(17, np.int8)}, extra=form)
    # s8 x s8 with 128x128 tiles and a per-column weight zero point of 0.
    t.op("mma_int8_s8s8_128x128_tiles", "MatMulInteger", {"x": ints(np.int8, 2048, 64)},
         {"w": ints(np.int8, 64, 1152), "xz": np.array(-7, np.int8),
          "wz": np.zeros(1152, np.int8)}, extra=form)
    # --allow-tf32: f32 GEMMs on mma.sync m16n8k8 with operands rounded to
    # TF32 (10-bit mantissas; the tolerance is TF32's, a wrong fragment
    # index is off by O(1)). A constant [K, N] weight is stored [N, K].
    tf32 = ("--allow-tf32",)
    t.add("mma_tf32_matmul_bias", [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["y"])],
        {"x": t.rand(2, 72, 96)}, consts={"w": t.rand(96, 88), "b": t.rand(88)},
        flags=tf32, extra=form, rtol=1e-2, atol=1e-2)
    t.op("mma_tf32_gemm_transb_alpha_beta", "Gemm", {"x": t.rand(130, 100)},
         {"w": t.rand(200, 100), "c": t.rand(200)},
         attrs=dict(transB=1, alpha=0.5, beta=2.0), flags=tf32, extra=form,
         rtol=1e-2, atol=1e-2)
    # Convolutions as implicit GEMMs (NHWC, the CUDA form's default layout):
    # the A tile gathered from the (padded) input window. Stride 2 and
    # dilation 2, batch 2, a 3x2 window, 24 output channels (a partial N
    # tile), bias.
    t.op("mma_conv_fp16_stride_dilation", "Conv", {"x": t.rand(2, 16, 15, 13)},
         {"w": t.rand(24, 16, 3, 2), "b": t.rand(24)},
         attrs=dict(pads=[1, 1, 1, 1], strides=[2, 1], dilations=[1, 2]),
         flags=half, extra=form, rtol=1e-2, atol=5e-3)
    # Stems (stride 2, few channels) run space-to-depth: the conv at stride
    # 1 over 2x2 pixel blocks of 4 * C channels and a [O, 4, 4, 16] weight.
    # Odd padded sizes (the last block half outside the input) and a 7x7
    # window split unevenly into 2x2 taps.
    t.op("mma_conv_fp16_stem_space_to_depth", "Conv", {"x": t.rand(2, 3, 23, 21)},
         {"w": t.rand(24, 3, 7, 7), "b": t.rand(24)},
         attrs=dict(pads=[3, 3, 3, 3], strides=[2, 2]),
         flags=half, extra=form, rtol=1e-2, atol=5e-3)
    # One channel (4 * C = 4, padded to 8), asymmetric pads.
    t.op("mma_conv_fp16_gray_space_to_depth", "Conv", {"x": t.rand(1, 1, 12, 13)},
         {"w": t.rand(16, 1, 5, 5)},
         attrs=dict(pads=[2, 1, 0, 2], strides=[2, 2]),
         flags=half, extra=form, rtol=1e-2, atol=5e-3)
    # TF32: 8 channels fill a 16-byte chunk of f32.
    t.op("mma_conv_tf32_1x1", "Conv", {"x": t.rand(1, 8, 12, 12)},
         {"w": t.rand(32, 8, 1, 1)}, flags=tf32, extra=form, rtol=1e-2, atol=1e-2)
    # int8 QDQ conv (dlc-fold-qdq: conv_integer + requantize): 16 input
    # channels, an input zero point padded in by the NHWC copy and taken
    # out again through the accumulator's init (-zp * sum(w)).
    r = np.random.default_rng(11)
    add_qdq_conv(t, r, "mma_conv_int8_qdq_zero_point", (1, 16, 10, 9), (32, 16, 3, 3),
                 xz=23, ys=0.02, yz=-5, conv_attrs=dict(pads=[1, 1, 1, 1]),
                 extra=form, rtol=0, atol=0.0201)
    # sm_90a: GEMMs with a K-major B on warpgroup wgmma, operands read from
    # the 128-byte-swizzled stages through matrix descriptors (emulated by
    # decoding the descriptors as the PTX ISA defines them). A constant [K,
    # N] weight is stored [N, K]; M, N and K tails (K = 72: a 64-wide k-tile
    # and a zero-filled one); 64x64 tiles (the cost model's choice for so
    # few output tiles), one warpgroup.
    sm90a = ("--arch=sm_90a",)
    t.add("wgmma_fp16_bias_relu_tails", [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"])],
        {"x": t.rand(2, 100, 72)}, consts={"w": t.rand(72, 136), "b": t.rand(136)},
        flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=5e-3)
    t.op("wgmma_bf16_gemm_transb_alpha_beta", "Gemm", {"x": t.rand(130, 96)},
         {"w": t.rand(200, 96), "c": t.rand(200)},
         attrs=dict(transB=1, alpha=0.5, beta=2.0),
         flags=("--precision=bf16", *sm90a), extra=form, rtol=3e-2, atol=2e-2)
    # The cost model's tile shapes (estimateCycles): two warpgroups, each
    # an m64 block, of 128x192 (96 CTAs on 132 SMs), 128x128 and 128x64;
    # one warpgroup of 64x96 (wgmma n96: 12 n8 fragments a row).
    t.op("wgmma_fp16_128x192_tiles", "MatMul", {"a": t.rand(2048, 32)}, {"b": t.rand(32, 1152)},
         flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=5e-3)
    t.op("wgmma_fp16_128x128_tiles", "MatMul", {"a": t.rand(256, 512, lo=-0.5, hi=0.5)},
         {"b": t.rand(512, 256, lo=-0.5, hi=0.5)},
         flags=(*half, *sm90a, "--sm-count=4"), extra=form, rtol=1e-2, atol=1e-2)
    t.op("wgmma_fp16_128x64_tiles", "MatMul", {"a": t.rand(1000, 64)}, {"b": t.rand(64, 64)},
         flags=(*half, *sm90a, "--sm-count=4"), extra=form, rtol=1e-2, atol=5e-3)
    t.op("wgmma_fp16_64x96_tiles", "MatMul", {"a": t.rand(60, 64)}, {"b": t.rand(64, 190)},
         flags=(*half, *sm90a, "--sm-count=2"), extra=form, rtol=1e-2, atol=5e-3)
    # int8: wgmma k32 u8 x s8, i32 accumulators, exact.
    t.op("wgmma_int8_u8s8_zero_point", "MatMulInteger", {"x": ints(np.uint8, 2, 72, 80)},
         {"w": ints(np.int8, 80, 88), "xz": np.array(131, np.uint8)},
         flags=sm90a, extra=form)
    t.op("wgmma_int8_activations", "MatMulInteger",
         {"x": ints(np.uint8, 2, 3, 40, 64), "v": s8_input(1, 3, 64, 48)},
         {"xz": np.array(200, np.uint8), "vz": np.array(0, np.int8)},
         flags=sm90a, extra=form)
    # An implicit-GEMM convolution: the gathered A tile in wgmma's layout.
    # The int8 convolution with its input zero point, on wgmma, padding
    # folded into the im2col loads: chunks outside the input get the zero
    # point, stored by the threads instead of copied (asymmetric pads; 99
    # output pixels, a partial M tile).
    add_qdq_conv(t, r, "wgmma_conv_int8_qdq_zero_point", (1, 32, 10, 9), (32, 32, 3, 3),
                 xz=-37, ys=0.03, yz=4, conv_attrs=dict(pads=[2, 0, 1, 2]),
                 flags=sm90a, extra=form, rtol=0, atol=0.0301)
    # Pads as wide as the window (whole windows outside the input, all
    # their chunks zero-filled), stride 2.
    t.op("wgmma_conv_fp16_wide_pads", "Conv", {"x": t.rand(1, 16, 9, 11)},
         {"w": t.rand(32, 16, 3, 3)},
         attrs=dict(pads=[3, 0, 2, 4], strides=[2, 2]),
         flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=5e-3)
    # MobileNet's stem: 3x3 stride 2, pad 1 -> a 2x2 conv over 16 channels.
    t.op("wgmma_conv_fp16_stem_space_to_depth", "Conv", {"x": t.rand(1, 3, 18, 17)},
         {"w": t.rand(32, 3, 3, 3), "b": t.rand(32)},
         attrs=dict(pads=[1, 1, 1, 1], strides=[2, 2]),
         flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=5e-3)
    t.op("wgmma_conv_fp16_stride_dilation", "Conv", {"x": t.rand(2, 16, 15, 13)},
         {"w": t.rand(24, 16, 3, 2), "b": t.rand(24)},
         attrs=dict(pads=[1, 1, 1, 1], strides=[2, 1], dilations=[1, 2]),
         flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=5e-3)
    # TMA around the ring: 9 k-tiles per CTA (K = 560, the last 48 wide and
    # zero-filled past K) through 4 slots, 68 CTAs (no split-K). The MatMul
    # has both operands on TMA (warp-specialized: the producer waits for the
    # consumers' releases of the slots' earlier fills); the 3x3 convolution
    # loads only its weight by TMA and its im2col window by cp.async.
    t.op("tma_matmul_fp16_ring", "MatMul", {"x": t.rand(2, 2176, 560)},
         {"w": t.rand(560, 128)}, flags=(*half, *sm90a), extra=form,
         rtol=1e-2, atol=1e-2)
    t.op("tma_conv_fp16_ring", "Conv", {"x": t.rand(1, 64, 66, 66)},
         {"w": t.rand(128, 64, 3, 3)}, attrs=dict(pads=[1, 1, 1, 1]),
         flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=1e-2)
    # int8 on TMA: boxes of 128 i8 of k (K = 160: a full and a zero-filled
    # k-tile); N = 40 cuts B's box to 40 rows (a box may not exceed its
    # tensor), the tile's other rows only feed discarded columns.
    t.op("tma_int8_u8s8_short_n", "MatMulInteger", {"x": ints(np.uint8, 2, 72, 160)},
         {"w": ints(np.int8, 160, 40), "xz": np.array(97, np.uint8)},
         flags=sm90a, extra=form)
    # More tiles than --sm-count plans for: groups of 2 tile rows, column-
    # major inside a group (the L2-friendly raster; a permutation of the
    # tiles, so a wrong mapping leaves tiles unwritten or written twice).
    t.op("raster_groups_fp16", "Gemm", {"x": t.rand(512, 64)},
         {"w": t.rand(256, 64, lo=-1, hi=1)}, attrs=dict(transB=1),
         flags=("--precision=fp16", "--sm-count=4"), extra=form, rtol=1e-2, atol=2e-2)
    t.op("raster_groups_wgmma_fp16", "Gemm", {"x": t.rand(512, 64)},
         {"w": t.rand(512, 64, lo=-1, hi=1)}, attrs=dict(transB=1),
         flags=sm90a + ("--precision=fp16", "--sm-count=4"), extra=form, rtol=1e-2, atol=2e-2)
    # Persistent CTAs (--persistent-gemm): one wave of CTAs looping over the
    # tiles, the producer's and consumers' k-tile counts running on from
    # tile to tile. 3 k-tiles (K = 168, the last zero-filled past K) through
    # 4 slots, so a tile's k-tiles start at a different slot each time and
    # the phase parities cross tiles; batched A, M and N tails; 9 tiles over
    # 2 CTAs (5 and 4).
    persistent = (*half, *sm90a, "--persistent-gemm")
    t.op("persistent_matmul_fp16", "MatMul", {"x": t.rand(3, 300, 168)},
         {"w": t.rand(168, 136)}, flags=(*persistent, "--sm-count=2"), extra=form,
         rtol=1e-2, atol=1e-2)
    # Raster groups (2 tile rows) inside the persistent tile loop: 10 x 3
    # tiles of 64x128 on 2 SMs (4 CTAs a wave) over 4 CTAs, two with 8
    # tiles and two with 7.
    t.op("persistent_raster_groups_fp16", "Gemm", {"x": t.rand(640, 64)},
         {"w": t.rand(384, 64, lo=-1, hi=1)}, attrs=dict(transB=1),
         flags=(*persistent, "--sm-count=2", "--gemm-tile=64x128"), extra=form,
         rtol=1e-2, atol=2e-2)
    t.op("persistent_int8_u8s8", "MatMulInteger", {"x": ints(np.uint8, 8, 72, 384)},
         {"w": ints(np.int8, 384, 40), "xz": np.array(97, np.uint8)},
         flags=(*sm90a, "--persistent-gemm", "--sm-count=1"), extra=form)
    # A and B one buffer (x xT): two tensor maps over the same input, which
    # replace the one operand argument; split-K at 8 output tiles.
    t.op("tma_gram_fp16", "Gemm", {"x": t.rand(256, 512)}, order=["x", "x"],
         attrs=dict(transB=1), flags=(*half, *sm90a), extra=form,
         rtol=1e-2, atol=2e-2)
    # A 1x1 convolution at stride 1 reads its NHWC input as the [pixels, C]
    # A matrix: both operands on TMA, warp-specialized like the MatMul.
    t.op("tma_conv1x1_fp16_ring", "Conv", {"x": t.rand(1, 576, 66, 66)},
         {"w": t.rand(128, 576, 1, 1), "b": t.rand(128)},
         flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=1e-2)
    # Split-K: output tiles that leave half the SMs idle share the k-tiles
    # among CTAs (partial sums to a workspace, added up in a fixed order by
    # the kernel that keeps the init and epilogue). 49 x 256 outputs, K =
    # 2304 (resnet50's last 3x3 convs at batch 1): 4 mma.sync tiles of 64x64,
    # 18 splits of 4 k-tiles each (72 CTAs).
    t.add("splitk_fp16_bias_relu", [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"])],
        {"x": t.rand(49, 2304, lo=-0.2, hi=0.2)},
        consts={"w": t.rand(2304, 256, lo=-0.2, hi=0.2), "b": t.rand(256)},
        flags=half, extra=form, rtol=1e-2, atol=5e-3)
    t.op("splitk_conv_fp16_wgmma", "Conv", {"x": t.rand(1, 256, 7, 7, lo=-0.2, hi=0.2)},
         {"w": t.rand(64, 256, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(64)},
         attrs=dict(pads=[1, 1, 1, 1]), flags=(*half, *sm90a), extra=form,
         rtol=1e-2, atol=5e-3)
    # Without clusters (mma.sync) the split goes through a workspace: the
    # partial-sum copy of the kernel reads the unpadded input (asymmetric
    # pads folded into its zero-filling im2col loads, no padded copy) and
    # the kernel adding the partial sums reads neither operand.
    t.op("splitk_conv_fp16_mma_asym_pads", "Conv",
         {"x": t.rand(1, 256, 7, 7, lo=-0.2, hi=0.2)},
         {"w": t.rand(64, 256, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(64)},
         attrs=dict(pads=[2, 1, 0, 1]), flags=half, extra=form,
         rtol=1e-2, atol=5e-3)
    t.op("splitk_int8_u8s8_zero_point", "MatMulInteger", {"x": ints(np.uint8, 33, 1024)},
         {"w": ints(np.int8, 1024, 64), "xz": np.array(131, np.uint8)}, extra=form)
    # At sm_90a a split tile's CTAs are one cluster: rank 0 adds the other
    # ranks' accumulators (distributed shared memory; emulated, the ranks
    # run in turn) and runs the epilogue. The conv above: 8 ranks, the last
    # with 1 of the 36 k-tiles. BERT's projection at batch 1 (both operands
    # on TMA, warp-specialized): 6 tiles of 3 ranks, bias in the epilogue;
    # and an int8 one (s32 accumulators).
    t.add("splitk_cluster_fp16_bert_projection", [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["y"])],
        {"x": t.rand(1, 128, 768, lo=-0.2, hi=0.2)},
        consts={"w": t.rand(768, 768, lo=-0.2, hi=0.2), "b": t.rand(768)},
        flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=5e-3)
    t.op("splitk_cluster_int8", "MatMulInteger", {"x": ints(np.uint8, 33, 1024)},
         {"w": ints(np.int8, 1024, 64), "xz": np.array(131, np.uint8)},
         flags=sm90a, extra=form)
    # A convolution gathering its A operand (im2col by cp.async) whose tiles
    # fill between half and one wave of SMs chooses tile and split together
    # (gather-split-k): at --sm-count=6, 4 CTAs of 128x128 become 2 tiles of
    # 128x256 in clusters of 3 ranks (6 of its 18 k-tiles each).
    t.op("gather_split_conv_fp16_wgmma", "Conv", {"x": t.rand(1, 128, 14, 14, lo=-0.2, hi=0.2)},
         {"w": t.rand(256, 128, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(256)},
         attrs=dict(pads=[1, 1, 1, 1]), flags=(*half, *sm90a, "--sm-count=6"), extra=form,
         rtol=1e-2, atol=5e-3)
    # CTAs that fit one wave, one an SM, get every stage K fills and shared
    # memory holds: 4 CTAs of 128x128 for 6 SMs, 7 stages for 5 k-tiles.
    t.op("deep_stages_conv_fp16_wgmma", "Conv", {"x": t.rand(1, 32, 14, 14, lo=-0.2, hi=0.2)},
         {"w": t.rand(256, 32, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(256)},
         attrs=dict(pads=[1, 1, 1, 1]), flags=(*half, *sm90a, "--sm-count=6"), extra=form,
         rtol=1e-2, atol=5e-3)
    # --gemm-ctas-per-sm=2 with more tiles than --sm-count=1 holds: fewer
    # stages, so that two CTAs share an SM. int8 on TMA (warp-specialized):
    # K = 256 is 2 k-tiles of 128, whose 4 slots of 32 KiB go to 3 (one
    # k-tile in flight beside the one multiplied; the slots wrap within a
    # tile and across the 3 x 2 tiles).
    t.op("ctas_per_sm_int8_tma", "MatMulInteger", {"x": ints(np.uint8, 3, 150, 256)},
         {"w": ints(np.int8, 256, 136), "xz": np.array(97, np.uint8)},
         flags=(*sm90a, "--sm-count=1", "--gemm-ctas-per-sm=2"), extra=form)
    # A gathered int8 convolution: 5 k-tiles through 3 slots, each CTA's
    # cp.async im2col loads one k-tile ahead.
    add_qdq_conv(t, r, "ctas_per_sm_conv_int8_gather", (1, 64, 16, 12), (64, 64, 3, 3),
                 xz=-37, ys=0.03, yz=4, conv_attrs=dict(pads=[1, 1, 1, 1]),
                 flags=(*sm90a, "--sm-count=1", "--gemm-ctas-per-sm=2"), extra=form,
                 rtol=0, atol=0.0301)
    # And f16: 9 k-tiles of 64 through 3 slots.
    t.op("ctas_per_sm_conv_fp16_gather", "Conv", {"x": t.rand(1, 64, 16, 12, lo=-0.2, hi=0.2)},
         {"w": t.rand(128, 64, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(128)},
         attrs=dict(pads=[1, 1, 1, 1]),
         flags=(*half, *sm90a, "--sm-count=1", "--gemm-ctas-per-sm=2"), extra=form,
         rtol=1e-2, atol=5e-3)
    # --gather-producer-warps=N: N producer warps gather the im2col operand
    # (each thread chunks t, t + 32N, ...), the first thread also issuing
    # the weight's TMA copy; the consumers only wait on the full mbarriers.
    # int8 with a non-zero input zero point (the padding's chunks stored by
    # the producers), 5 k-tiles through 3 slots at --sm-count=1; f16 in
    # clusters of 3 ranks (gather-split-k at --sm-count=6, as above); a
    # strided, dilated f16 one on 128-row tiles (two consumer warpgroups).
    add_qdq_conv(t, r, "gather_producer_conv_int8_zero_point", (1, 64, 16, 12), (64, 64, 3, 3),
                 xz=-37, ys=0.03, yz=4, conv_attrs=dict(pads=[1, 1, 1, 1]),
                 flags=(*sm90a, "--sm-count=1", "--gemm-ctas-per-sm=2",
                        "--gather-producer-warps=1"), extra=form, rtol=0, atol=0.0301)
    t.op("gather_producer_conv_fp16_cluster", "Conv", {"x": t.rand(1, 128, 14, 14, lo=-0.2, hi=0.2)},
         {"w": t.rand(256, 128, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(256)},
         attrs=dict(pads=[1, 1, 1, 1]),
         flags=(*half, *sm90a, "--sm-count=6", "--gather-producer-warps=2"), extra=form,
         rtol=1e-2, atol=5e-3)
    t.op("gather_producer_conv_fp16_strided", "Conv", {"x": t.rand(2, 32, 19, 17, lo=-0.2, hi=0.2)},
         {"w": t.rand(64, 32, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(64)},
         attrs=dict(pads=[2, 1, 1, 2], strides=[2, 1], dilations=[1, 2]),
         flags=(*half, *sm90a, "--gemm-tile=128x64", "--gather-producer-warps=4"),
         extra=form, rtol=1e-2, atol=5e-3)
    # --tma-im2col: the copy engine gathers the im2col window (TMA im2col
    # mode, emulated from the map's bounding box and the copy's corner
    # and kernel offsets). f16: asymmetric folded pads, H stride 2, W
    # dilation 2, the 100 output pixels of 2 images in one 128-pixel copy
    # (its last 28 past the batch, zeros); int8 with a zero point of 0
    # (zero padding, which TMA fills), 128 channels a k-tile; a strided 1x1
    # (resnet's downsample) through an unpadded box; f16 in clusters of 3.
    t.op("tma_im2col_conv_fp16", "Conv", {"x": t.rand(2, 64, 9, 11, lo=-0.2, hi=0.2)},
         {"w": t.rand(64, 64, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(64)},
         attrs=dict(pads=[2, 1, 1, 2], strides=[2, 1], dilations=[1, 2]),
         flags=(*half, *sm90a, "--gemm-tile=128x64", "--tma-im2col"), extra=form,
         rtol=1e-2, atol=5e-3)
    add_qdq_conv(t, r, "tma_im2col_conv_int8", (1, 128, 10, 9), (64, 128, 3, 3),
                 xz=0, ys=0.03, yz=4, conv_attrs=dict(pads=[1, 1, 1, 1]),
                 flags=(*sm90a, "--tma-im2col"), extra=form, rtol=0, atol=0.0301)
    # 64 int8 channels (resnet50's layer1): 64-byte k-tiles, one window
    # position each, the 64-byte swizzle.
    add_qdq_conv(t, r, "tma_im2col_conv_int8_64_channels", (2, 64, 7, 6), (64, 64, 3, 3),
                 xz=0, ys=0.03, yz=4, conv_attrs=dict(pads=[1, 1, 1, 1]),
                 flags=(*sm90a, "--tma-im2col"), extra=form, rtol=0, atol=0.0301)
    # An int8 stem (7x7, stride 2, pads 3, RGB; post-training int8's with
    # --quantize-first-last, ONNX Runtime's QDQ resnet50's): the float
    # stem's space-to-depth form, 4x4 at stride 1 over 16 channels (K 256
    # instead of 784); sm_90a (wgmma) and sm_80 (mma.sync); the copy pads
    # with the input's zero point (-37 here; mma_conv_int8_qdq_stem, -11).
    for xz, arch, name in ((0, sm90a, "sm90a"), (0, ("--arch=sm_80",), "sm80"),
                           (-37, sm90a, "zero_point")):
        add_qdq_conv(t, r, f"int8_stem_space_to_depth_{name}", (2, 3, 30, 27), (64, 3, 7, 7),
                     xz=xz, ys=0.03, yz=4, conv_attrs=dict(pads=[3, 3, 3, 3], strides=[2, 2]),
                     flags=arch, extra=form, rtol=0, atol=0.0301)
    # A zero point of -37 pads with -37, which TMA cannot fill: cp.async.
    add_qdq_conv(t, r, "tma_im2col_conv_int8_zero_point", (1, 128, 10, 9), (64, 128, 3, 3),
                 xz=-37, ys=0.03, yz=4, conv_attrs=dict(pads=[1, 1, 1, 1]),
                 flags=(*sm90a, "--tma-im2col"), extra=form, rtol=0, atol=0.0301)
    # An f16 stem (7x7, stride 2, pads 3, RGB) in space-to-depth form, 4x4
    # over 16 channels: window positions of 32 bytes, so 32-byte k-tiles
    # with the 32-byte swizzle, one position a copy, 16 of them.
    t.op("tma_im2col_stem_fp16", "Conv", {"x": t.rand(2, 3, 30, 27, lo=-1, hi=1)},
         {"w": t.rand(64, 3, 7, 7, lo=-0.2, hi=0.2), "b": t.rand(64)},
         attrs=dict(pads=[3, 3, 3, 3], strides=[2, 2]),
         flags=(*half, *sm90a, "--tma-im2col"), extra=form, rtol=1e-2, atol=5e-3)
    t.op("tma_im2col_conv_fp16_downsample", "Conv", {"x": t.rand(2, 64, 12, 10, lo=-0.2, hi=0.2)},
         {"w": t.rand(128, 64, 1, 1, lo=-0.2, hi=0.2)}, attrs=dict(strides=[2, 2]),
         flags=(*half, *sm90a, "--tma-im2col"), extra=form, rtol=1e-2, atol=5e-3)
    t.op("tma_im2col_conv_fp16_cluster", "Conv", {"x": t.rand(1, 128, 14, 14, lo=-0.2, hi=0.2)},
         {"w": t.rand(256, 128, 3, 3, lo=-0.2, hi=0.2), "b": t.rand(256)},
         attrs=dict(pads=[1, 1, 1, 1]),
         flags=(*half, *sm90a, "--sm-count=6", "--tma-im2col"), extra=form,
         rtol=1e-2, atol=5e-3)
    # --producer-warpgroup: a two-TMA GEMM whose CTAs have their SMs alone
    # gets a producer warpgroup giving the consumers its registers
    # (setmaxnreg; on the GPU only: emulated, the same program as without).
    t.op("producer_warpgroup_fp16", "Gemm", {"a": t.rand(512, 256, lo=-0.5, hi=0.5)},
         {"b": t.rand(256, 256, lo=-0.5, hi=0.5)}, attrs=dict(transB=1),
         flags=(*half, *sm90a, "--gemm-tile=128x128", "--producer-warpgroup"), extra=form,
         rtol=1e-2, atol=1e-2)
    t.op("producer_warpgroup_int8", "MatMulInteger", {"x": ints(np.uint8, 3, 150, 256)},
         {"w": ints(np.int8, 256, 136), "xz": np.array(97, np.uint8)},
         flags=(*sm90a, "--gemm-tile=128x128", "--producer-warpgroup"), extra=form)
    # --prefetch-epilogue-inputs: a 1x1 convolution over 128 f16 channels (2
    # k-tiles on TMA, 4 slots) adding a residual (ReLU of another
    # convolution, staged with --stage-epilogue-inputs) copies the residual
    # into the 2 slots its k-loop leaves empty as its CTAs start.
    t.add("prefetch_inputs_fp16_residual", [
        helper.make_node("Conv", ["x", "wa"], ["ra0"]),
        helper.make_node("Relu", ["ra0"], ["ra"]),
        helper.make_node("Conv", ["x", "wb"], ["c"]),
        helper.make_node("Add", ["c", "ra"], ["s"]),
        helper.make_node("Relu", ["s"], ["t"]),
        helper.make_node("Conv", ["t", "wc"], ["y"])],
        {"x": t.rand(2, 128, 16, 12, lo=-0.5, hi=0.5)},
        consts={"wa": t.rand(256, 128, 1, 1, lo=-0.2, hi=0.2),
                "wb": t.rand(256, 128, 1, 1, lo=-0.2, hi=0.2),
                "wc": t.rand(64, 256, 1, 1, lo=-0.2, hi=0.2)},
        flags=(*half, *sm90a, "--stage-epilogue-inputs", "--prefetch-epilogue-inputs"),
        extra=form, rtol=1e-2, atol=1e-2)
    # GPT-2's MLP as transformers exports it (Conv1D: Reshape, Gemm with the
    # [in, out] weight, Reshape back; gelu_new; residual): dlc-unflatten-gemms
    # makes both Gemms batched MatMuls, so they run as wgmma CTA programs
    # (the weights K-major) with the bias, the GELU, the f16 cast and the
    # residual Add in their epilogues, the second a cluster split-K.
    t.add("gpt2_conv1d_mlp_fp16", [
        helper.make_node("Reshape", ["x", "rows"], ["xr"]),
        helper.make_node("Gemm", ["xr", "w1", "b1"], ["h1"]),
        helper.make_node("Reshape", ["h1", "s1"], ["f"]),
        helper.make_node("Mul", ["f", "half_"], ["fh"]),
        helper.make_node("Pow", ["f", "three"], ["f3"]),
        helper.make_node("Mul", ["f3", "c"], ["f3c"]),
        helper.make_node("Add", ["f", "f3c"], ["inner"]),
        helper.make_node("Mul", ["inner", "sqrt2pi"], ["arg"]),
        helper.make_node("Tanh", ["arg"], ["th"]),
        helper.make_node("Add", ["th", "one"], ["th1"]),
        helper.make_node("Mul", ["fh", "th1"], ["g"]),
        helper.make_node("Reshape", ["g", "rows2"], ["gr"]),
        helper.make_node("Gemm", ["gr", "w2", "b2"], ["h2"]),
        helper.make_node("Reshape", ["h2", "s2"], ["p"]),
        helper.make_node("Add", ["x", "p"], ["y"])],
        {"x": t.rand(1, 128, 256, lo=-1, hi=1)},
        consts={"rows": np.array([-1, 256], np.int64),
                "w1": t.rand(256, 1024, lo=-0.1, hi=0.1), "b1": t.rand(1024),
                "s1": np.array([1, 128, 1024], np.int64),
                "half_": np.array(0.5, np.float32), "three": np.array(3.0, np.float32),
                "c": np.array(0.044715, np.float32),
                "sqrt2pi": np.array(0.7978845608, np.float32),
                "one": np.array(1.0, np.float32),
                "rows2": np.array([-1, 1024], np.int64),
                "w2": t.rand(1024, 256, lo=-0.1, hi=0.1), "b2": t.rand(256),
                "s2": np.array([1, 128, 256], np.int64)},
        flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=1e-2)
    # BERT's FFN as exported below opset 20: the erf GELU (Div by sqrt(2),
    # Erf, Add 1, Mul x, Mul 0.5) becomes one dlc.gelu (dlc-fuse-activations)
    # in the first GEMM's epilogue; the second GEMM adds the residual. 2 x 128
    # rows at --sm-count=4: wgmma n192 tiles for the first, n128 for the
    # second.
    t.add("bert_ffn_erf_gelu_fp16", [
        helper.make_node("MatMul", ["x", "w1"], ["m1"]),
        helper.make_node("Add", ["m1", "b1"], ["h"]),
        *erf_gelu("h", "g", half="half_"),
        helper.make_node("MatMul", ["g", "w2"], ["m2"]),
        helper.make_node("Add", ["m2", "x"], ["y"])],
        {"x": t.rand(2, 128, 192, lo=-1, hi=1)},
        consts={"w1": t.rand(192, 384, lo=-0.1, hi=0.1), "b1": t.rand(384),
                "sqrt2": np.array(1.4142135381698608, np.float32),
                "one": np.array(1.0, np.float32), "half_": np.array(0.5, np.float32),
                "w2": t.rand(384, 192, lo=-0.1, hi=0.1)},
        flags=(*half, *sm90a, "--sm-count=4"), extra=form, rtol=1e-2, atol=1e-2)
    # --short-k-tiles: K of 64 bytes or less in k-tiles of 64 bytes, rows
    # with the 64-byte swizzle (wgmma descriptor mode 2, TMA SWIZZLE_64B).
    # int8 K = 64 on TMA (A the activation, B the [N, K] weight; M and N
    # tails); K = 48 (short of the 64-byte box: cp.async, the last chunk
    # zero-filled); an int8 1x1 convolution over 64 channels (A on TMA); a
    # 3x1 one over 16 (K = 48, gathered); f16 K = 32.
    short_k = (*sm90a, "--short-k-tiles")
    t.op("short_k_int8_tma", "MatMulInteger", {"x": ints(np.uint8, 3, 100, 64)},
         {"w": ints(np.int8, 64, 136), "xz": np.array(97, np.uint8)},
         flags=short_k, extra=form)
    t.op("short_k_int8_cp_async", "MatMulInteger", {"x": ints(np.uint8, 2, 72, 48)},
         {"w": ints(np.int8, 48, 72), "xz": np.array(131, np.uint8)},
         flags=short_k, extra=form)
    add_qdq_conv(t, r, "short_k_conv_int8_pointwise", (2, 64, 10, 9), (96, 64, 1, 1),
                 xz=-37, ys=0.03, yz=4, conv_attrs={}, flags=short_k, extra=form,
                 rtol=0, atol=0.0301)
    add_qdq_conv(t, r, "short_k_conv_int8_gather", (1, 16, 12, 10), (64, 16, 3, 1),
                 xz=-37, ys=0.03, yz=4, conv_attrs=dict(pads=[1, 0, 1, 0]),
                 flags=short_k, extra=form, rtol=0, atol=0.0301)
    t.op("short_k_matmul_fp16", "Gemm", {"x": t.rand(200, 32)},
         {"w": t.rand(144, 32, lo=-1, hi=1)}, attrs=dict(transB=1),
         flags=(*half, *short_k), extra=form, rtol=1e-2, atol=1e-2)
    # An f16 convolution whose epilogue quantizes to int8 for an int8
    # MaxPool, as post-training int8 keeps resnet50's stem: the int8 output
    # is staged in the stage memory viewed as i8 and copied out in 16-byte
    # chunks of 16 elements (7 tiles of 128 rows, the last partial).
    # Eighths, sixteenths and a power-of-two scale keep every sum exact in
    # f16 x f16 -> f32, so the quantized values are ONNX Runtime's.
    for arch, name in ((sm90a, "sm90a"), (("--arch=sm_80",), "sm80")):
        t.add(f"staged_int8_output_fp16_conv_{name}", [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("QuantizeLinear", ["r", "s", "z"], ["q"]),
            helper.make_node("MaxPool", ["q"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
            helper.make_node("DequantizeLinear", ["p", "s", "z"], ["y"])],
            {"x": (t.rng.integers(-8, 9, size=(2, 16, 20, 20)) / 8).astype(F32)},
            consts={"w": (t.rng.integers(-8, 9, size=(64, 16, 3, 3)) / 16).astype(F32),
                    "b": (t.rng.integers(-8, 9, size=64) / 64).astype(F32),
                    "s": np.array(1 / 32, F32), "z": np.array(-100, np.int8)},
            flags=(*half, *arch), extra=form, rtol=0, atol=1e-6)
    # --vectorize-lane-chains: an int8 max pool (3x3, stride 2, padded, as
    # resnet50's stem) whose work items take 16 channels (--sm-count=1: 392
    # of them are enough to fill the GPU): their selects and
    # maxima become vector ops, on sm_90a bytes' maxima as two of 16-bit
    # lanes (u8 after a ReLU with zero point 0; s8 with zero point -100).
    for zp, dtype in ((0, np.uint8), (-100, np.int8)):
        t.add(f"lane_chains_maxpool_{dtype.__name__}", [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("QuantizeLinear", ["r", "s", "z"], ["q"]),
            helper.make_node("MaxPool", ["q"], ["p"], kernel_shape=[3, 3], strides=[2, 2],
                             pads=[1, 1, 1, 1]),
            helper.make_node("DequantizeLinear", ["p", "s", "z"], ["y"])],
            {"x": (t.rng.integers(-8, 9, size=(2, 16, 13, 14)) / 8).astype(F32)},
            consts={"w": (t.rng.integers(-8, 9, size=(64, 16, 3, 3)) / 16).astype(F32),
                    "b": (t.rng.integers(-8, 9, size=64) / 64).astype(F32),
                    "s": np.array(1 / 32, F32), "z": np.array(zp, dtype)},
            flags=(*half, *sm90a, "--sm-count=1", "--vectorize-lane-chains"), extra=form,
            rtol=0, atol=1e-6)
    # BERT's Q, K and V projections: GEMMs of one launch shape on the same
    # input, merged into one launch (dlc-merge-launches): CTAs [0, 36) run
    # Q's 12 clusters of 3, the next 12 the 4 of a narrower K (N = 256), the
    # last 36 V's.
    t.add("merged_launch_qkv_fp16", [
        helper.make_node("MatMul", ["x", "wq"], ["mq"]),
        helper.make_node("Add", ["mq", "bq"], ["q"]),
        helper.make_node("MatMul", ["x", "wk"], ["mk"]),
        helper.make_node("Add", ["mk", "bk"], ["k"]),
        helper.make_node("MatMul", ["x", "wv"], ["v"])],
        {"x": t.rand(1, 128, 768, lo=-0.2, hi=0.2)},
        consts={"wq": t.rand(768, 768, lo=-0.2, hi=0.2), "bq": t.rand(768),
                "wk": t.rand(768, 256, lo=-0.2, hi=0.2), "bk": t.rand(256),
                "wv": t.rand(768, 768, lo=-0.2, hi=0.2)},
        outputs=("q", "k", "v"), flags=(*half, *sm90a), extra=form, rtol=1e-2, atol=5e-3)
    # A stem: 3 input channels zero-padded to 8 (input and weight), so the
    # 7x7 stride-2 conv runs as an implicit GEMM (K = 7 * 7 * 8).
    t.op("mma_conv_fp16_stem_channels_padded", "Conv", {"x": t.rand(1, 3, 30, 30)},
         {"w": t.rand(16, 3, 7, 7, lo=-0.3, hi=0.3), "b": t.rand(16)},
         attrs=dict(pads=[3, 3, 3, 3], strides=[2, 2]), flags=half, extra=form,
         rtol=1e-2, atol=5e-3)
    # An int8 QDQ stem: 3 channels padded to 16 (the weight with zeros; the
    # input's zero point pads the input), an int8 implicit GEMM.
    add_qdq_conv(t, r, "mma_conv_int8_qdq_stem", (1, 3, 30, 30), (16, 3, 7, 7),
                 xz=-11, ys=0.05, yz=3, conv_attrs=dict(pads=[3, 3, 3, 3], strides=[2, 2]),
                 extra=form, rtol=0, atol=0.0501)
    # QLinearMatMul: the requantize epilogue on the i32 accumulator registers.
    t.op("mma_int8_qlinear_matmul", "QLinearMatMul", {"a": ints(np.uint8, 96, 160)},
         {"as": np.array(0.02, F32), "az": np.array(120, np.uint8),
          "b": ints(np.int8, 160, 48), "bs": np.array(0.01, F32), "bz": np.array(0, np.int8),
          "ys": np.array(0.5, F32), "yz": np.array(100, np.uint8)},
         order=["a", "as", "az", "b", "bs", "bz", "ys", "yz"], extra=form)


def warp_reduction_cases(t):
    """dlc-distribute-reductions: kernels reducing rows over the contiguous
    dim run one warp per row (lanes striding over the row, an xor-shuffle
    butterfly). On the host they run in the CUDA kernel form with the lanes
    and the shuffle emulated, so the distribution (vector widths, tails) and
    the butterfly are checked here; a GPU runs the same cases for real.
    (test/target/warp-reductions.onnxtxt checks the PTX.)"""
    form = ("--cuda-kernel-form",)
    # Row lengths: 768 (4-wide vectors, 6 per lane), 100 (2-wide: 100 / 4
    # would leave lanes idle), 33 (one lane takes two elements); row
    # counts that are not a multiple of the 4 warps of a CTA.
    for n, shape in ((768, (6, 768)), (100, (5, 100)), (33, (3, 7, 33))):
        t.op(f"warp_layernorm_{n}", "LayerNormalization", {"x": t.rand(*shape, lo=-2, hi=3)},
             {"g": t.rand(n), "b": t.rand(n)}, attrs=dict(axis=-1), extra=form)
    # The online softmax: running max and rescaled sum merged pairwise.
    t.op("warp_softmax_last", "Softmax", {"x": t.rand(6, 200, lo=-8, hi=8)},
         attrs=dict(axis=-1), extra=form)
    t.op("warp_softmax_rank3", "Softmax", {"x": t.rand(2, 3, 64, lo=-4, hi=4)},
         attrs=dict(axis=-1), extra=form)
    # Masked first columns, and a row masked in every lane but one.
    masked = t.rand(4, 100, lo=-4, hi=4)
    masked[:, :40] = -np.inf
    masked[2, :99] = -np.inf
    t.op("warp_softmax_masked_first", "Softmax", {"x": masked}, attrs=dict(axis=-1), extra=form)
    t.op("warp_reducemean_last_keepdims", "ReduceMean", {"x": t.rand(4, 3, 100)},
         {"axes": np.array([-1], I64)}, opset=18, extra=form)
    t.op("warp_reducesum_last_keepdims", "ReduceSum", {"x": t.rand(5, 256)},
         {"axes": np.array([-1], I64)}, attrs=dict(keepdims=1), extra=form)
    t.op("warp_reducemax_last", "ReduceMax", {"x": t.rand(7, 96, lo=-5, hi=5)},
         {"axes": np.array([-1], I64)}, opset=18, extra=form)
    # Linear layers with fewer rows than a tensor-core tile (a classifier
    # at batch 1, fp16 weights [N, K]): one warp per output over k, the
    # bias initializing the accumulator; fp32 too.
    t.op("warp_gemv_fp16_transb_bias", "Gemm", {"x": t.rand(1, 1280)},
         {"w": t.rand(100, 1280, lo=-1, hi=1), "b": t.rand(100)}, attrs=dict(transB=1),
         flags=("--precision=fp16",), extra=form, rtol=1e-2, atol=2e-2)
    t.op("warp_gemv_fp32_batch3", "Gemm", {"x": t.rand(3, 200)},
         {"w": t.rand(50, 200, lo=-1, hi=1), "b": t.rand(50)}, attrs=dict(transB=1),
         extra=form)
    # Not over the contiguous dim: the one-thread-per-output path.
    t.op("warp_reducesum_axis1_old_path", "ReduceSum", {"x": t.rand(2, 64, 48)},
         {"axes": np.array([1], I64)}, attrs=dict(keepdims=1), extra=form)
    # A residual Add before the LayerNorm: the Add stays its own kernel (dlc-fuse-kernels
    # does not merge an elementwise producer into a row reduction); in BERT it is
    # in the epilogue of the GEMM before, and the LayerNorm kernel is this one.
    t.add("warp_layernorm_residual", [
        helper.make_node("Add", ["x", "r"], ["s"]),
        helper.make_node("LayerNormalization", ["s", "g", "b"], ["y"], axis=-1)],
        {"x": t.rand(9, 256), "r": t.rand(9, 256)}, consts={"g": t.rand(256), "b": t.rand(256)},
        extra=form)


def nhwc_cases(t):
    """--conv-layout=nhwc on the host: dlc-convert-conv-layout's transposes
    and channels_last convolutions (padded NHWC copies, implicit-GEMM
    generics), pooling and the ops the transposes sink through."""
    nhwc = ("--conv-layout=nhwc",)
    t.op("nhwc_conv_pads_strides_bias", "Conv", {"x": t.rand(1, 3, 9, 8)},
         {"w": t.rand(4, 3, 3, 3), "b": t.rand(4)},
         attrs=dict(pads=[1, 2, 0, 1], strides=[2, 1]), flags=nhwc)
    t.op("nhwc_conv_dilations", "Conv", {"x": t.rand(2, 3, 10, 11)}, {"w": t.rand(5, 3, 3, 2)},
         attrs=dict(dilations=[2, 3], pads=[2, 1, 2, 1]), flags=nhwc)
    t.op("nhwc_conv_groups2", "Conv", {"x": t.rand(1, 4, 7, 7)}, {"w": t.rand(6, 2, 3, 3)},
         attrs=dict(group=2, pads=[1, 1, 1, 1]), flags=nhwc)
    t.op("nhwc_conv_depthwise_stride2_mult2", "Conv", {"x": t.rand(1, 4, 9, 9)},
         {"w": t.rand(8, 1, 3, 3), "b": t.rand(8)},
         attrs=dict(group=4, pads=[1, 1, 1, 1], strides=[2, 2]), flags=nhwc)
    t.op("nhwc_conv_weight_input", "Conv", {"x": t.rand(1, 3, 6, 6), "w": t.rand(2, 3, 3, 3)},
         attrs=dict(pads=[1, 1, 1, 1]), flags=nhwc)
    t.op("nhwc_conv3d_stays_nchw", "Conv", {"x": t.rand(1, 2, 4, 5, 6)}, {"w": t.rand(3, 2, 2, 2, 2)},
         attrs=dict(pads=[1, 0, 1, 0, 1, 1]), flags=nhwc)
    t.add("nhwc_conv_bn_relu_pool", [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"]),
        helper.make_node("Relu", ["n"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["p", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["c2"], ["a"], kernel_shape=[2, 2], pads=[1, 1, 0, 0]),
        helper.make_node("GlobalAveragePool", ["a"], ["g"]),
        helper.make_node("Flatten", ["g"], ["y"])],
        {"x": t.rand(1, 3, 12, 12)},
        consts={"w": t.rand(6, 3, 3, 3), "b": t.rand(6), "s": t.rand(6, lo=0.5, hi=1.5),
                "bb": t.rand(6), "m": t.rand(6), "v": t.rand(6, lo=0.5, hi=1.0),
                "w2": t.rand(5, 6, 3, 3)}, flags=nhwc)
    t.add("nhwc_residual_downsample_concat", [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Clip", ["c1", "lo", "hi"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["x", "wd"], ["d"], strides=[2, 2]),
        helper.make_node("Mul", ["d", "cs"], ["ds"]),
        helper.make_node("Add", ["c2", "ds"], ["s"]),
        helper.make_node("Relu", ["s"], ["r2"]),
        helper.make_node("Concat", ["r2", "c2"], ["cat"], axis=1),
        helper.make_node("Conv", ["cat", "w3"], ["y"])],
        {"x": t.rand(1, 4, 8, 8)},
        consts={"w1": t.rand(6, 4, 3, 3), "w2": t.rand(6, 6, 3, 3), "wd": t.rand(6, 4, 1, 1),
                "w3": t.rand(3, 12, 1, 1), "cs": t.rand(6, 1, 1), "lo": np.array(0, F32),
                "hi": np.array(0.5, F32)}, flags=nhwc)
    # Reductions (axes remapped, without keepdims the result's dims
    # renumbered) and Softmax (axis remapped) after a channels-last conv.
    t.add("nhwc_conv_reduce_softmax", [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["c"], ["s"]),
        helper.make_node("ReduceMax", ["s"], ["m"], axes=[2], keepdims=0),
        helper.make_node("Softmax", ["m"], ["y"], axis=1),
        helper.make_node("Softmax", ["s"], ["z"], axis=1)],
        {"x": t.rand(2, 3, 5, 6)}, outputs=("y", "z"), consts={"w": t.rand(4, 3, 3, 3)},
        flags=nhwc)
    # QDQ int8 chain (dlc-fold-qdq -> conv_integer + requantize, int8 between
    # the layers): a nonzero input zero point padded in by the NHWC copy,
    # per-channel weights (requantize's axis remapped to 3). Output scale
    # 0.05: one int8 step of rounding difference allowed.
    r = np.random.default_rng(7)
    t.add("nhwc_qdq_conv_chain", [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w1", "w1s", "w1z"], ["w1d"], axis=0),
        helper.make_node("Conv", ["xd", "w1d", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("QuantizeLinear", ["r1", "s1", "z1"], ["q1"]),
        helper.make_node("DequantizeLinear", ["q1", "s1", "z1"], ["d1"]),
        helper.make_node("DequantizeLinear", ["w2", "w2s", "w2z"], ["w2d"], axis=0),
        helper.make_node("Conv", ["d1", "w2d"], ["c2"], pads=[1, 0, 1, 1], strides=[2, 1]),
        helper.make_node("QuantizeLinear", ["c2", "ys", "yz"], ["q2"]),
        helper.make_node("DequantizeLinear", ["q2", "ys", "yz"], ["y"])],
        {"x": t.rand(1, 3, 9, 9)},
        consts={"xs": np.array(0.01, F32), "xz": np.array(23, np.int8),
                "w1": r.integers(-127, 127, size=(8, 3, 3, 3)).astype(np.int8),
                "w1s": r.uniform(0.002, 0.01, size=8).astype(F32), "w1z": np.zeros(8, np.int8),
                "b1": t.rand(8, lo=-0.2, hi=0.2),
                "s1": np.array(0.004, F32), "z1": np.array(-100, np.int8),
                "w2": r.integers(-127, 127, size=(4, 8, 3, 3)).astype(np.int8),
                "w2s": r.uniform(0.002, 0.01, size=4).astype(F32), "w2z": np.zeros(4, np.int8),
                "ys": np.array(0.05, F32), "yz": np.array(3, np.int8)},
        flags=nhwc, rtol=0, atol=0.0501)
    # Half precision in the CUDA kernel form on the host (nhwc is its
    # default): f16 NHWC convolutions accumulating in f32.
    t.add("nhwc_fp16_cuda_form", [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Conv", ["r", "w2"], ["y"], group=2, pads=[0, 1, 0, 1])],
        {"x": t.rand(1, 16, 8, 8)},
        consts={"w": t.rand(32, 16, 3, 3), "b": t.rand(32), "w2": t.rand(8, 16, 1, 3)},
        flags=("--precision=fp16",), extra=("--cuda-kernel-form",), rtol=1e-2, atol=2e-2)
    # Depthwise convolutions in the CUDA kernel form: the constant weight
    # read as [1, KH, KW, C], each work item 4 (f32) consecutive channels.
    # Float: stride 2, asymmetric padding, dilation; ConvInteger: u8 with
    # both zero points nonzero; QDQ: the zero-point split (int8 weights,
    # zero point 0) and a channel multiplier of 2.
    cuda_form = ("--cuda-kernel-form",)
    t.op("nhwc_conv_depthwise_cuda_form", "Conv", {"x": t.rand(1, 8, 11, 10)},
         {"w": t.rand(8, 1, 3, 3), "b": t.rand(8)},
         attrs=dict(group=8, pads=[1, 2, 1, 0], strides=[2, 2], dilations=[2, 1]),
         extra=cuda_form)
    u8 = lambda *shape: r.integers(0, 255, size=shape, endpoint=True).astype(np.uint8)
    t.op("nhwc_conv_integer_depthwise_cuda_form", "ConvInteger", {"x": u8(1, 8, 9, 9)},
         {"w": u8(8, 1, 3, 3), "xz": np.array(121, np.uint8), "wz": np.array(7, np.uint8)},
         attrs=dict(group=8, pads=[1, 1, 0, 1], strides=[2, 2], dilations=[1, 2]),
         extra=cuda_form, rtol=0, atol=0)
    add_qdq_conv(t, r, "nhwc_qdq_conv_depthwise_cuda_form", (1, 8, 10, 9), (16, 1, 3, 3),
                 xz=-31, ys=0.002, yz=4,
                 conv_attrs=dict(group=8, pads=[1, 1, 1, 1], strides=[2, 2]),
                 extra=cuda_form, rtol=0, atol=0.00201)


def attention_cases(t):
    """dlc-fuse-attention: one online-softmax kernel per chain, in the host
    form and in the CUDA kernel form run on the host (--cuda-kernel-form)."""
    causal = np.triu(np.full((6, 6), -np.inf, F32), k=1)
    padding = np.zeros((2, 1, 1, 24), F32)
    padding[1, :, :, 20:] = -10000.0
    for form, extra in (("", ()), ("_cuda_form", ("--cuda-kernel-form",))):
        # BERT: heads split by Transpose, K^T by a last-two-dims Transpose, Div
        # by sqrt(d), a padding mask per batch; 24 keys (blocks of 8).
        t.add("attention_bert_padding" + form, [
            helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Div", ["s", "c"], ["d"]),
            helper.make_node("Add", ["d", "m"], ["a"]),
            helper.make_node("Softmax", ["a"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"])],
            {"q": t.rand(2, 3, 24, 8), "k": t.rand(2, 3, 24, 8), "v": t.rand(2, 3, 24, 5),
             "m": padding}, consts={"c": np.array(np.sqrt(8), F32)}, extra=extra)
        # GPT: a causal -inf mask of rank 2 over rank-3 scores, 6 keys
        # (blocks of 2), scale on the left of a Mul, K^T given as laid out.
        t.add("attention_causal" + form, [
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Mul", ["c", "s"], ["d"]),
            helper.make_node("Add", ["m", "d"], ["a"]),
            helper.make_node("Softmax", ["a"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"])],
            {"q": t.rand(4, 6, 16, lo=-3, hi=3), "kt": t.rand(4, 16, 6, lo=-3, hi=3),
             "v": t.rand(4, 6, 16)}, consts={"c": np.array(0.25, F32), "m": causal}, extra=extra)
        # torch's SDPA export: a boolean mask made additive by Where (query
        # row 2 masked entirely: its softmax is NaN), Where(IsNaN(p), 0, p).
        keep = np.tril(np.ones((1, 1, 8, 8), bool))
        keep[0, 0, 2, :] = False
        t.add("attention_sdpa_nan_guard" + form, [
            helper.make_node("Where", ["b", "zero", "ninf"], ["m"]),
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Add", ["s", "m"], ["a"]),
            helper.make_node("Softmax", ["a"], ["p"], axis=-1),
            helper.make_node("IsNaN", ["p"], ["n"]),
            helper.make_node("Where", ["n", "zero", "p"], ["g"]),
            helper.make_node("MatMul", ["g", "v"], ["y"])],
            {"q": t.rand(1, 2, 8, 4), "kt": t.rand(1, 2, 4, 8), "v": t.rand(1, 2, 8, 4), "b": keep},
            consts={"zero": np.array(0, F32), "ninf": np.array(-np.inf, F32)}, extra=extra)
        # The query computed in the graph (heads split by Transpose, scaled):
        # dlc-fuse-attention reads x through query_perm and folds the scale.
        t.add("attention_query_producer" + form, [
            helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1, 3]),
            helper.make_node("Mul", ["xt", "c"], ["q"]),
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"])],
            {"x": t.rand(2, 10, 3, 8), "kt": t.rand(2, 3, 8, 12), "v": t.rand(2, 3, 12, 8)},
            consts={"c": np.array(0.35, F32)}, extra=extra)
        # BERT's export as it is: Q and K scaled by a scalar and transposed
        # from [B, S, H, D] (K to [B, H, D, S]), V transposed, the result
        # transposed back. The attention reads and writes [B, S, H, D].
        t.add("attention_bert_layouts" + form, bert_layout_nodes(),
              {"q": t.rand(2, 24, 3, 8), "k": t.rand(2, 24, 3, 8), "v": t.rand(2, 24, 3, 8),
               "m": padding}, consts={"c": np.array(8 ** -0.25, F32)}, extra=extra)
        # GPT-2's export: Q, K and V split from c_attn's one output and
        # reshaped into heads; the attention reads all three from it
        # (query/key/value_select) and the Split never runs.
        t.add("attention_gpt2_split" + form, gpt2_split_nodes(3, 8),
              {"qkv": t.rand(2, 24, 3 * 3 * 8)},
              consts={"sizes": np.array([24, 24, 24], np.int64),
                      "heads": np.array([2, 24, 3, 8], np.int64),
                      "c": np.array(8 ** 0.5, F32)}, extra=extra)
        # On the host a work item's 16 query rows are vector lanes: a causal
        # mask per row over 12 keys (blocks of 4), head 5, 6 value columns
        # (tiles of 2); 40 keys (blocks of 8) of 32 rows with a padding mask
        # per batch (one element a key), 12 value columns.
        t.add("attention_lanes_causal" + form, [
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Add", ["s", "m"], ["a"]),
            helper.make_node("Softmax", ["a"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"])],
            {"q": t.rand(2, 3, 16, 5, lo=-2, hi=2), "kt": t.rand(2, 3, 5, 12, lo=-2, hi=2),
             "v": t.rand(2, 3, 12, 6)},
            consts={"m": np.triu(np.full((16, 12), -np.inf, F32), k=1)}, extra=extra)
        key_padding = np.zeros((2, 1, 1, 40), F32)
        key_padding[0, :, :, 33:] = -np.inf
        t.add("attention_lanes_padding" + form, [
            helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Add", ["s", "m"], ["a"]),
            helper.make_node("Softmax", ["a"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"])],
            {"q": t.rand(2, 2, 32, 7), "k": t.rand(2, 2, 40, 7), "v": t.rand(2, 2, 40, 12),
             "m": key_padding}, extra=extra)
        # Keys and values shared by all heads (broadcast batch dim), 7 keys.
        t.add("attention_shared_kv" + form, [
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"])],
            {"q": t.rand(1, 4, 3, 8), "kt": t.rand(1, 1, 8, 7), "v": t.rand(1, 1, 7, 2)}, extra=extra)


def bert_layout_nodes():
    """BERT's attention between its projections ([B, S, H, D]) as exported."""
    return [
        helper.make_node("Mul", ["q", "c"], ["qs"]),
        helper.make_node("Transpose", ["qs"], ["qt"], perm=[0, 2, 1, 3]),
        helper.make_node("Mul", ["k", "c"], ["ks"]),
        helper.make_node("Transpose", ["ks"], ["kt"], perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["v"], ["vt"], perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", ["qt", "kt"], ["s"]),
        helper.make_node("Add", ["s", "m"], ["a"]),
        helper.make_node("Softmax", ["a"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "vt"], ["o"]),
        helper.make_node("Transpose", ["o"], ["y"], perm=[0, 2, 1, 3])]


def gpt2_split_nodes(heads, head):
    """GPT-2's attention as transformers exports it: Split of c_attn's
    output [B, S, 3 * H * D], each part reshaped to [B, S, H, D] and
    transposed into heads (K to [B, H, D, S]), the result transposed back."""
    return [
        helper.make_node("Split", ["qkv", "sizes"], ["q2", "k2", "v2"], axis=2),
        helper.make_node("Reshape", ["q2", "heads"], ["q"]),
        helper.make_node("Reshape", ["k2", "heads"], ["k"]),
        helper.make_node("Reshape", ["v2", "heads"], ["v"]),
        helper.make_node("Transpose", ["q"], ["qt"], perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["v"], ["vt"], perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", ["qt", "kt"], ["s"]),
        helper.make_node("Div", ["s", "c"], ["d"]),
        helper.make_node("Softmax", ["d"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "vt"], ["o"]),
        helper.make_node("Transpose", ["o"], ["y"], perm=[0, 2, 1, 3])]


def flash_attention_cases(t):
    """dlc-tile-attention-kernels: at --precision=fp16|bf16 the attention
    kernel is flash attention on mma.sync (64-query blocks, 64-key blocks
    staged in shared memory, the online softmax on the accumulator
    registers). In the CUDA kernel form on the host every mma.sync and
    shfl.xor is emulated per lane, checking the fragment layouts and the
    repacking of P from accumulator to A fragments."""
    form = ("--cuda-kernel-form",)
    padding = np.zeros((2, 1, 1, 128), F32)
    padding[1, :, :, 100:] = -10000.0
    # BERT: K through a Transpose, 2 query and 2 key blocks, head 64.
    t.add("flash_bert_padding_fp16", [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Div", ["s", "c"], ["d"]),
        helper.make_node("Add", ["d", "m"], ["a"]),
        helper.make_node("Softmax", ["a"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"])],
        {"q": t.rand(2, 3, 128, 64), "k": t.rand(2, 3, 128, 64), "v": t.rand(2, 3, 128, 64),
         "m": padding}, consts={"c": np.array(8.0, F32)},
        flags=("--precision=fp16",), extra=form, rtol=1e-2, atol=5e-3)
    # BERT's layouts: Q, K, V and the result [B, S, H, D] (the flash kernel
    # stages them through the permutations; K rows are head-contiguous).
    t.add("flash_bert_layouts_fp16", bert_layout_nodes(),
          {"q": t.rand(2, 128, 3, 64), "k": t.rand(2, 128, 3, 64), "v": t.rand(2, 128, 3, 64),
           "m": padding}, consts={"c": np.array(64 ** -0.25, F32)},
          flags=("--precision=fp16",), extra=form, rtol=1e-2, atol=5e-3)
    # GPT-2's Q, K and V read from c_attn's output [B, S, 3 * H * D].
    t.add("flash_gpt2_split_fp16", gpt2_split_nodes(2, 64),
          {"qkv": t.rand(2, 128, 3 * 2 * 64)},
          consts={"sizes": np.array([128, 128, 128], np.int64),
                  "heads": np.array([2, 128, 2, 64], np.int64),
                  "c": np.array(8.0, F32)},
          flags=("--precision=fp16",), extra=form, rtol=1e-2, atol=5e-3)
    # ... and the output projection after it: dlc-reduce-precision has the
    # attention kernel store its result in f16 for the projection's GEMM
    # (flash kernel; one work item per row on the host form).
    projection = bert_layout_nodes() + [
        helper.make_node("Reshape", ["y", "shape"], ["yr"]),
        helper.make_node("MatMul", ["yr", "w"], ["z"])]
    for name, extra in (("flash_bert_projection_fp16", form),
                        ("attention_bert_projection_fp16", ())):
        t.add(name, projection,
              {"q": t.rand(2, 128, 3, 64), "k": t.rand(2, 128, 3, 64),
               "v": t.rand(2, 128, 3, 64), "m": padding},
              consts={"c": np.array(64 ** -0.25, F32), "shape": np.array([2, 128, 192]),
                      "w": t.rand(192, 32, lo=-0.2, hi=0.2)},
              outputs=("z",), flags=("--precision=fp16",), extra=extra, rtol=1e-2, atol=5e-3)
    # GPT: K^T as laid out, a causal -inf mask, 80 queries (a partial query
    # block), head 32, bf16.
    causal = np.triu(np.full((80, 64), -np.inf, F32), k=1)
    t.add("flash_causal_bf16", [
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["c", "s"], ["d"]),
        helper.make_node("Add", ["m", "d"], ["a"]),
        helper.make_node("Softmax", ["a"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"])],
        {"q": t.rand(3, 80, 32, lo=-2, hi=2), "kt": t.rand(3, 32, 64, lo=-2, hi=2),
         "v": t.rand(3, 64, 32)}, consts={"c": np.array(0.25, F32), "m": causal},
        flags=("--precision=bf16",), extra=form, rtol=3e-2, atol=2e-2)
    # ViT: 197 tokens, no mask: a partial last block of queries and of keys
    # (5 keys of the fourth block; the rest staged as zeros, scored -inf).
    t.add("flash_vit_197_tokens_fp16", [
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Mul", ["s", "c"], ["d"]),
        helper.make_node("Softmax", ["d"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"])],
        {"q": t.rand(1, 2, 197, 64), "kt": t.rand(1, 2, 64, 197), "v": t.rand(1, 2, 197, 64)},
        consts={"c": np.array(0.125, F32)},
        flags=("--precision=fp16",), extra=form, rtol=1e-2, atol=5e-3)
    # CTA sizes: on 132 SMs, 33 heads x 2 blocks of 64 queries fill half of
    # them (4 warps per CTA); 17 heads take CTAs of 2 warps (32 queries);
    # the cases above, fewer, 1 warp.
    for heads, warps in ((33, 4), (17, 2)):
        t.add(f"flash_{warps}_warps_fp16", [
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"])],
            {"q": t.rand(1, heads, 128, 16), "kt": t.rand(1, heads, 16, 128),
             "v": t.rand(1, heads, 128, 16)},
            flags=("--precision=fp16",), extra=form, rtol=1e-2, atol=5e-3)
    # torch's SDPA guard: query row 2 masked entirely gives 0.
    keep = np.tril(np.ones((1, 1, 64, 64), bool))
    keep[0, 0, 2, :] = False
    t.add("flash_sdpa_nan_guard_fp16", [
        helper.make_node("Where", ["b", "zero", "ninf"], ["m"]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Add", ["s", "m"], ["a"]),
        helper.make_node("Softmax", ["a"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["n"]),
        helper.make_node("Where", ["n", "zero", "p"], ["g"]),
        helper.make_node("MatMul", ["g", "v"], ["y"])],
        {"q": t.rand(1, 2, 64, 16), "kt": t.rand(1, 2, 16, 64), "v": t.rand(1, 2, 64, 16),
         "b": keep},
        consts={"zero": np.array(0, F32), "ninf": np.array(-np.inf, F32)},
        flags=("--precision=fp16",), extra=form, rtol=1e-2, atol=5e-3)


def recurrent_cases(t):
    """LSTM, GRU and RNN against ONNX Runtime, on the attributes the ONNX
    node tests leave out: per-batch sequence_lens in both directions, clip,
    input_forget, linear_before_reset and activations that take alpha and
    beta. (ONNX Runtime refuses layout 1; the node tests' batchwise cases
    cover it against the reference.)"""
    def rnn(name, op, gates, seq, batch, size, hidden, inputs, outputs, opset=14, dirs=1,
            layout=0, lens=None, **attrs):
        x = t.rand(*((batch, seq, size) if layout else (seq, batch, size)))
        state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
        values = {"W": t.rand(dirs, gates * hidden, size), "R": t.rand(dirs, gates * hidden, hidden),
                  "B": t.rand(dirs, 2 * gates * hidden), "sequence_lens": lens,
                  "initial_h": t.rand(*state), "initial_c": t.rand(*state),
                  "P": t.rand(dirs, 3 * hidden)}
        feeds = {"X": x}
        if lens is not None:
            feeds["sequence_lens"] = lens
        consts = {k: values[k] for k in inputs if k not in feeds and k}
        node = helper.make_node(op, ["X"] + list(inputs), list(outputs), layout=layout,
                                hidden_size=hidden, **attrs)
        t.add(name, [node], feeds, outputs=[o for o in outputs if o], consts=consts, opset=opset)

    lens = np.array([5, 2, 4], np.int32)
    lstm_in = ["W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
    rnn("lstm_bidirectional_seq_lens_peepholes", "LSTM", 4, 5, 3, 4, 6, lstm_in,
        ["y", "y_h", "y_c"], dirs=2, lens=lens, direction="bidirectional")
    rnn("lstm_clip_input_forget", "LSTM", 4, 4, 2, 3, 5,
        ["W", "R", "B", "", "initial_h", "initial_c"], ["y", "y_h", "y_c"], clip=0.4,
        input_forget=1)
    rnn("lstm_reverse_yh_only", "LSTM", 4, 6, 2, 3, 4, ["W", "R", "B", "sequence_lens"],
        ["", "y_h"], lens=np.array([3, 6], np.int32), direction="reverse")
    rnn("gru_linear_before_reset_reverse_seq_lens", "GRU", 3, 5, 3, 4, 6,
        ["W", "R", "B", "sequence_lens", "initial_h"], ["y", "y_h"], lens=lens,
        direction="reverse", linear_before_reset=1)
    rnn("gru_bidirectional_activations", "GRU", 3, 4, 2, 3, 5,
        ["W", "R", "B", "", "initial_h"], ["y", "y_h"], dirs=2,
        direction="bidirectional", clip=1.5,
        activations=["HardSigmoid", "LeakyRelu", "Sigmoid", "Affine"],
        activation_alpha=[0.3, 0.2, 0.7], activation_beta=[0.4, 0.1])
    rnn("rnn_bidirectional_relu_seq_lens", "RNN", 1, 5, 3, 4, 6,
        ["W", "R", "B", "sequence_lens", "initial_h"], ["y", "y_h"], dirs=2, lens=lens,
        direction="bidirectional", activations=["Relu", "Tanh"])


def composed_cases(t):
    """Ops built from other dlc ops, against ONNX Runtime."""
    # LpPool: p = 3 through pow; ceil_mode's partial last windows (end
    # padding), dilations.
    x = t.rand(1, 2, 7, 8, lo=-2, hi=2)
    t.op("lppool_p3_ceil", "LpPool", {"x": x}, opset=18,
         attrs=dict(kernel_shape=[3, 2], strides=[2, 3], p=3, ceil_mode=1, pads=[1, 0, 0, 1]))
    t.op("lppool_p1_dilated", "LpPool", {"x": x}, opset=18,
         attrs=dict(kernel_shape=[2, 2], dilations=[2, 1], p=1))
    # RotaryEmbedding (opset 23): a 3-D input rotating part of each head in
    # interleaved pairs.
    angles = t.rand(16, 4, lo=0, hi=6.28)
    t.op("rotary_3d_interleaved_partial", "RotaryEmbedding",
         {"x": t.rand(2, 5, 3 * 10), "pos": np.array([[0, 3, 4, 9, 15], [2, 2, 1, 0, 7]], I64)},
         {"cos": np.cos(angles), "sin": np.sin(angles)}, order=["x", "cos", "sin", "pos"],
         opset=23, attrs=dict(num_heads=3, rotary_embedding_dim=8, interleaved=1))
    # DFT as one matrix product: a complex signal along a middle axis,
    # zero-padded to 16 (opset 20: axis and dft_length constant inputs); a
    # real f64 signal truncated to 9, one-sided; an inverse along axis 1.
    t.op("dft_complex_middle_axis_padded", "DFT", {"x": t.rand(2, 12, 5, 2)},
         {"len": np.array(16, I64), "axis": np.array(1, I64)}, order=["x", "len", "axis"],
         opset=20, rtol=1e-4, atol=1e-4)
    t.op("dft_real_f64_truncated_onesided", "DFT", {"x": t.rand(3, 11, 1).astype(np.float64)},
         {"len": np.array(9, I64)}, order=["x", "len"], opset=17,
         attrs=dict(axis=1, onesided=1), rtol=1e-9, atol=1e-9)
    t.op("dft_inverse_complex", "DFT", {"x": t.rand(2, 7, 3, 2)}, opset=17,
         attrs=dict(axis=1, inverse=1), rtol=1e-4, atol=1e-5)
    # STFT as audio front ends run it: a 400-point periodic Hann window
    # (folded into the DFT matrix), hop 160, one-sided (201 bins); and a
    # run-time window over a complex signal, two-sided.
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)).astype(np.float32)
    t.op("stft_hann_400_hop_160", "STFT", {"x": t.rand(2, 1600, 1)},
         {"step": np.array(160, I64), "window": hann}, order=["x", "step", "window"],
         rtol=1e-3, atol=2e-3)
    t.op("stft_runtime_window_complex", "STFT",
         {"x": t.rand(1, 40, 2), "window": t.rand(12)}, {"step": np.array(5, I64)},
         order=["x", "step", "window"], attrs=dict(onesided=0), rtol=1e-4, atol=1e-4)
    # Window functions and MelWeightMatrix are constants; a log-mel
    # spectrogram's front end chains them with STFT.
    t.add("log_mel_front_end", [
        helper.make_node("HannWindow", ["n"], ["w"], periodic=1),
        helper.make_node("STFT", ["x", "step", "w"], ["spec"], onesided=1),
        helper.make_node("ReduceSumSquare", ["spec", "last"], ["power"], keepdims=0),
        helper.make_node("MelWeightMatrix", ["mels", "len", "rate", "lo", "hi"], ["mel"]),
        helper.make_node("MatMul", ["power", "mel"], ["y"])],
        {"x": t.rand(1, 800, 1)},
        consts={"n": np.array(256, I64), "step": np.array(128, I64), "last": np.array([-1], I64),
                "mels": np.array(20, I64), "len": np.array(256, I64),
                "rate": np.array(16000, I64), "lo": np.array(20, np.float32),
                "hi": np.array(8000, np.float32)},
        opset=18, rtol=1e-3, atol=1e-3)
    # Col2Im: overlapping dilated blocks with asymmetric pads whose last
    # block stops short of the image's end (the transposed convolution's
    # output_padding); blocks that tile the image (a transpose).
    t.op("col2im_overlap_dilated_pads", "Col2Im", {"x": t.rand(2, 3 * 6, 6)},
         {"image": np.array([6, 7], I64), "block": np.array([2, 3], I64)}, opset=18,
         attrs=dict(strides=[2, 2], dilations=[1, 2], pads=[0, 1, 1, 0]), rtol=1e-5, atol=1e-5)
    t.op("col2im_tiles", "Col2Im", {"x": t.rand(2, 5 * 16, 6)},
         {"image": np.array([8, 12], I64), "block": np.array([4, 4], I64)}, opset=18,
         attrs=dict(strides=[4, 4]))
    # MaxUnpool at a 2x2/2 max pool's argmax positions. (With an
    # output_shape larger than the unpooled one, ONNX Runtime reads the
    # indices in the larger shape; onnx's reference and its node test
    # test_maxunpool_export_with_output_shape, which dlc follows, in the
    # unpooled one.)
    xp = t.rand(2, 3, 6, 8)
    win = xp.reshape(2, 3, 3, 2, 4, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 3, 4, 4)
    arg = win.argmax(-1)
    hh = np.arange(3)[:, None] * 2 + arg // 2
    ww = np.arange(4)[None, :] * 2 + arg % 2
    flat = ((np.arange(2)[:, None, None, None] * 3 + np.arange(3)[None, :, None, None]) * 6 + hh) * 8 + ww
    t.op("maxunpool_argmax", "MaxUnpool", {"x": win.max(-1), "i": flat.astype(I64)}, opset=11,
         attrs=dict(kernel_shape=[2, 2], strides=[2, 2]))
    # MaxPool's Indices output (flat in the whole tensor): padded, dilated
    # and ceil_mode windows, storage_order 1; MaxPool -> MaxUnpool as
    # SegNet's decoder runs it.
    xm = t.rand(2, 3, 7, 9)
    t.add("maxpool_indices_pads_dilations_ceil",
          [helper.make_node("MaxPool", ["x"], ["v", "y"], kernel_shape=[3, 2],
                            strides=[2, 2], pads=[1, 0, 1, 1], dilations=[1, 2], ceil_mode=1)],
          {"x": xm}, outputs=["v", "y"], opset=12)
    t.add("maxpool_indices_storage_order", [
        helper.make_node("MaxPool", ["x"], ["v", "y"], kernel_shape=[2, 2], strides=[2, 2],
                         storage_order=1)], {"x": xm}, outputs=["v", "y"], opset=12)
    t.add("maxpool_unpool_segnet", [
        helper.make_node("MaxPool", ["x"], ["v", "i"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Relu", ["v"], ["r"]),
        helper.make_node("MaxUnpool", ["r", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        {"x": t.rand(2, 3, 8, 6)}, opset=12)
    # TensorScatter (opset 24): a decode step's KV update written at each
    # batch's index, wrapping around a circular cache.
    t.op("tensor_scatter_circular", "TensorScatter",
         {"cache": t.rand(3, 2, 8, 4), "update": t.rand(3, 2, 3, 4),
          "idx": np.array([0, 6, 3], I64)}, opset=24, attrs=dict(mode="circular"))
    # Upsample-9 (Resize-10's semantics): linear, asymmetric.
    t.op("upsample9_linear", "Upsample", {"x": t.rand(1, 2, 3, 4)},
         {"scales": np.array([1, 1, 2, 1.5], np.float32)}, opset=9, attrs=dict(mode="linear"),
         rtol=1e-5, atol=1e-5)
    # AffineGrid (opset 20): a 3-D grid with aligned corners, a 2-D one
    # without, feeding GridSample as spatial transformers do.
    t.op("affine_grid_3d_align", "AffineGrid", {"theta": t.rand(2, 3, 4)},
         {"size": np.array([2, 1, 3, 4, 5], I64)}, opset=20, attrs=dict(align_corners=1),
         rtol=1e-5, atol=1e-6)
    t.add("affine_grid_sample_2d", [
        helper.make_node("AffineGrid", ["theta", "size"], ["grid"]),
        helper.make_node("GridSample", ["x", "grid"], ["y"])],
        {"x": t.rand(2, 3, 6, 7), "theta": t.rand(2, 2, 3, lo=-0.8, hi=0.8)},
        consts={"size": np.array([2, 3, 5, 4], I64)}, opset=20, rtol=1e-4, atol=1e-5)
    # Compress with a constant condition: a gather along the axis, or of
    # the flattened input.
    cond = np.array([True, False, True, True, False], bool)
    t.op("compress_axis1", "Compress", {"x": t.rand(3, 6, 2)}, {"c": cond}, opset=11,
         attrs=dict(axis=1))
    t.op("compress_flat", "Compress", {"x": t.rand(2, 2)}, {"c": cond[:4]}, opset=11)
    # Cast between int8 and uint8 keeps the bits (-1 <-> 255); BitCast
    # (opset 26) reinterprets f32 as int32 and bool as its byte.
    i8 = np.array([[-128, -1, 0, 1, 127, -77]], np.int8)
    t.op("cast_int8_to_uint8", "Cast", {"x": i8}, opset=13, attrs=dict(to=TensorProto.UINT8))
    t.op("cast_uint8_to_int8", "Cast", {"x": i8.view(np.uint8)}, opset=13,
         attrs=dict(to=TensorProto.INT8))
    t.op("bitcast_f32_to_int32", "BitCast", {"x": t.rand(3, 5, lo=-1e3, hi=1e3)}, opset=26,
         attrs=dict(to=TensorProto.INT32))
    # int16 and the wider unsigned ints: unsigned division, comparison and
    # min/max at values past the signed range, casts both ways, data
    # movement.
    u32 = np.array([[0, 1, 2**31, 2**32 - 1, 12345, 2**31 + 7]], np.uint32)
    u64 = u32.astype(np.uint64) << np.uint64(31)
    t.op("div_uint32_large", "Div", {"a": u32, "b": np.array([3], np.uint32)}, opset=14)
    t.op("max_uint64_large", "Max", {"a": u64, "b": u64[:, ::-1].copy()}, opset=13)
    t.op("less_uint16", "Less", {"a": u32.astype(np.uint16),
                                  "b": u32[:, ::-1].astype(np.uint16)}, opset=13)
    i16 = np.array([[-32768, -1, 0, 1, 32767, -300]], np.int16)
    t.op("cast_int16_to_float", "Cast", {"x": i16}, opset=13, attrs=dict(to=TensorProto.FLOAT))
    t.op("cast_float_to_uint16", "Cast", {"x": np.array([[0.0, 1.7, 300.2, 65535.0]], np.float32)},
         opset=13, attrs=dict(to=TensorProto.UINT16))
    t.op("gather_uint64", "Gather", {"x": u64.reshape(3, 2), "i": np.array([2, 0, 2], I64)},
         opset=13)
    t.op("concat_int16", "Concat", {"a": i16, "b": -i16}, opset=13, attrs=dict(axis=0))
    # Bitwise ops on integers; BitShift on uint8 (ONNX Runtime's only
    # shared type) with amounts past the width.
    ia, ib = t.rng.integers(-2**31, 2**31, (3, 4)), t.rng.integers(-2**31, 2**31, (4,))
    t.op("bitwise_and_int32_broadcast", "BitwiseAnd", {"a": ia.astype(np.int32), "b": ib.astype(np.int32)}, opset=18)
    t.op("bitwise_xor_int64", "BitwiseXor", {"a": ia.astype(I64) << 20, "b": ia.T.reshape(3, 4).astype(I64)}, opset=18)
    t.op("bitwise_not_uint8", "BitwiseNot", {"a": (ia & 255).astype(np.uint8)}, opset=18)
    u = np.arange(24, dtype=np.uint8).reshape(2, 12) * 11
    amounts = np.array([0, 1, 3, 7, 8, 9, 0, 2, 5, 6, 8, 255], np.uint8)
    t.op("bitshift_left_uint8_wide", "BitShift", {"x": u, "s": amounts}, attrs=dict(direction="LEFT"))
    t.op("bitshift_right_uint8_wide", "BitShift", {"x": u, "s": amounts}, attrs=dict(direction="RIGHT"))
    # Control flow, inlined and unrolled. If on a run-time cond: both
    # branches, selected.
    def graph(name, nodes, ins, outs):
        return helper.make_graph(
            nodes, name, [helper.make_tensor_value_info(n, dt, sh) for n, dt, sh in ins],
            [helper.make_tensor_value_info(n, dt, sh) for n, dt, sh in outs])
    F, B, I = onnx.TensorProto.FLOAT, onnx.TensorProto.BOOL, onnx.TensorProto.INT64
    then_g = graph("then", [helper.make_node("Mul", ["x", "x"], ["t"])], [], [("t", F, [2, 3])])
    else_g = graph("else", [helper.make_node("Neg", ["x"], ["e"])], [], [("e", F, [2, 3])])
    xi = t.rand(2, 3)
    for flag in (True, False):
        t.add(f"if_runtime_cond_{str(flag).lower()}",
              [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
              {"c": np.array(flag), "x": xi})
    # Loop: 4 iterations carrying a sum and stacking each iteration's
    # value (a row of x picked by the iteration number).
    body = graph("body", [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
        helper.make_node("Add", ["acc_in", "row"], ["acc_out"]),
        helper.make_node("Mul", ["row", "acc_out"], ["scan"])],
        [("i", I, []), ("cond_in", B, []), ("acc_in", F, [3])],
        [("cond_out", B, []), ("acc_out", F, [3]), ("scan", F, [3])])
    t.add("loop_carried_and_scan",
          [helper.make_node("Loop", ["m", "", "acc0"], ["y", "z"], body=body)],
          {"x": t.rand(5, 3), "acc0": t.rand(3)}, outputs=("y", "z"),
          consts={"m": np.array(4, I64)})
    # Scan: a running sum over axis 1 in reverse, the outputs stacked on
    # axis 1 in reverse too.
    sbody = graph("sbody", [
        helper.make_node("Add", ["s_in", "v"], ["s_out"]),
        helper.make_node("Tanh", ["s_out"], ["o"])],
        [("s_in", F, [2]), ("v", F, [2])], [("s_out", F, [2]), ("o", F, [2])])
    t.add("scan_reverse_axis1",
          [helper.make_node("Scan", ["s0", "seq"], ["y", "z"], body=sbody, num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[1],
                            scan_output_axes=[1], scan_output_directions=[1])],
          {"s0": t.rand(2), "seq": t.rand(2, 5)}, outputs=("y", "z"))
    # Losses: class weights with ignore_index (a weighted mean), and
    # SoftmaxCrossEntropyLoss's log_prob output.
    logits = t.rand(3, 5, 2, 4, lo=-3, hi=3)
    labels = np.array([[[0, 4, 2, 1], [3, 3, 0, 2]], [[1, 1, 4, 0], [2, 0, 3, 4]],
                       [[4, 2, 2, 1], [0, 3, 1, 1]]], I64)
    t.op("nllloss_weighted_ignore_mean", "NegativeLogLikelihoodLoss",
         {"x": logits, "target": labels}, {"w": t.rand(5, lo=0.1, hi=2)}, opset=13,
         attrs=dict(ignore_index=2))
    t.add("softmax_cross_entropy_sum_log_prob",
          [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "target"], ["y", "log_prob"],
                            reduction="sum")],
          {"x": logits, "target": labels}, outputs=("y", "log_prob"), opset=13)
    # CenterCropPad: one axis cropped (odd difference), one padded.
    t.op("center_crop_pad_hw", "CenterCropPad", {"x": t.rand(2, 7, 4)},
         {"shape": np.array([4, 7], I64)}, opset=18, attrs=dict(axes=[1, -1]))
    # ReverseSequence: batch-major, per-batch lengths (0 keeps the row).
    t.op("reverse_sequence_batch_major", "ReverseSequence",
         {"x": t.rand(3, 5, 2), "lens": np.array([5, 0, 3], I64)}, opset=10,
         attrs=dict(batch_axis=0, time_axis=1))
    # CumProd (opset 26): exclusive and reversed along a middle axis.
    t.op("cumprod_exclusive_reverse", "CumProd", {"x": t.rand(2, 5, 3, lo=0.5, hi=1.5)},
         {"axis": np.array(1, I64)}, opset=26, attrs=dict(exclusive=1, reverse=1))


def float8_probe_values(dtype):
    """Every finite value of the float8 `dtype`, the midpoints between
    neighbours (ties, which round to the even code), one f32 ulp either side
    of each, values past the largest finite one, infinities, NaN, -0 and
    values below the smallest subnormal; both signs."""
    import ml_dtypes  # noqa: PLC0415 (onnx's dependency, only needed here)
    codes = np.arange(256, dtype=np.uint8).view(dtype).astype(F32)
    finite = np.unique(codes[np.isfinite(codes)])
    mids = ((finite[:-1].astype(np.float64) + finite[1:]) / 2).astype(F32)
    top = float(ml_dtypes.finfo(dtype).max)
    extra = np.array([top * 1.0625, top * 1.2, top * 4, 1e30, np.inf, np.nan, -0.0, 1e-30, 1e-45],
                     F32)
    v = np.concatenate([finite, mids, np.nextafter(mids, F32(np.inf)),
                        np.nextafter(mids, F32(-np.inf)), extra, -extra])
    return v.reshape(1, -1)


def float8_cases(t):
    """The four ONNX float8 formats: Cast to them and back (every value, the
    ties, overflow with and without saturate), data movement on them, and
    float8 QuantizeLinear/DequantizeLinear."""
    import ml_dtypes  # noqa: PLC0415
    formats = {"e4m3fn": (TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
               "e4m3fnuz": (TensorProto.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz),
               "e5m2": (TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2),
               "e5m2fnuz": (TensorProto.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz)}
    for name, (to, dtype) in formats.items():
        x = float8_probe_values(dtype)
        for saturate in (1, 0):
            t.add(f"cast_float8{name}_roundtrip" + ("" if saturate else "_no_saturate"), [
                helper.make_node("Cast", ["x"], ["h"], to=to, saturate=saturate),
                helper.make_node("Cast", ["h"], ["y"], to=TensorProto.FLOAT)],
                {"x": x}, opset=21, ir_version=9, rtol=0, atol=0)
    # float16 in (one rounding, as from f32), int32 out (through f32).
    x16 = float8_probe_values(ml_dtypes.float8_e5m2)
    x16 = x16[np.abs(x16) < 65504].astype(np.float16)
    t.add("cast_float16_float8e5m2_int32", [
        helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT8E5M2),
        helper.make_node("Cast", ["h"], ["f"], to=TensorProto.FLOAT16),
        helper.make_node("Cast", ["x"], ["k"], to=TensorProto.FLOAT8E4M3FN),
        helper.make_node("Cast", ["k"], ["y"], to=TensorProto.INT32)],
        {"x": x16.reshape(1, -1)}, outputs=("y", "f"), opset=21, ir_version=9,
        rtol=0, atol=0)
    # float4e2m1 (a 4-bit code a value, packed at the model's edges): every
    # value, tie and overflow through a Cast and back, against onnx's
    # reference (ml_dtypes).
    f4 = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(F32)
    fin = np.unique(f4)
    mids = ((fin[:-1].astype(np.float64) + fin[1:]) / 2).astype(F32)
    x4 = np.concatenate([fin, mids, np.nextafter(mids, F32(np.inf)), np.nextafter(mids, F32(-np.inf)),
                         np.array([7, 100, np.inf, -np.inf, np.nan, -0.0, 1e-30], F32)])
    t.add("cast_float4e2m1_roundtrip", [
        helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT4E2M1),
        helper.make_node("Cast", ["h"], ["y"], to=TensorProto.FLOAT)],
        {"x": x4.reshape(1, -1)}, opset=23, ir_version=11, rtol=0, atol=0, reference="onnx")
    # float8e8m0 (the MX scales, 2^(code - 127)): each round_mode, with and
    # without saturation, on mantissas that exercise guard, round and sticky
    # bits, zeros, negatives, subnormals, the top exponents and specials.
    mant = np.array([0, 1, 0x1FFFFF, 0x200000, 0x3FFFFF, 0x400000, 0x400001, 0x600000,
                     0x7FFFFF], np.uint32)
    exps = np.array([0, 1, 2, 100, 126, 127, 128, 200, 253, 254], np.uint32)
    e8 = ((exps[:, None] << 23) | mant[None, :]).ravel().view(F32)
    e8 = np.concatenate([e8, -e8[:20], np.array([np.inf, -np.inf, np.nan], F32)])
    for mode in ("up", "down", "nearest"):
        for saturate in (1, 0):
            t.add(f"cast_float8e8m0_{mode}" + ("" if saturate else "_no_saturate"), [
                helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT8E8M0,
                                 round_mode=mode, saturate=saturate),
                helper.make_node("Cast", ["h"], ["y"], to=TensorProto.FLOAT)],
                {"x": e8.reshape(1, -1)}, opset=24, ir_version=11, rtol=0, atol=0,
                reference="onnx")
    # The ops ONNX defines on float8 besides the conversions: data movement
    # keeps the bytes; Pad fills with a float8 constant; IsNaN and IsInf.
    # ONNX Runtime has float8 kernels for few of them: onnx's reference.
    t.add("float8_movement_pad", [
        helper.make_node("Cast", ["a"], ["a8"], to=TensorProto.FLOAT8E4M3FN),
        helper.make_node("Transpose", ["a8"], ["at"], perm=[1, 0, 2]),
        helper.make_node("Flatten", ["at"], ["f"], axis=1),
        helper.make_node("Unsqueeze", ["f", "axes"], ["u"]),
        helper.make_node("Identity", ["u"], ["i"]),
        helper.make_node("Squeeze", ["i", "axes"], ["s"]),
        helper.make_node("Reshape", ["s", "shape"], ["r"]),
        helper.make_node("Pad", ["r", "pads", "fill"], ["p"]),
        helper.make_node("Cast", ["p"], ["y"], to=TensorProto.FLOAT)],
        {"a": t.rand(5, 3, 2, lo=-500, hi=500)},
        consts={"axes": np.array([0], I64), "shape": np.array([5, 6], I64),
                "pads": np.array([1, 0, 0, 2], I64),
                "fill": np.array(1.5, ml_dtypes.float8_e4m3fn)},
        opset=21, ir_version=9, rtol=0, atol=0, reference="onnx")
    special = np.array([[1.0, np.inf, -np.inf, np.nan, 1e9, -1e9, 0.0]], F32)
    for fmt in ("e4m3fn", "e5m2", "e5m2fnuz"):
        to = formats[fmt][0]
        t.add(f"isnan_isinf_float8{fmt}", [
            helper.make_node("Cast", ["x"], ["h"], to=to, saturate=0),
            helper.make_node("IsNaN", ["h"], ["y"]),
            helper.make_node("IsInf", ["h"], ["z"])],
            {"x": special}, outputs=("y", "z"), opset=21, ir_version=9)
    # QuantizeLinear to float8 (per-tensor scale, per-axis scale, no
    # saturation) and DequantizeLinear back.
    for name, scale in (("tensor", np.array(0.05, F32)),
                        ("axis", np.array([0.01, 0.1, 1.0], F32))):
        for fmt in ("e4m3fn", "e5m2"):
            to, dtype = formats[fmt]
            zp = np.zeros(scale.shape, dtype)
            t.add(f"qdq_float8{fmt}_per_{name}", [
                helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], axis=1),
                helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["y"], axis=1)],
                {"x": t.rand(2, 3, 4, lo=-30, hi=30)}, consts={"s": scale, "zp": zp},
                opset=21, ir_version=9, rtol=0, atol=0)
    t.add("quantize_float8e4m3fn_no_saturate", [
        helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["q"], saturate=0),
        helper.make_node("Cast", ["q"], ["y"], to=TensorProto.FLOAT)],
        {"x": np.array([[1.0, -3.0, 30.0, 1e4, -1e4, np.inf]], F32)},
        consts={"s": np.array(0.125, F32), "zp": np.zeros((), ml_dtypes.float8_e4m3fn)},
        opset=21, ir_version=9, rtol=0, atol=0)


def linear_attention_cases(t):
    """LinearAttention (opset 27), checked against onnx's reference (ONNX
    Runtime has no kernel for it): each update rule, grouped query heads,
    per-key and per-head decay, a past state, float16."""
    b, steps, hq, hkv, dk, dv = 2, 12, 4, 2, 8, 6

    def qkv(dtype=F32):
        return {"q": t.rand(b, steps, hq * dk).astype(dtype),
                "k": (t.rand(b, steps, hkv * dk) * 0.5).astype(dtype),
                "v": t.rand(b, steps, hkv * dv).astype(dtype)}

    def case(name, rule, decay_last=None, beta_last=None, past=False, dtype=F32, **kw):
        feeds = qkv(dtype)
        inputs = ["q", "k", "v", "past" if past else "", "", ""]
        if past:
            feeds["past"] = t.rand(b, hkv, dk, dv).astype(dtype)
        if decay_last:
            feeds["g"] = t.rand(b, steps, decay_last, lo=-0.5, hi=0.0).astype(dtype)
            inputs[4] = "g"
        if beta_last:
            feeds["beta"] = t.rand(b, steps, beta_last, lo=0.1, hi=0.9).astype(dtype)
            inputs[5] = "beta"
        while inputs and not inputs[-1]:
            inputs.pop()
        t.add(name, [helper.make_node("LinearAttention", inputs, ["y", "state"],
                                      q_num_heads=hq, kv_num_heads=hkv, update_rule=rule)],
              feeds, outputs=("y", "state"), opset=27, ir_version=11, reference="onnx", **kw)

    case("linear_attention_linear_gqa", "linear", rtol=1e-4, atol=1e-5)
    case("linear_attention_gated_per_key_past", "gated", decay_last=hkv * dk, past=True,
         rtol=1e-4, atol=1e-5)
    case("linear_attention_delta_beta_scalar", "delta", beta_last=1, rtol=1e-4, atol=1e-5)
    case("linear_attention_gated_delta_per_head", "gated_delta", decay_last=hkv,
         beta_last=hkv, past=True, rtol=1e-4, atol=1e-5)
    case("linear_attention_gated_delta_fp16", "gated_delta", decay_last=hkv * dk,
         beta_last=hkv, dtype=np.float16, rtol=2e-3, atol=2e-3)


def flex_attention_cases(t):
    """FlexAttention (ai.onnx.preview), against onnx's reference: grouped KV
    heads with a causal score_mod (PyTorch's mask_mod as a Where on the
    position ranges), a soft cap, a prob_mod, float16."""
    b, hq, hkv, seq_q, seq_k, e, ev = 2, 4, 2, 6, 9, 8, 5
    F = TensorProto.FLOAT
    numpy_helper_from = onnx.numpy_helper.from_array

    def mod_graph(name, nodes, consts=()):
        return helper.make_graph(
            nodes, name, [helper.make_tensor_value_info("s", F, ["B", "H", "L", "S"])],
            [helper.make_tensor_value_info("out", F, ["B", "H", "L", "S"])], list(consts))

    # The causal frontier with the queries aligned to the last keys.
    causal = mod_graph("causal", [
        helper.make_node("Range", ["zero", "lq", "one"], ["qi"]),
        helper.make_node("Add", ["qi", "offset"], ["qa"]),
        helper.make_node("Unsqueeze", ["qa", "ax"], ["qc"]),
        helper.make_node("Range", ["zero", "lk", "one"], ["ki"]),
        helper.make_node("GreaterOrEqual", ["qc", "ki"], ["ok"]),
        helper.make_node("Where", ["ok", "s", "neg"], ["out"])], [
        numpy_helper_from(np.array(0, I64), "zero"), numpy_helper_from(np.array(1, I64), "one"),
        numpy_helper_from(np.array(seq_q, I64), "lq"), numpy_helper_from(np.array(seq_k, I64), "lk"),
        numpy_helper_from(np.array(seq_k - seq_q, I64), "offset"),
        numpy_helper_from(np.array([1], I64), "ax"), numpy_helper_from(np.array(-1e9, F32), "neg")])
    softcap = mod_graph("softcap", [
        helper.make_node("Div", ["s", "cap"], ["d"]), helper.make_node("Tanh", ["d"], ["th"]),
        helper.make_node("Mul", ["th", "cap"], ["out"])], [numpy_helper_from(np.array(2.5, F32), "cap")])
    halve = mod_graph("halve", [helper.make_node("Mul", ["s", "half"], ["out"])],
                      [numpy_helper_from(np.array(0.5, F32), "half")])

    def case(name, attrs, dtype=F32, **kw):
        feeds = {"q": t.rand(b, hq, seq_q, e).astype(dtype), "k": t.rand(b, hkv, seq_k, e).astype(dtype),
                 "v": t.rand(b, hkv, seq_k, ev).astype(dtype)}
        node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview",
                                **attrs)
        tp = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        graph = helper.make_graph(
            [node], "flex", [helper.make_tensor_value_info(n, tp, a.shape) for n, a in feeds.items()],
            [helper.make_tensor_value_info("y", tp, [b, hq, seq_q, ev])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                        helper.make_opsetid("ai.onnx.preview", 1)],
                                  ir_version=11, producer_name="dlc-e2e")
        t.cases[name] = Case(model, feeds, reference="onnx", **kw)

    case("flex_attention_gqa_causal", dict(score_mod=causal), rtol=1e-4, atol=1e-5)
    case("flex_attention_softcap_scaled", dict(score_mod=softcap, scale=0.3), rtol=1e-4, atol=1e-5)
    case("flex_attention_prob_mod", dict(prob_mod=halve), rtol=1e-4, atol=1e-5)
    case("flex_attention_fp16", {}, dtype=np.float16, rtol=2e-3, atol=2e-3)


def roi_align_cases(t):
    """RoiAlign against ONNX Runtime: boxes over two images, some past the
    edges (samples outside [-1, extent] count as 0, those in [-1, 0) clamp),
    degenerate ones; avg and max, both coordinate modes."""
    x = t.rand(2, 3, 12, 15, lo=-2, hi=2)
    rois = np.array([[0, 0, 14, 11], [2.5, 1.2, 9.7, 8.1], [-3, -2, 5, 4], [10, 8, 20, 16],
                     [4, 4, 4, 4], [1, 6, 13.5, 7]], F32) * np.float32(2)
    idx = np.array([0, 1, 1, 0, 1, 0], I64)
    for mode in ("avg", "max"):
        for ctm in ("half_pixel", "output_half_pixel"):
            t.op(f"roi_align_{mode}_{ctm}", "RoiAlign", {"x": x, "rois": rois, "i": idx}, opset=16,
                 attrs=dict(mode=mode, coordinate_transformation_mode=ctm, output_height=3,
                            output_width=4, sampling_ratio=2, spatial_scale=0.5),
                 rtol=1e-4, atol=1e-5)


def deform_conv_cases(t):
    """DeformConv against onnx's reference (slow: small shapes): groups and
    offset groups, strides, dilations and pads, offsets that reach past the
    edges (zeros), a mask and a bias."""
    x = t.rand(1, 4, 7, 6)
    w = t.rand(6, 2, 3, 3)
    t.op("deform_conv_groups_pads", "DeformConv",
         {"x": x, "w": w, "off": t.rand(1, 2 * 9 * 2, 7, 6, lo=-2.5, hi=2.5)}, opset=19,
         attrs=dict(group=2, offset_group=2, pads=[1, 1, 1, 1]), reference="onnx",
         rtol=1e-4, atol=1e-5)
    t.op("deform_conv_stride_dilation_mask_bias", "DeformConv",
         {"x": x, "w": t.rand(3, 4, 2, 3), "off": t.rand(1, 12, 3, 2, lo=-1.5, hi=1.5),
          "b": t.rand(3), "m": t.rand(1, 6, 3, 2, lo=0, hi=1)}, opset=19,
         attrs=dict(strides=[2, 2], dilations=[2, 1], pads=[1, 0, 0, 0]),
         order=["x", "w", "off", "b", "m"], reference="onnx", rtol=1e-4, atol=1e-5)


def build_table():
    t = Table()
    for fn in (conv_cases, gemm_matmul_cases, elementwise_cases, normalization_cases, pool_cases,
               shape_cases, graph_cases, nhwc_cases, microsoft_cases, recurrent_cases,
               composed_cases, float8_cases, linear_attention_cases, flex_attention_cases,
               roi_align_cases, deform_conv_cases):
        fn(t)
    return t.cases


def check_case(case, d, dlc, target, device):
    model_path = d / "model.onnx"
    onnx.save(case.model, model_path)
    if case.reference == "onnx":
        from onnx.reference import ReferenceEvaluator  # noqa: PLC0415
        session = ReferenceEvaluator(case.model)
        ref = dict(zip(session.output_names, session.run(None, case.feeds)))
    else:
        ref = harness.run_ort(model_path, case.feeds)
    dlc.compile(model_path, d / "model.so", target=target,
                extra=(*case.flags, *(case.extra if target == "cpu" else ())))
    got = dlc.run(d / "model.so", harness.save_inputs(case.feeds, d), d / "out", list(ref), device=device)
    for name, r in ref.items():
        harness.compare(name, got[name], r, rtol=case.rtol, atol=case.atol)


def main():
    p = harness.common_args(__doc__)
    p.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--list", action="store_true", help="list the case names and exit")
    args = p.parse_args()
    harness.require("onnxruntime")
    device = "cuda" if args.target == "cuda" else "cpu"
    if device == "cuda":
        harness.skip_without_gpu()
    cases = build_table()
    if args.list:
        print("\n".join(cases))
        return 0
    dlc = harness.Dlc(args.bin_dir)
    print(f"dlc ops suite: target {args.target}, onnx {onnx.__version__}, {len(cases)} cases")

    def check(name, d):
        case = cases[name]
        xfail = case.xfail.get(args.target)
        try:
            check_case(case, d, dlc, args.target, device)
        except harness.Failure as e:
            if device == "cuda" and harness.is_no_cuda_error(str(e)):
                raise harness.NoDevice(str(e))
            if xfail:
                raise harness.ExpectedFailure(f"{xfail} [{harness.first_error(str(e))}]")
            raise
        if xfail:
            raise harness.UnexpectedPass(f"marked expected-fail ({xfail}) but passed")

    results = harness.run_cases(list(cases), check, args)
    return harness.finish("ops", results)


if __name__ == "__main__":
    sys.exit(main())
