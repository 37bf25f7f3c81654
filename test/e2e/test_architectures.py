#!/usr/bin/env python3
"""Architecture blocks end to end: small models built with onnx.helper the way
the PyTorch exporter (opset 17) writes them, with seeded numpy weights, run by
ONNX Runtime (the reference) and by dlc + dlc-run on the host.

    test_architectures.py --bin-dir build/bin [--target cpu|cuda] [-k REGEX] [-j N]

  bert_encoder_*   BERT-style post-LN encoder layer: Q/K/V MatMul+Add, heads by
                   Reshape/Transpose, QK^T / sqrt(d) + the int64 padding mask
                   (Unsqueeze/Cast/Sub/Mul), Softmax, context, projection,
                   residual, LayerNorm, FFN with GELU (erf form / tanh form);
                   one with the LayerNormalization op, one with the
                   ReduceMean/Sub/Pow/Sqrt/Div chain and Shape-computed
                   reshapes; the first also outputs the attention probabilities
  gpt*_decoder_*   GPT-style pre-LN decoder block with a causal mask: GPT-2's
                   bool buffer sliced + Where(mask, scores, finfo.min), fused
                   c_attn + Split; nanoGPT's Trilu(ones) == 0 -> Where(-inf);
                   torch's scaled_dot_product_attention(is_causal=True) export
  vit_patch_*      ViT patch embedding: Conv(kernel = stride = patch), flatten
                   + Transpose, class token Expand + Concat, position
                   embeddings, LayerNorm; folded and unfolded exporter forms
  mobilenet_*      depthwise-separable CNN: 1x1 expand, Conv(group=C) + BN +
                   Clip(0,6), 1x1 project + BN, residual Add, a stride-2
                   dw/pw block with Relu, GlobalAveragePool, Flatten, Gemm
  unet_up_*        U-Net up-sampling block: Resize (nearest, linear,
                   bilinear align_corners=True as milesial's U-Net exports it),
                   ConvTranspose or pixel shuffle (DepthToSpace), Concat with
                   the skip connection, Conv + Relu x 2

--target cuda only compiles for CUDA (dlc runs ptxas itself) and checks that
model.so was written: no GPU, no ONNX Runtime needed.  Every case prints its
ONNX node count (also without Constant nodes) next to dlc's kernel count
(--report-json), and the arena plan in that report is checked
(harness.check_plan).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

F32 = np.float32
I64 = np.int64
FMIN = float(np.finfo(F32).min)

BATCH, SEQ, HIDDEN, HEADS, FFN = 2, 16, 64, 4, 256
HEAD = HIDDEN // HEADS

# Expected failures: {target: (reason, regex the compiler's error must match)}.
# A case that fails differently, or passes, fails the run.
BOTH = ("cpu", "cuda")


def unsupported(op, targets=BOTH):
    return {t: (f"{op} is not supported by dlc yet",
                rf"\({op}, opset \d+\): unsupported operator") for t in targets}


def bug(reason, pattern, targets=BOTH):
    return {t: (reason, pattern) for t in targets}



# ---------------------------------------------------------------- graph builder


class Graph:
    """Nodes named like the exporter's ('/scope/Op_1', outputs '<node>_output_0'),
    scalars and shapes as Constant nodes, weights as initializers."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.counts = [], {}, {}

    def node(self, op, inputs, scope="", out=None, n_out=1, **attrs):
        key = f"{scope}/{op}"
        k = self.counts.get(key, 0)
        self.counts[key] = k + 1
        name = key if k == 0 else f"{key}_{k}"
        outs = [out] if out else [f"{name}_output_{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=name, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, value, scope="", dtype=F32):
        return self.node("Constant", [], scope, value=numpy_helper.from_array(np.asarray(value, dtype)))

    def ints(self, values, scope=""):
        return self.const(values, scope, I64)

    def param(self, name, arr):
        self.inits[name] = np.asarray(arr)
        return name

    def weight(self, name, *shape, fan_in=None):
        fan_in = fan_in or shape[0]
        return self.param(name, self.rng.normal(0, 1 / np.sqrt(fan_in), size=shape).astype(F32))

    def vec(self, name, n, mean=0.0, std=0.1):
        return self.param(name, (mean + std * self.rng.normal(size=n)).astype(F32))

    def model(self, feeds, outputs, opset=17):
        return harness.make_model(self.nodes, feeds, list(outputs), self.inits, opset=opset)


def linear(g, x, n_in, n_out, scope, name):
    """nn.Linear on a 3-D input: MatMul with the transposed weight, then
    Add(bias, ...) as torch writes it."""
    w = g.weight(f"onnx::MatMul_{name}", n_in, n_out)
    b = g.vec(f"{name}.bias", n_out)
    return g.node("Add", [b, g.node("MatMul", [x, w], scope)], scope)


def conv1d(g, x, n_in, n_out, scope, name):
    """transformers' Conv1D (GPT-2) as torch exports it: the rows flattened,
    Gemm with the [in, out] weight and the bias, reshaped back."""
    w = g.weight(f"{name}.weight", n_in, n_out)
    b = g.vec(f"{name}.bias", n_out)
    rows = g.node("Reshape", [x, g.ints([-1, n_in], scope)], scope)
    y = g.node("Gemm", [rows, w, b], scope, alpha=1.0, beta=1.0)
    return g.node("Reshape", [y, g.ints([BATCH, SEQ, n_out], scope)], scope)


def layer_norm(g, x, scope, name, kind, eps=1e-12):
    gamma, beta = g.vec(f"{name}.weight", HIDDEN, mean=1.0), g.vec(f"{name}.bias", HIDDEN)
    if kind == "op":
        return g.node("LayerNormalization", [x, gamma, beta], scope, axis=-1, epsilon=eps)
    # The decomposition older exporters (opset < 17) and hand-written LNs produce.
    mean = g.node("ReduceMean", [x], scope, axes=[-1], keepdims=1)
    d = g.node("Sub", [x, mean], scope)
    var = g.node("ReduceMean", [g.node("Pow", [d, g.const(2.0, scope)], scope)], scope, axes=[-1])
    std = g.node("Sqrt", [g.node("Add", [var, g.const(eps, scope)], scope)], scope)
    return g.node("Add", [g.node("Mul", [g.node("Div", [d, std], scope), gamma], scope), beta], scope)


def gelu(g, x, scope, kind):
    if kind == "erf":  # F.gelu: x * 0.5 * (1 + erf(x / sqrt(2)))
        e = g.node("Erf", [g.node("Div", [x, g.const(1.4142135381698608, scope)], scope)], scope)
        m = g.node("Mul", [x, g.node("Add", [e, g.const(1.0, scope)], scope)], scope)
        return g.node("Mul", [m, g.const(0.5, scope)], scope)
    # gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
    cube = g.node("Pow", [x, g.const(3.0, scope)], scope)
    inner = g.node("Add", [x, g.node("Mul", [g.const(0.044715, scope), cube], scope)], scope)
    t = g.node("Tanh", [g.node("Mul", [g.const(0.7978845608028654, scope), inner], scope)], scope)
    half = g.node("Mul", [g.const(0.5, scope), x], scope)
    return g.node("Mul", [half, g.node("Add", [g.const(1.0, scope), t], scope)], scope)


def shape_of(g, x, scope, dims, tail):
    """The Shape -> Gather -> Unsqueeze -> Concat chain a dynamic-axes export
    writes for x.view(x.size(0), x.size(1), *tail)."""
    s = g.node("Shape", [x], scope)
    parts = [g.node("Unsqueeze", [g.node("Gather", [s, g.ints(d, scope)], scope, axis=0),
                                  g.ints([0], scope)], scope) for d in dims]
    return g.node("Concat", parts + [g.ints(tail, scope)], scope, axis=0)


def split_heads(g, x, scope, dynamic, k_transposed=False, two_transposes=False):
    """[B,S,H*D] -> [B,H,S,D], or [B,H,D,S] for the keys."""
    shape = shape_of(g, x, scope, (0, 1), [HEADS, HEAD]) if dynamic else g.ints([0, 0, HEADS, HEAD], scope)
    r = g.node("Reshape", [x, shape], scope)
    if not k_transposed:
        return g.node("Transpose", [r], scope, perm=[0, 2, 1, 3])
    if two_transposes:  # k.permute(0, 2, 1, 3) then .transpose(-1, -2), unfused
        return g.node("Transpose", [g.node("Transpose", [r], scope, perm=[0, 2, 1, 3])], scope,
                      perm=[0, 1, 3, 2])
    return g.node("Transpose", [r], scope, perm=[0, 2, 3, 1])


def merge_heads(g, ctx, scope, dynamic):
    t = g.node("Transpose", [ctx], scope, perm=[0, 2, 1, 3])
    shape = shape_of(g, t, scope, (0, 1), [HIDDEN]) if dynamic else g.ints([BATCH, SEQ, HIDDEN], scope)
    return g.node("Reshape", [t, shape], scope)


# ---------------------------------------------------------------- models


def padding_mask():
    mask = np.ones((BATCH, SEQ), I64)
    mask[1, SEQ - 5:] = 0  # the second sequence is padded
    return mask


def bert_encoder(seed, ln, act, dynamic, mask_value, two_transposes, output_attentions=False):
    g = Graph(seed)
    x, m = "hidden_states", "attention_mask"
    # get_extended_attention_mask: mask[:, None, None, :], (1 - mask) * mask_value
    sc = "/embeddings"
    ext = g.node("Unsqueeze", [g.node("Unsqueeze", [m, g.ints([1], sc)], sc), g.ints([2], sc)], sc)
    ext = g.node("Cast", [ext], sc, to=TensorProto.FLOAT)
    ext = g.node("Mul", [g.node("Sub", [g.const(1.0, sc), ext], sc), g.const(mask_value, sc)], sc)

    sc = "/layer.0/attention/self"
    p = "encoder.layer.0.attention"
    q = split_heads(g, linear(g, x, HIDDEN, HIDDEN, f"{sc}/query", f"{p}.self.query"), sc, dynamic)
    k = split_heads(g, linear(g, x, HIDDEN, HIDDEN, f"{sc}/key", f"{p}.self.key"), sc, dynamic,
                    k_transposed=True, two_transposes=two_transposes)
    v = split_heads(g, linear(g, x, HIDDEN, HIDDEN, f"{sc}/value", f"{p}.self.value"), sc, dynamic)
    scores = g.node("Div", [g.node("MatMul", [q, k], sc), g.const(np.sqrt(HEAD), sc)], sc)
    probs = g.node("Softmax", [g.node("Add", [scores, ext], sc)], sc, axis=-1,
                   out="attentions" if output_attentions else None)
    ctx = merge_heads(g, g.node("MatMul", [probs, v], sc), sc, dynamic)
    sc = "/layer.0/attention/output"
    o = linear(g, ctx, HIDDEN, HIDDEN, f"{sc}/dense", f"{p}.output.dense")
    h = layer_norm(g, g.node("Add", [o, x], sc), f"{sc}/LayerNorm", f"{p}.output.LayerNorm", ln)

    sc = "/layer.0/intermediate"
    f = gelu(g, linear(g, h, HIDDEN, FFN, f"{sc}/dense", "encoder.layer.0.intermediate.dense"), sc, act)
    sc = "/layer.0/output"
    f = linear(g, f, FFN, HIDDEN, f"{sc}/dense", "encoder.layer.0.output.dense")
    layer_norm(g, g.node("Add", [f, h], sc), f"{sc}/LayerNorm", "encoder.layer.0.output.LayerNorm", ln)
    g.nodes[-1].output[0] = "last_hidden_state"
    feeds = {x: g.rng.normal(size=(BATCH, SEQ, HIDDEN)).astype(F32), m: padding_mask()}
    outputs = ["last_hidden_state"] + ["attentions"] * output_attentions
    return g.model(feeds, outputs), feeds


def sdpa_causal(g, q, k, v, sc):
    """F.scaled_dot_product_attention(q, k, v, is_causal=True) as torch's
    opset-14 symbolic writes it: scale from Shape(q), sqrt(scale) on both
    sides, the causal mask from Expand(1, [L, S]) -> Trilu -> Where(== 0)."""
    big = np.iinfo(I64).max
    qs, ks = g.node("Shape", [q], sc), g.node("Shape", [k], sc)
    e = g.node("Slice", [qs, g.ints([-1], sc), g.ints([big], sc)], sc)
    e = g.node("Cast", [e], sc, to=TensorProto.FLOAT)
    scale = g.node("Sqrt", [g.node("Div", [g.const(1.0, sc), g.node("Sqrt", [e], sc)], sc)], sc)
    kt = g.node("Transpose", [k], sc, perm=[0, 1, 3, 2])
    qk = g.node("MatMul", [g.node("Mul", [q, scale], sc), g.node("Mul", [kt, scale], sc)], sc)
    size = g.node("Concat", [g.node("Slice", [qs, g.ints([-2], sc), g.ints([-1], sc)], sc),
                             g.node("Slice", [ks, g.ints([-2], sc), g.ints([-1], sc)], sc)], sc, axis=0)
    tril = g.node("Trilu", [g.node("Expand", [g.const(1.0, sc), size], sc)], sc, upper=0)
    mask = g.node("Where", [g.node("Equal", [tril, g.const(0.0, sc)], sc), g.const(-np.inf, sc),
                            g.const(0.0, sc)], sc)
    probs = g.node("Softmax", [g.node("Add", [qk, mask], sc)], sc, axis=-1)
    return g.node("MatMul", [probs, v], sc)


def gpt_decoder(seed, style):
    """Pre-LN decoder block + ln_f.  style 'gpt2': HF GPT-2 (fused c_attn +
    Split, the bool 'bias' buffer sliced to [.., :T, :T], Where(mask, w,
    finfo.min), gelu_new); 'nanogpt': separate q/k/v, tril(ones) built in the
    graph with Trilu, masked_fill(mask == 0, -inf) as Where, erf GELU;
    'sdpa': fused c_attn + Split, F.scaled_dot_product_attention(is_causal=True);
    'gpt2_conv1d': 'gpt2' with its linear layers as transformers' GPT2Model
    exports them (Conv1D: Reshape, Gemm, Reshape)."""
    g = Graph(seed)
    dense = linear
    if style == "gpt2_conv1d":
        style, dense = "gpt2", conv1d
    x = "inputs_embeds"
    sc, p = "/h.0/attn", "h.0.attn"
    h = layer_norm(g, x, "/h.0/ln_1", "h.0.ln_1", "op", eps=1e-5)
    if style in ("gpt2", "sdpa"):
        qkv = dense(g, h, HIDDEN, 3 * HIDDEN, f"{sc}/c_attn", f"{p}.c_attn")
        q, k, v = g.node("Split", [qkv, g.ints([HIDDEN] * 3, sc)], sc, n_out=3, axis=2)
    else:
        q, k, v = (linear(g, h, HIDDEN, HIDDEN, f"{sc}/{n}", f"{p}.{n}") for n in ("q", "k", "v"))
    q, v = split_heads(g, q, sc, dynamic=False), split_heads(g, v, sc, dynamic=False)
    if style == "sdpa":
        ctx = sdpa_causal(g, q, split_heads(g, k, sc, dynamic=False), v, sc)
    else:
        kt = split_heads(g, k, sc, dynamic=False, k_transposed=True, two_transposes=style == "gpt2")
        w = g.node("Div", [g.node("MatMul", [q, kt], sc), g.const(np.sqrt(HEAD), sc)], sc)
        if style == "gpt2":
            maxpos = 32
            buf = g.param(f"{p}.bias", np.tril(np.ones((maxpos, maxpos), bool)).reshape(1, 1, maxpos, maxpos))
            for axis in (2, 3):
                buf = g.node("Slice", [buf, g.ints([0], sc), g.ints([SEQ], sc), g.ints([axis], sc),
                                       g.ints([1], sc)], sc)
            w = g.node("Where", [buf, w, g.const(FMIN, sc)], sc)
        else:
            ones = g.node("ConstantOfShape", [g.ints([SEQ, SEQ], sc)], sc,
                          value=numpy_helper.from_array(np.array([1.0], F32)))
            tril = g.node("Trilu", [ones, g.ints(0, sc)], sc, upper=0)
            masked = g.node("Equal", [tril, g.const(0.0, sc)], sc)
            w = g.node("Where", [masked, g.const(-np.inf, sc), w], sc)
        ctx = g.node("MatMul", [g.node("Softmax", [w], sc, axis=-1), v], sc)
    a = dense(g, merge_heads(g, ctx, sc, dynamic=False), HIDDEN, HIDDEN, f"{sc}/c_proj", f"{p}.c_proj")
    r = g.node("Add", [a, x], "/h.0")
    sc = "/h.0/mlp"
    h = layer_norm(g, r, "/h.0/ln_2", "h.0.ln_2", "op", eps=1e-5)
    f = dense(g, h, HIDDEN, FFN, f"{sc}/c_fc", "h.0.mlp.c_fc")
    f = gelu(g, f, sc, "tanh" if style == "gpt2" else "erf")
    f = dense(g, f, FFN, HIDDEN, f"{sc}/c_proj", "h.0.mlp.c_proj")
    out = g.node("Add", [r, f], "/h.0")
    g.node("LayerNormalization", [out, g.vec("ln_f.weight", HIDDEN, 1.0), g.vec("ln_f.bias", HIDDEN)],
           "/ln_f", out="last_hidden_state", axis=-1, epsilon=1e-5)
    feeds = {x: g.rng.normal(size=(BATCH, SEQ, HIDDEN)).astype(F32)}
    return g.model(feeds, ["last_hidden_state"]), feeds


def vit_patch_embedding(seed, folded):
    """HF ViTEmbeddings + the first layernorm_before.  folded: the shapes as
    constants (export with constant folding); else the chains torch writes
    for flatten(2) (Shape/Slice/Concat) and cls_token.expand(B, -1, -1)
    (-1 replaced by 1 through Equal/Where)."""
    g = Graph(seed)
    img, patch, sc = 32, 8, "/embeddings"
    n = (img // patch) ** 2
    x = "pixel_values"
    w = g.weight("embeddings.patch_embeddings.projection.weight", HIDDEN, 3, patch, patch,
                 fan_in=3 * patch * patch)
    b = g.vec("embeddings.patch_embeddings.projection.bias", HIDDEN)
    c = g.node("Conv", [x, w, b], f"{sc}/patch_embeddings/projection", kernel_shape=[patch, patch],
               strides=[patch, patch], pads=[0, 0, 0, 0], dilations=[1, 1], group=1)
    if folded:
        flat = g.node("Reshape", [c, g.ints([BATCH, HIDDEN, n], sc)], sc)
        expand_shape = g.ints([BATCH, 1, 1], sc)
    else:
        s = g.node("Shape", [c], sc)
        head = g.node("Slice", [s, g.ints([0], sc), g.ints([2], sc), g.ints([0], sc)], sc)
        flat = g.node("Reshape", [c, g.node("Concat", [head, g.ints([-1], sc)], sc, axis=0)], sc)
        batch = g.node("Unsqueeze", [g.node("Gather", [g.node("Shape", [x], sc), g.ints(0, sc)], sc, axis=0),
                                     g.ints([0], sc)], sc)
        want = g.node("Concat", [batch, g.ints([-1], sc), g.ints([-1], sc)], sc, axis=0)
        minus1 = g.node("Equal", [want, g.ints([-1, -1, -1], sc)], sc)
        expand_shape = g.node("Where", [minus1, g.ints([1, 1, 1], sc), want], sc)
    tokens = g.node("Transpose", [flat], sc, perm=[0, 2, 1])
    cls = g.param("embeddings.cls_token", (0.02 * g.rng.normal(size=(1, 1, HIDDEN))).astype(F32))
    cls = g.node("Expand", [cls, expand_shape], sc)
    seq = g.node("Concat", [cls, tokens], sc, axis=1)
    pos = g.param("embeddings.position_embeddings",
                  (0.02 * g.rng.normal(size=(1, n + 1, HIDDEN))).astype(F32))
    emb = g.node("Add", [seq, pos], sc, out="embeddings")
    g.node("LayerNormalization", [emb, g.vec("layernorm_before.weight", HIDDEN, 1.0),
                                  g.vec("layernorm_before.bias", HIDDEN)],
           "/encoder/layer.0/layernorm_before", out="normed", axis=-1, epsilon=1e-12)
    feeds = {x: g.rng.uniform(-1, 1, size=(BATCH, 3, img, img)).astype(F32)}
    return g.model(feeds, ["embeddings", "normed"]), feeds


def conv_bn(g, x, c_in, c_out, scope, name, k=1, stride=1, group=1, act=None):
    """Conv (bias=False) + BatchNormalization (eval) [+ Clip(0, 6) or Relu]."""
    w = g.weight(f"{name}.0.weight", c_out, c_in // group, k, k, fan_in=c_in // group * k * k)
    p = k // 2
    y = g.node("Conv", [x, w], f"{scope}/Conv", kernel_shape=[k, k], strides=[stride, stride],
               pads=[p, p, p, p], dilations=[1, 1], group=group)
    bn = [g.vec(f"{name}.1.weight", c_out, 1.0, 0.2), g.vec(f"{name}.1.bias", c_out),
          g.vec(f"{name}.1.running_mean", c_out),
          g.param(f"{name}.1.running_var", g.rng.uniform(0.5, 1.5, c_out).astype(F32))]
    y = g.node("BatchNormalization", [y, *bn], f"{scope}/BatchNormalization", epsilon=1e-5, momentum=0.9)
    if act == "relu6":
        y = g.node("Clip", [y, g.const(0.0, scope), g.const(6.0, scope)], f"{scope}/Clip")
    elif act == "relu":
        y = g.node("Relu", [y], scope)
    return y


def mobilenet(seed):
    """A MobileNetV2 inverted residual (expand 1x1, depthwise 3x3, project
    1x1, residual) and a MobileNetV1 stride-2 dw/pw block, then the head."""
    g = Graph(seed)
    x, c, e = "input", 16, 64
    h = conv_bn(g, x, c, e, "/features.1/conv/0", "features.1.conv.0", act="relu6")
    h = conv_bn(g, h, e, e, "/features.1/conv/1", "features.1.conv.1", k=3, group=e, act="relu6")
    h = conv_bn(g, h, e, c, "/features.1/conv/2", "features.1.conv.2")
    h = g.node("Add", [x, h], "/features.1")
    h = conv_bn(g, h, c, c, "/features.2/dw", "features.2.dw", k=3, stride=2, group=c, act="relu")
    h = conv_bn(g, h, c, 2 * c, "/features.2/pw", "features.2.pw", act="relu")
    pooled = g.node("GlobalAveragePool", [h], "")
    flat = g.node("Flatten", [pooled], "", axis=1)
    fc_w, fc_b = g.weight("classifier.weight", 10, 2 * c, fan_in=2 * c), g.vec("classifier.bias", 10)
    g.node("Gemm", [flat, fc_w, fc_b],
           "/classifier", out="logits", alpha=1.0, beta=1.0, transB=1)
    feeds = {x: g.rng.uniform(-1, 1, size=(BATCH, c, 16, 16)).astype(F32)}
    return g.model(feeds, ["logits"]), feeds


def unet_up(seed, mode):
    """milesial's U-Net Up: upsample x1 [B,32,8,8] x2, Concat([skip, up]),
    DoubleConv (Conv 3x3 + Relu) x 2 to 16 channels."""
    g = Graph(seed)
    x, skip, c = "x1", "x2", 32
    sc = "/up1/up"
    if mode.startswith("resize_"):  # nn.Upsample(scale_factor=2, mode=..., align_corners=...)
        attrs = {"nearest": dict(mode="nearest", coordinate_transformation_mode="asymmetric",
                                 nearest_mode="floor"),
                 "linear": dict(mode="linear", coordinate_transformation_mode="pytorch_half_pixel"),
                 "linear_align_corners": dict(mode="linear", coordinate_transformation_mode="align_corners"),
                 }[mode[len("resize_"):]]
        up = g.node("Resize", [x, "", g.const([1.0, 1.0, 2.0, 2.0], sc)], sc, cubic_coeff_a=-0.75, **attrs)
        c_up = c
    elif mode == "convtranspose":  # nn.ConvTranspose2d(32, 16, kernel_size=2, stride=2)
        c_up = c // 2
        up = g.node("ConvTranspose", [x, g.weight("up1.up.weight", c, c_up, 2, 2, fan_in=c * 4),
                                      g.vec("up1.up.bias", c_up)], sc,
                    kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 0, 0], dilations=[1, 1], group=1)
    else:  # sub-pixel: Conv 1x1 to 4*16 channels, nn.PixelShuffle(2)
        c_up = c // 2
        w, b = g.weight("up1.up.0.weight", 4 * c_up, c, 1, 1), g.vec("up1.up.0.bias", 4 * c_up)
        y = g.node("Conv", [x, w, b], sc, kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0])
        up = g.node("DepthToSpace", [y], sc, blocksize=2, mode="CRD")
    cat = g.node("Concat", [skip, up], "/up1", axis=1)
    h, c_in = cat, c // 2 + c_up
    for i, name in enumerate(("0", "2")):
        scope = f"/up1/conv/double_conv/double_conv.{name}"
        w = g.weight(f"up1.conv.double_conv.{name}.weight", 16, c_in, 3, 3, fan_in=c_in * 9)
        h = g.node("Conv", [h, w, g.vec(f"up1.conv.double_conv.{name}.bias", 16)], scope,
                   kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], dilations=[1, 1], group=1)
        h = g.node("Relu", [h], scope, out="y" if i == 1 else None)
        c_in = 16
    feeds = {x: g.rng.uniform(-1, 1, size=(BATCH, c, 8, 8)).astype(F32),
             skip: g.rng.uniform(-1, 1, size=(BATCH, c // 2, 16, 16)).astype(F32)}
    return g.model(feeds, ["y"]), feeds


@dataclass
class Case:
    build: object  # () -> (model, feeds)
    xfail: dict = field(default_factory=dict)  # {target: (reason, error regex)}
    # {target: most kernels}: a fusion the case exists for must keep working.
    max_kernels: dict = field(default_factory=dict)


CASES = {
    "bert_encoder_layernorm_erf": Case(lambda: bert_encoder(1, "op", "erf", dynamic=False, mask_value=FMIN,
                                                            two_transposes=False, output_attentions=True)),
    "bert_encoder_decomposed_ln_tanh": Case(lambda: bert_encoder(2, "decomposed", "tanh", dynamic=True,
                                                                 mask_value=-10000.0, two_transposes=True)),
    # The attention reads Q, K and V from c_attn's output (*_select): no
    # Split kernel (4 and 9 kernels with it).
    "gpt2_decoder_slice_where": Case(lambda: gpt_decoder(3, "gpt2"),
                                     max_kernels={"cpu": 3, "cuda": 8}),
    # The GEMMs fuse as the MatMul form's do (dlc-unflatten-gemms; 12 and
    # 12 kernels without it).
    "gpt2_decoder_conv1d": Case(lambda: gpt_decoder(14, "gpt2_conv1d"),
                                max_kernels={"cpu": 3, "cuda": 8}),
    "gpt_decoder_trilu_masked_fill": Case(lambda: gpt_decoder(4, "nanogpt")),
    # SDPA's scale folds (one-element f32 Sqrt/Div), so Q and K's scaling
    # and the Split fold into the attention (7 and 12 kernels without).
    "gpt_decoder_sdpa_causal": Case(lambda: gpt_decoder(12, "sdpa"),
                                    max_kernels={"cpu": 4, "cuda": 9}),
    "vit_patch_embedding": Case(lambda: vit_patch_embedding(5, folded=True)),
    "vit_patch_embedding_unfolded": Case(lambda: vit_patch_embedding(6, folded=False)),
    "mobilenet_depthwise_separable": Case(lambda: mobilenet(7)),
    "unet_up_resize_nearest": Case(lambda: unet_up(8, "resize_nearest")),
    "unet_up_resize_linear": Case(lambda: unet_up(9, "resize_linear")),
    "unet_up_resize_bilinear_align_corners": Case(lambda: unet_up(13, "resize_linear_align_corners")),
    "unet_up_convtranspose": Case(lambda: unet_up(10, "convtranspose")),
    "unet_up_pixel_shuffle": Case(lambda: unet_up(11, "pixel_shuffle")),
}


# ---------------------------------------------------------------- running


def check_case(case, d, dlc, target, arch, info):
    model, feeds = case.build()
    info["nodes"] = len(model.graph.node)
    info["ops"] = sum(n.op_type != "Constant" for n in model.graph.node)
    model_path = d / "model.onnx"
    onnx.save(model, model_path)
    ref = None
    if target == "cpu":
        t0 = time.monotonic()
        ref = harness.run_ort(model_path, feeds)
        info["ort_s"] = time.monotonic() - t0
    report, so = d / "report.json", d / "model.so"
    cmd = [dlc.dlc, model_path, "-o", so, f"--target={target}", f"--report-json={report}"]
    if arch:
        cmd.append(f"--arch={arch}")
    t0 = time.monotonic()
    proc = dlc._call(cmd, "dlc", 600)
    info["compile_s"] = time.monotonic() - t0
    if not so.is_file() or so.stat().st_size == 0:
        raise harness.Failure(f"dlc exited 0 but wrote no {so}")
    if "ptxas not found" in proc.stderr:  # PTX-only model.so: ptxas did not check the kernels
        raise harness.Failure(f"dlc did not run ptxas: {harness.first_error(proc.stderr)}")
    rep = json.loads(report.read_text())
    info["kernels"] = rep["kernel_count"]
    info["arena"] = rep["arena_bytes"]
    most = case.max_kernels.get(target)
    if most is not None and rep["kernel_count"] > most:
        raise harness.Failure(f"{rep['kernel_count']} kernels, expected at most {most}")
    problems = harness.check_plan(rep)
    if problems:
        raise harness.Failure("arena plan: " + "; ".join(problems[:3]))
    if ref is None:
        return
    t0 = time.monotonic()
    got = dlc.run(so, harness.save_inputs(feeds, d), d / "out", list(ref))
    info["run_s"] = time.monotonic() - t0
    errs = []
    for name, r in ref.items():
        maxabs = float(np.abs(r).max())
        harness.compare(name, got[name], r, rtol=1e-3, atol=1e-4 * maxabs, scale_atol=False)
        errs.append(float(np.abs(got[name].astype(np.float64) - r).max()) / max(maxabs, 1e-30))
    info["rel_err"] = max(errs)


def find_ptxas():
    """Where dlc will find ptxas (its own search order), or None."""
    roots = [os.environ.get("CUDA_HOME", "")]
    on_path = shutil.which("ptxas")
    if on_path:
        roots.append(str(Path(on_path).resolve().parent.parent))
    roots.append("/usr/local/cuda")
    for root in filter(None, roots):
        if os.access(Path(root) / "bin" / "ptxas", os.X_OK):
            return Path(root) / "bin" / "ptxas"
    return None


def print_table(results, infos):
    def f(v, fmt):
        return "-" if v is None else format(v, fmt)

    print(f"{'case':38} {'status':6} {'onnx nodes':>10} {'non-const':>9} {'kernels':>7} {'compile s':>9}"
          f" {'run s':>6} {'ort s':>6} {'max err/max|ref|':>16}")
    for r in results:
        i = infos.get(r.name, {})
        print(f"{r.name:38} {r.status:6} {f(i.get('nodes'), 'd'):>10} {f(i.get('ops'), 'd'):>9}"
              f" {f(i.get('kernels'), 'd'):>7}"
              f" {f(i.get('compile_s'), '.2f'):>9} {f(i.get('run_s'), '.2f'):>6}"
              f" {f(i.get('ort_s'), '.2f'):>6}"
              f" {f(i.get('rel_err'), '.2e'):>16}")


def main():
    p = harness.common_args(__doc__)
    p.add_argument("--target", choices=["cpu", "cuda"], default="cpu",
                   help="cpu: compile, run and compare; cuda: compile only (no GPU needed)")
    p.add_argument("--cuda-arch", default="sm_90", help="--arch for --target cuda (default sm_90)")
    p.add_argument("--list", action="store_true", help="list the case names and exit")
    args = p.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    if args.target == "cpu":
        harness.require("onnxruntime")
    elif find_ptxas() is None:
        print("skipped: ptxas not found (CUDA_HOME, PATH, /usr/local/cuda): dlc would write PTX only")
        return harness.SKIP
    dlc = harness.Dlc(args.bin_dir)
    arch = args.cuda_arch if args.target == "cuda" else None
    mode = "compile only, " + arch if arch else "compile, run, compare with ONNX Runtime"
    print(f"dlc architectures suite: target {args.target} ({mode}), onnx {onnx.__version__},"
          f" {len(CASES)} cases")
    infos = {}

    def check(name, d):
        case, info = CASES[name], infos.setdefault(name, {})
        xfail = case.xfail.get(args.target)
        try:
            check_case(case, d, dlc, args.target, arch, info)
        except harness.Failure as e:
            if not xfail:
                raise
            reason, pattern = xfail
            if not re.search(pattern, str(e)):
                raise harness.Failure(f"expected to fail with /{pattern}/ ({reason}) but failed"
                                      f" differently: {e}")
            raise harness.ExpectedFailure(f"{reason} [{harness.first_error(str(e))}]")
        if xfail:
            raise harness.UnexpectedPass(f"marked expected-fail ({xfail[0]}) but passed:"
                                         " remove the mark")

    results = harness.run_cases(list(CASES), check, args)
    print_table(results, infos)
    return harness.finish(f"architectures ({args.target})", results)


if __name__ == "__main__":
    sys.exit(main())
