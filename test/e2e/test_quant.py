#!/usr/bin/env python3
"""Quantization end-to-end checks: small QDQ / QLinear / integer models made
with onnx.helper, ONNX Runtime as the reference, dlc + dlc-run under test.

    test_quant.py --bin-dir build/bin [--target cpu|cuda] [--cuda-kernel-form]
                  [-k REGEX] [-j N]

--cuda-kernel-form (target cpu) runs the kernels the CUDA target would
generate (channels-last int8 convolutions, tensor-core tiling) on the host.

Integer outputs compare exactly unless a case allows `int_tol` (a float
Conv between DequantizeLinear and QuantizeLinear may round one element the
other way when its sum lands on a .5 in a different summation order).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

F32, U8, I8, I32 = np.float32, np.uint8, np.int8, np.int32
I16, U16 = np.int16, np.uint16


@dataclass
class Case:
    model: onnx.ModelProto
    feeds: dict
    int_tol: int = 0
    xfail: str = ""
    rtol: float = 1e-5
    atol: float = 1e-6
    ort_optimize: bool = True  # False: ONNX Runtime without its fusions


def rng(seed=0):
    return np.random.default_rng(seed)


def q_dq(opset, dtype, zp, axis=None, shape=(2, 3, 4), per_channel=False, step=1.0):
    """x -> QuantizeLinear -> (q, DequantizeLinear -> y); x hits exact ties.
    `step` scales the scales (16-bit grids: x spans the whole type and
    saturates at both ends)."""
    r = rng(opset)
    c = shape[1] if per_channel else 1
    scale = (r.uniform(0.02, 0.1, size=c) if per_channel else np.array(0.05)) * step
    scale = scale.astype(F32)
    zps = np.full(scale.shape, zp, dtype=dtype)
    x = r.uniform(-8, 8, size=shape).astype(F32)
    s = scale.reshape((1, c, 1)) if per_channel else scale
    x.flat[::3] = ((np.round(x / s) + 0.5) * s).flat[::3]  # ties: half to even
    x.flat[1] = 1e6  # saturates
    attrs = {} if axis is None else {"axis": axis}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **attrs),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], **attrs)]
    return Case(harness.make_model(nodes, {"x": x}, ["q", "y"], {"s": scale, "z": zps},
                                   opset=opset, ir_version=10 if opset >= 21 else 8),
                {"x": x})


def q_dq_f16(per_channel=False):
    """Opset 21's float16 forms: an f16 input with an f16 scale (per tensor,
    or per channel along axis 1), int8 out and back to f16."""
    r = rng(21)
    c = 3 if per_channel else 1
    scale = (r.uniform(0.02, 0.1, size=c) if per_channel else np.array(0.05)).astype(np.float16)
    zps = np.full(scale.shape, -3, dtype=I8)
    x = r.uniform(-6, 6, size=(2, 3, 4)).astype(np.float16)
    x.flat[1] = 6e4  # saturates
    attrs = {"axis": 1} if per_channel else {}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], **attrs),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], **attrs)]
    return Case(harness.make_model(nodes, {"x": x}, ["q", "y"], {"s": scale, "z": zps},
                                   opset=21, ir_version=10), {"x": x})


def quantize_near_ties():
    """QuantizeLinear at and 1-3 ulps around every .5 of x / scale, for 64
    per-channel scales from 1e-4 to 1e2: the CUDA form multiplies by the
    reciprocal and corrects it (--reciprocal-quantize), which must give the
    quotient ORT's division does, rounding included."""
    r = rng(7)
    c = 64
    scale = (10.0 ** r.uniform(-4, 2, size=c)).astype(F32)
    k = r.integers(-140, 140, size=(c, 7)).astype(np.float64) + 0.5
    ties = (k * scale.astype(np.float64)[:, None]).astype(F32)
    bits = ties.view(np.int32)[:, :, None] + np.arange(-3, 4, dtype=np.int32)
    x = bits.view(F32).reshape(c, -1).T.copy()  # [49, 64], channel innermost
    x[0, :] = [1e30, -1e30, 3e38, -3e38] * (c // 4)  # saturate
    zps = np.zeros(c, dtype=I8)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], axis=1)]
    return Case(harness.make_model(nodes, {"x": x}, ["q"], {"s": scale, "z": zps},
                                   opset=13), {"x": x})


def quantize_nan(dtype, zp):
    """QuantizeLinear of NaN and infinities beside finite values: NaN and
    -inf saturate to the type's low end, +inf to its high end (ORT's
    quantize clamps with max then min, which take the bound over a NaN)."""
    x = np.array([np.nan, 1.0, -np.inf, np.inf, -3.0, np.nan, 0.0, 250.0],
                 dtype=F32)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"])]
    return Case(harness.make_model(nodes, {"x": x}, ["q"],
                                   {"s": np.array(0.5, F32),
                                    "z": np.array(zp, dtype)}, opset=13),
                {"x": x})


def dq_input(dtype, zp):
    """A uint8/int8/int32 graph input dequantized (uint8 model inputs);
    16-bit ones (opset 21) over their whole range."""
    info = np.iinfo(dtype)
    wide = info.bits == 16
    lo, hi = (info.min, info.max) if wide else (max(info.min, -1000), min(info.max, 1000))
    x = rng(1).integers(lo, hi, size=(3, 5), endpoint=True).astype(dtype)
    x.flat[:2] = [info.min, info.max]
    nodes = [helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"])]
    return Case(harness.make_model(nodes, {"x": x}, ["y"],
                                   {"s": np.array(0.25, F32), "z": np.array(zp, dtype)},
                                   opset=21 if wide else 17, ir_version=10 if wide else 8),
                {"x": x})


def blocked(op, dtype, axis, block, shape=(6, 10), zp=True, seed=11):
    """Opset 21's blocked quantization: a scale (and zero point) per `block`
    consecutive elements along `axis`, the last block short where `block`
    does not divide the extent. QuantizeLinear saturates and rounds half to
    even as the per-tensor form does."""
    r = rng(seed)
    nblocks = -(-shape[axis] // block)
    sshape = list(shape)
    sshape[axis] = nblocks
    scale = r.uniform(0.02, 0.2, size=sshape).astype(F32)
    info = np.iinfo(dtype)
    inits = {"s": scale}
    if zp:
        inits["z"] = r.integers(info.min // 4, info.max // 4, size=sshape).astype(dtype)
    if op == "QuantizeLinear":
        x = r.uniform(-40, 40, size=shape).astype(F32)
        x.flat[0] = 1e6  # saturates
        # output_dtype names the zero point's type where there is one.
        attrs = {"output_dtype": helper.np_dtype_to_tensor_dtype(np.dtype(dtype))}
    else:
        x = r.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
        attrs = {}
    nodes = [helper.make_node(op, ["x", "s"] + (["z"] if zp else []), ["y"], axis=axis,
                              block_size=block, **attrs)]
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits, opset=21, ir_version=10),
                {"x": x})


def blocked_weights(wdtype, zp=True):
    """Blocked-quantized weights (a constant DequantizeLinear, folded at
    import) feeding a MatMul: weight-only quantization with a scale per 32
    rows; the weights are large enough to be a resource blob."""
    r = rng(12)
    k, n, block = 96, 80, 32
    info = np.iinfo(wdtype)
    w = r.integers(info.min, info.max, size=(k, n), endpoint=True).astype(wdtype)
    s = r.uniform(0.001, 0.01, size=(k // block, n)).astype(F32)
    inits = {"w": w, "s": s}
    if zp:
        inits["z"] = r.integers(info.min // 2, info.max // 2, size=s.shape).astype(wdtype)
    x = r.standard_normal((4, k)).astype(F32)
    nodes = [helper.make_node("DequantizeLinear", ["w", "s"] + (["z"] if zp else []), ["wf"],
                              axis=0, block_size=block),
             helper.make_node("MatMul", ["x", "wf"], ["y"])]
    # ONNX Runtime's optimized graph quantizes x for an integer GEMM (0.12
    # off at max|y| 29); the spec's float result is the unoptimized one.
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits, opset=21, ir_version=10),
                {"x": x}, rtol=1e-5, atol=1e-5, ort_optimize=False)


def four_bit_weights(signed, raw, block=16, n=20):
    """int4/uint4 weights (opset 21; two values a byte, the first in the low
    nibble, as raw_data or one byte per int32_data entry) dequantized per
    block of rows (block=0: per output column; n odd: the zero points' last
    byte half used) into a MatMul."""
    r = rng(13)
    k = 48
    lo, hi = (-8, 7) if signed else (0, 15)
    dtype = TensorProto.INT4 if signed else TensorProto.UINT4
    w = r.integers(lo, hi, size=(k, n), endpoint=True)
    sshape = (k // block, n) if block else (n,)
    s = r.uniform(0.01, 0.1, size=sshape).astype(F32)
    z = r.integers(lo, hi, size=sshape, endpoint=True)

    def packed(name, v):
        flat = v.flatten()
        if not raw:
            return helper.make_tensor(name, dtype, v.shape, flat.tolist())
        nib = np.append(flat, 0)[: 2 * ((flat.size + 1) // 2)].astype(np.int64) & 0xF
        data = (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8).tobytes()
        return helper.make_tensor(name, dtype, v.shape, data, raw=True)

    x = r.standard_normal((3, k)).astype(F32)
    attrs = {"axis": 0, "block_size": block} if block else {"axis": 1}
    nodes = [helper.make_node("DequantizeLinear", ["w", "s", "z"], ["wf"], **attrs),
             helper.make_node("MatMul", ["x", "wf"], ["y"])]
    model = harness.make_model(nodes, {"x": x}, ["y"], {"s": s}, opset=21, ir_version=10)
    model.graph.initializer.extend([packed("w", w), packed("z", z)])
    return Case(model, {"x": x}, rtol=1e-5, atol=1e-5, ort_optimize=False)


def qlinear_conv(pads, group=1, per_channel=True, xdtype=U8):
    r = rng(2)
    cin, cout = 4, 6
    x = r.integers(0, 255, size=(1, cin, 7, 7)).astype(xdtype) if xdtype == U8 else \
        r.integers(-128, 127, size=(1, cin, 7, 7)).astype(xdtype)
    w = r.integers(-127, 127, size=(cout, cin // group, 3, 3)).astype(I8)
    ws = (r.uniform(0.002, 0.01, size=cout) if per_channel else np.array(0.005)).astype(F32)
    wz = np.zeros(ws.shape, I8)
    b = r.integers(-2000, 2000, size=cout).astype(I32)
    inits = {"xs": np.array(0.02, F32), "xz": np.array(128 if xdtype == U8 else 3, xdtype),
             "w": w, "ws": ws, "wz": wz, "ys": np.array(0.1, F32),
             "yz": np.array(100, xdtype), "b": b}
    nodes = [helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                              ["y"], pads=pads, group=group)]
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits), {"x": x})


def vnni_conv(xdtype, cin, cout, hw, k, pads, strides=(1, 1), seed=21, group=1):
    """QLinearConv shapes whose rows take AVX512-VNNI's byte dot products
    with --cpu=native (dlc-vectorize-host-rows vnni): input channels a
    multiple of 4, rows of 16 lanes plus a rest; an s8 input is read as u8
    (x xor 0x80) with 128 * sum(w) more in the accumulator's init. Grouped
    (depthwise) ones take their window rows' taps 4 at a time, the weight
    rows zero-padded (sliding reads)."""
    r = rng(seed)
    h, w_ = hw
    lo, hi = (0, 255) if xdtype == U8 else (-128, 127)
    x = r.integers(lo, hi, size=(1, cin, h, w_), endpoint=True).astype(xdtype)
    w = r.integers(-128, 127, size=(cout, cin // group, k, k), endpoint=True).astype(I8)
    ws = r.uniform(0.0005, 0.002, size=cout).astype(F32)
    b = r.integers(-3000, 3000, size=cout).astype(I32)
    inits = {"xs": np.array(0.02, F32), "xz": np.array(131 if xdtype == U8 else -5, xdtype),
             "w": w, "ws": ws, "wz": np.zeros(cout, I8), "ys": np.array(0.3, F32),
             "yz": np.array(120 if xdtype == U8 else 4, xdtype), "b": b}
    nodes = [helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                              ["y"], pads=pads, strides=list(strides), group=group)]
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits), {"x": x})


def qlinear_matmul():
    r = rng(3)
    a = r.integers(0, 255, size=(2, 3, 8)).astype(U8)
    b = r.integers(0, 255, size=(8, 5)).astype(U8)
    inits = {"as": np.array(0.03, F32), "az": np.array(120, U8), "b": b,
             "bs": np.array(0.02, F32), "bz": np.array(130, U8),
             "ys": np.array(0.2, F32), "yz": np.array(10, U8)}
    nodes = [helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])]
    return Case(harness.make_model(nodes, {"a": a}, ["y"], inits), {"a": a})


def matmul_integer(bdtype, m=4, k=9, n=6, bz=3, adtype=U8, az=7, batch=()):
    r = rng(4)

    def ints(dtype, shape):
        lo, hi = (0, 255) if dtype == U8 else (-128, 127)
        return r.integers(lo, hi, size=shape, endpoint=True).astype(dtype)

    a = ints(adtype, (*batch, m, k))
    b = ints(bdtype, (k, n))
    nodes = [helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])]
    inits = {"b": b, "az": np.array(az, adtype), "bz": np.array(bz, bdtype)}
    return Case(harness.make_model(nodes, {"a": a}, ["y"], inits), {"a": a})


def conv_integer():
    r = rng(5)
    x = r.integers(0, 255, size=(1, 3, 6, 6)).astype(U8)
    w = r.integers(0, 255, size=(4, 3, 3, 3)).astype(U8)
    nodes = [helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 1, 1, 1],
                              strides=[2, 2])]
    inits = {"w": w, "xz": np.array(128, U8), "wz": np.array(100, U8)}
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits), {"x": x})


def conv_integer_rows(strides, hw):
    """A ConvInteger of 64 output channels whose output rows are shorter
    than a 16-lane tile: on the host it runs on its padded input's plane
    (stride 1) or its phases' (stride 2), the copies padded with the input
    zero point, the positions rounded up to whole tiles. u8 weights with a
    zero point of 100: no split, both zero points subtracted per product."""
    r = rng(8)
    x = r.integers(0, 255, size=(1, 6, *hw), endpoint=True).astype(U8)
    w = r.integers(0, 255, size=(64, 6, 3, 3), endpoint=True).astype(U8)
    nodes = [helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 1, 1, 1],
                              strides=list(strides))]
    inits = {"w": w, "xz": np.array(131, U8), "wz": np.array(100, U8)}
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits), {"x": x})


def conv_integer_depthwise(weight_input):
    """A padded depthwise ConvInteger: its window reads the input with bounds
    checks, the input zero point (128) outside; weight_input: the weight is
    a graph input (no zero-point split: both zero points subtracted per
    product)."""
    r = rng(7)
    x = r.integers(0, 255, size=(1, 4, 6, 6)).astype(U8)
    w = r.integers(0, 255, size=(4, 1, 3, 3)).astype(U8)
    nodes = [helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 2, 1, 0],
                              group=4)]
    inits = {"xz": np.array(128, U8), "wz": np.array(100, U8)}
    feeds = {"x": x}
    if weight_input:
        feeds["w"] = w
    else:
        inits["w"] = w
    return Case(harness.make_model(nodes, feeds, ["y"], inits), feeds)


def dynamic_quantize():
    x = rng(6).uniform(-3, 5, size=(3, 7)).astype(F32)
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "ys", "yz"])]
    return Case(harness.make_model(nodes, {"x": x}, ["y", "ys", "yz"]), {"x": x})


def qdq_conv(op="Conv", relu=False, matvec=None):
    """DQ(x u8) -> Conv/Gemm/MatMul(DQ(w i8 per channel), DQ(bias i32)) -> Q -> DQ: the
    pattern dlc-fold-qdq turns into integer ops. `matvec` (K, N): a Gemm or
    MatMul of one row (a classifier at batch 1), whose long row the host
    splits into panels of columns."""
    r = rng(7)
    m, k, n = (3, 16, 10) if matvec is None else (1, *matvec)
    if op == "Conv":
        x = r.uniform(-1, 1, size=(1, 4, 8, 8)).astype(F32)
        w = r.integers(-127, 127, size=(6, 4, 3, 3)).astype(I8)
        axis, cout = 0, 6
    elif op == "Gemm":
        x = r.uniform(-1, 1, size=(m, k)).astype(F32)
        w = r.integers(-127, 127, size=(n, k)).astype(I8)
        axis, cout = 0, n
    else:
        x = r.uniform(-1, 1, size=(2 if matvec is None else 1, m, k)).astype(F32)
        w = r.integers(-127, 127, size=(k, n)).astype(I8)
        axis, cout = 1, n
    ws = r.uniform(0.002, 0.01, size=cout).astype(F32)
    xs = np.array(2 / 255, F32)
    inits = {"xs": xs, "xz": np.array(128, U8), "w": w, "ws": ws, "wz": np.zeros(cout, I8),
             "ys": np.array(0.05, F32), "yz": np.array(0 if relu else 128, U8)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=axis)]
    if op != "MatMul":
        inits.update({"b": r.integers(-500, 500, size=cout).astype(I32), "bs": xs * ws,
                      "bz": np.zeros(cout, I32)})
        nodes.append(helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bd"], axis=0))
    if op == "Conv":
        nodes.append(helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], pads=[1, 1, 1, 1]))
    elif op == "Gemm":
        nodes.append(helper.make_node("Gemm", ["xd", "wd", "bd"], ["c"], transB=1))
    else:
        nodes.append(helper.make_node("MatMul", ["xd", "wd"], ["c"]))
    nodes += [helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"]),
              helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["y"])]
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits), {"x": x}, int_tol=1,
                atol=0.05 + 1e-6, rtol=0)


def qdq_chain(xdtype=U8, fp32_tap=False):
    """A QDQ network whose int8 activations chain from layer to layer: Conv -> Relu
    -> Q/DQ -> MaxPool -> Q/DQ (the same grid) -> two 1x1 Convs (one with a Clip)
    -> Q/DQ -> Concat -> Q/DQ -> Flatten -> Q/DQ -> Gemm -> Q -> DQ. dlc-fold-qdq
    moves every QuantizeLinear into the integer kernel before it (requantize,
    then the Relu/Clip/MaxPool/Concat/Flatten on int8). With `fp32_tap` the Relu's
    float output is also a model output, so that layer must not chain."""
    r = rng(8)
    lo, hi = (0, 255) if xdtype == U8 else (-128, 127)
    x = r.uniform(-1, 1, size=(1, 4, 8, 8)).astype(F32)
    inits, nodes = {}, []

    def grid(name, scale, zp):
        inits[f"{name}_s"] = np.array(scale, F32)
        inits[f"{name}_z"] = np.array(zp, xdtype)

    def qdq(src, name, out):
        nodes.append(helper.make_node("QuantizeLinear", [src, f"{name}_s", f"{name}_z"], [out + "_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [out + "_q", f"{name}_s", f"{name}_z"], [out]))

    def weight(name, shape, xs, axis=0):
        cout = shape[axis]
        inits[name] = r.integers(-127, 128, size=shape).astype(I8)
        inits[name + "_s"] = r.uniform(0.002, 0.01, size=cout).astype(F32)
        inits[name + "_z"] = np.zeros(cout, I8)
        nodes.append(helper.make_node("DequantizeLinear", [name, name + "_s", name + "_z"],
                                      [name + "_d"], axis=axis))
        inits[name + "_b"] = r.integers(-300, 300, size=cout).astype(I32)
        inits[name + "_bs"] = (xs * inits[name + "_s"]).astype(F32)
        inits[name + "_bz"] = np.zeros(cout, I32)
        nodes.append(helper.make_node("DequantizeLinear", [name + "_b", name + "_bs", name + "_bz"],
                                      [name + "_bd"], axis=0))

    mid = (lo + hi + 1) // 2
    grid("x", 2 / 255, mid)
    grid("a", 0.02, lo + 10)  # the Relu clamps at the zero point lo + 10
    grid("b", 0.04, mid - 20)  # Clip bounds -0.8, 1.1: q = zp - 20, zp + 28 (a tie)
    grid("y", 0.12, mid - 25)
    qdq("x", "x", "xd")
    weight("w1", (6, 4, 3, 3), 2 / 255)
    nodes.append(helper.make_node("Conv", ["xd", "w1_d", "w1_bd"], ["c1"], pads=[1, 1, 1, 1]))
    nodes.append(helper.make_node("Relu", ["c1"], ["r1"]))
    qdq("r1", "a", "r1d")
    nodes.append(helper.make_node("MaxPool", ["r1d"], ["p"], kernel_shape=[3, 3], strides=[2, 2],
                                  pads=[1, 1, 1, 1]))
    qdq("p", "a", "pd")
    weight("w2", (4, 6, 1, 1), 0.02)
    weight("w3", (4, 6, 1, 1), 0.02)
    nodes.append(helper.make_node("Conv", ["pd", "w2_d", "w2_bd"], ["c2"]))
    nodes.append(helper.make_node("Clip", ["c2", "cmin", "cmax"], ["c2c"]))
    inits.update({"cmin": np.array(-0.8, F32), "cmax": np.array(1.1, F32)})
    qdq("c2c", "b", "c2d")
    nodes.append(helper.make_node("Conv", ["pd", "w3_d", "w3_bd"], ["c3"]))
    qdq("c3", "b", "c3d")
    nodes.append(helper.make_node("Concat", ["c2d", "c3d"], ["cat"], axis=1))
    qdq("cat", "b", "catd")
    nodes.append(helper.make_node("Flatten", ["catd"], ["flat"]))
    qdq("flat", "b", "flatd")
    weight("w4", (10, 128), 0.04)
    nodes.append(helper.make_node("Gemm", ["flatd", "w4_d", "w4_bd"], ["g"], transB=1))
    qdq("g", "y", "y")
    outputs = ["y_q", "y", "r1d_q", "catd_q"] + (["r1"] if fp32_tap else [])
    return Case(harness.make_model(nodes, {"x": x}, outputs, inits), {"x": x}, int_tol=1,
                atol=0.12 + 1e-6, rtol=0)


def qdq_attention():
    """Float attention whose result feeds an int8 MatMul (an int8 model's
    attention kept in float, as BERT's is in the CUDA form): softmax(Q K^T /
    4) V over [1, 2, 8, 16] -> Transpose to [1, 8, 2, 16] -> Reshape [1, 8,
    32] -> Q/DQ (i8) -> MatMul with an int8 weight -> Q/DQ. dlc-fuse-attention
    folds the first QuantizeLinear into the attention, which then stores i8
    in the transposed layout."""
    r = rng(9)
    feeds = {n: r.standard_normal((1, 2, 8, 16)).astype(F32) for n in ("q", "k", "v")}
    inits = {"shape": np.array([1, 8, 32], np.int64), "c": np.array(4.0, F32),
             "as": np.array(0.015, F32), "az": np.array(-3, I8),
             "w": r.integers(-127, 128, size=(32, 6)).astype(I8),
             "ws": r.uniform(0.002, 0.01, size=6).astype(F32), "wz": np.zeros(6, I8),
             "ys": np.array(0.01, F32), "yz": np.array(2, I8)}
    nodes = [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Div", ["s", "c"], ["sd"]),
        helper.make_node("Softmax", ["sd"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o"]),
        helper.make_node("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ot", "shape"], ["a"]),
        helper.make_node("QuantizeLinear", ["a", "as", "az"], ["a_q"]),
        helper.make_node("DequantizeLinear", ["a_q", "as", "az"], ["ad"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=1),
        helper.make_node("MatMul", ["ad", "wd"], ["m"]),
        helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "ys", "yz"], ["y"]),
    ]
    # A softmax in another summation order may move an attention output
    # across a rounding boundary: one step of either grid.
    return Case(harness.make_model(nodes, feeds, ["a_q", "y"], inits), feeds, int_tol=1,
                atol=0.01 + 1e-6, rtol=0)


def float_weights(r, *shape, scale=None):
    """He-scaled f32 weights (or `scale` x standard normal)."""
    fan = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    return (r.standard_normal(shape) * (scale or 1 / np.sqrt(fan))).astype(F32)


def float_cnn():
    """A small fp32 CNN for ONNX Runtime's quantizers: convolutions (one
    depthwise), a residual Add, MaxPool, Relu and Clip (Relu6), the global
    pool, Flatten and Gemm."""
    r = rng(20)
    x = r.standard_normal((2, 3, 16, 16)).astype(F32)
    w = lambda *s, **k: float_weights(r, *s, **k)  # noqa: E731
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c2", "r1"], ["a2"]),
             helper.make_node("Relu", ["a2"], ["r2"]),
             helper.make_node("MaxPool", ["r2"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p", "w3", "b3"], ["c3"], group=16, pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["c3", "lo", "hi"], ["r3"]),
             helper.make_node("GlobalAveragePool", ["r3"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "w4", "b4"], ["y"], transB=1)]
    inits = {"w1": w(16, 3, 3, 3), "b1": w(16, scale=0.1), "w2": w(16, 16, 3, 3),
             "b2": w(16, scale=0.1), "w3": w(16, 1, 3, 3), "b3": w(16, scale=0.1),
             "lo": np.array(0, F32), "hi": np.array(6, F32), "w4": w(10, 16),
             "b4": w(10, scale=0.1)}
    return harness.make_model(nodes, {"x": x}, ["y"], inits), x


def float_mixed():
    """The operators ONNX Runtime's QOperator quantizer turns into its
    com.microsoft ones: LeakyRelu, Sigmoid and Mul (SiLU), Concat, a padded
    AveragePool, Gemm and Softmax."""
    r = rng(21)
    x = r.standard_normal((2, 4, 8, 8)).astype(F32)
    w = lambda *s, **k: float_weights(r, *s, **k)  # noqa: E731
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("LeakyRelu", ["c1"], ["l1"], alpha=0.1),
             helper.make_node("Sigmoid", ["l1"], ["s1"]),
             helper.make_node("Mul", ["l1", "s1"], ["m1"]),
             helper.make_node("Concat", ["l1", "m1"], ["cat"], axis=1),
             helper.make_node("AveragePool", ["cat"], ["ap"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Conv", ["ap", "w2", "b2"], ["c2"]),
             helper.make_node("GlobalAveragePool", ["c2"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], transB=1),
             helper.make_node("Softmax", ["logits"], ["y"], axis=-1)]
    inits = {"w1": w(8, 4, 3, 3), "b1": w(8, scale=0.1), "w2": w(8, 16, 1, 1),
             "b2": w(8, scale=0.1), "w3": w(12, 8, scale=1.0), "b3": w(12, scale=0.1)}
    return harness.make_model(nodes, {"x": x}, ["y"], inits), x


def float_mlp():
    """MatMul + Add + Relu + MatMul + Add over a [batch, seq, features] input."""
    r = rng(22)
    x = r.standard_normal((4, 8, 32)).astype(F32)
    w = lambda *s, **k: float_weights(r, *s, **k)  # noqa: E731
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["m1"]),
             helper.make_node("Add", ["m1", "b1"], ["a1"]),
             helper.make_node("Relu", ["a1"], ["r1"]),
             helper.make_node("MatMul", ["r1", "w2"], ["m2"]),
             helper.make_node("Add", ["m2", "b2"], ["y"])]
    inits = {"w1": w(32, 64), "b1": w(64, scale=0.1), "w2": w(64, 16), "b2": w(16, scale=0.1)}
    return harness.make_model(nodes, {"x": x}, ["y"], inits), x


def float_upsample():
    """What a segmentation head does with quantized tensors: a reflect Pad,
    nearest and linear Resize (QOperator resizes the int8 tensor itself),
    Where, Transpose and a mean."""
    r = rng(23)
    x = r.standard_normal((2, 4, 8, 8)).astype(F32)
    w = lambda *s, **k: float_weights(r, *s, **k)  # noqa: E731
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Pad", ["c1", "pads"], ["p1"], mode="reflect"),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"]),
             helper.make_node("Resize", ["c2", "", "scales"], ["u"], mode="nearest"),
             helper.make_node("Resize", ["c2", "", "scales"], ["ul"], mode="linear"),
             helper.make_node("Add", ["u", "ul"], ["s"]),
             helper.make_node("Neg", ["s"], ["ns"]),
             helper.make_node("Greater", ["s", "zero"], ["cond"]),
             helper.make_node("Where", ["cond", "s", "ns"], ["wh"]),
             helper.make_node("Transpose", ["wh"], ["t"], perm=[0, 2, 3, 1]),
             helper.make_node("ReduceMean", ["t"], ["y"], axes=[1, 2], keepdims=0)]
    inits = {"w1": w(8, 4, 3, 3), "b1": w(8, scale=0.1), "w2": w(8, 8, 3, 3),
             "b2": w(8, scale=0.1), "pads": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64),
             "scales": np.array([1, 1, 2, 2], F32), "zero": np.array(0, F32)}
    return harness.make_model(nodes, {"x": x}, ["y"], inits), x


def resize_bytes(xdtype, mode, ct):
    """Resize of an int8/uint8 tensor (what QOperator models do): f32
    interpolation truncated toward zero, as ONNX Runtime computes it (one
    step off where the float result lands within rounding of an integer:
    truncation is not robust to summation order). Not align_corners: there
    ONNX Runtime 1.31 departs from the spec (and onnx.reference, which dlc
    matches) when a scale is not an integer, by up to 64 of 255."""
    lo, hi = (-128, 127) if xdtype == I8 else (0, 255)
    x = rng(45).integers(lo, hi, size=(1, 3, 5, 7), endpoint=True).astype(xdtype)
    inits = {"scales": np.array([1, 1, 2.5, 0.6], F32)}
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode=mode,
                              coordinate_transformation_mode=ct)]
    return Case(harness.make_model(nodes, {"x": x}, ["y"], inits), {"x": x},
                int_tol=1 if mode == "linear" else 0)


def ort_quantized(make_float, mode, seed, **options):
    """`make_float`'s fp32 model through ONNX Runtime's own quantizer:
    `quantize_static` (calibrated on 8 random inputs) or `quantize_dynamic`
    with `options` (quant_format, per_channel, activation_type, ...). The
    reference is ONNX Runtime running the quantized model; dlc must match it
    within one step of the output's quantization (`atol`)."""
    import logging
    import tempfile

    from onnxruntime import quantization as ortq

    logging.getLogger().setLevel(logging.ERROR)
    model, x = make_float()
    r = rng(seed)
    with tempfile.TemporaryDirectory() as d:
        src, dst = Path(d) / "fp32.onnx", Path(d) / "q.onnx"
        onnx.save(model, src)
        if mode == "static":
            class Reader(ortq.CalibrationDataReader):
                def __init__(self):
                    self.feeds = iter([{"x": r.standard_normal(x.shape).astype(F32)}
                                       for _ in range(8)])

                def get_next(self):
                    return next(self.feeds, None)

            ortq.quantize_static(str(src), str(dst), Reader(), **options)
        else:
            ortq.quantize_dynamic(str(src), str(dst), **options)
        quantized = onnx.load(str(dst))
    return quantized, x


def ort_static(make_float, seed, atol, **options):
    model, x = ort_quantized(make_float, "static", seed, **options)
    return Case(model, {"x": x}, rtol=0, atol=atol)


def ort_dynamic(make_float, seed, **options):
    model, x = ort_quantized(make_float, "dynamic", seed, **options)
    return Case(model, {"x": x}, rtol=1e-5, atol=1e-5)


def ort_saved_optimized(case):
    """`case` with its model as ONNX Runtime saves it optimized: a
    dynamically quantized MatMul becomes com.microsoft DynamicQuantizeMatMul."""
    return Case(harness.ort_saved_optimized(case.model, {"DynamicQuantizeMatMul"}), case.feeds,
                rtol=case.rtol, atol=case.atol)


def ort_cases():
    """ONNX Runtime's quantize_static (QDQ and QOperator formats, uint8 and
    int8 activations, per tensor and per channel) and quantize_dynamic on
    the fp32 models above."""
    from onnxruntime.quantization import QuantFormat, QuantType

    qdq, qop = QuantFormat.QDQ, QuantFormat.QOperator
    s8 = dict(activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    symmetric = dict(extra_options={"ActivationSymmetric": True})
    models = {"cnn": float_cnn, "mixed": float_mixed, "mlp": float_mlp,
              "upsample": float_upsample}
    cases = {}
    for name, make in models.items():
        # One output step: float_cnn's logits span ~2.3 (step ~0.01), the
        # MLP's ~7.4 (~0.03), the softmax 1 (1/255).
        # the upsampling model's mean (~1.5, step ~0.01).
        atol = {"cnn": 0.01, "mixed": 1 / 255, "mlp": 0.03, "upsample": 0.01}[name] + 1e-6
        cases[f"ort-static-qdq-u8-{name}"] = ort_static(make, 30, atol, quant_format=qdq)
        cases[f"ort-static-qdq-u8-per-channel-{name}"] = ort_static(
            make, 31, atol, quant_format=qdq, per_channel=True)
        cases[f"ort-static-qdq-s8-symmetric-{name}"] = ort_static(
            make, 32, atol, quant_format=qdq, per_channel=True, **s8, **symmetric)
        if name == "cnn":
            # Q/DQ in ONNX Runtime's contrib domain.
            cases["ort-static-qdq-contrib-ops-cnn"] = ort_static(
                make, 37, atol, quant_format=qdq, extra_options={"UseQDQContribOps": True})
        cases[f"ort-static-qoperator-u8-{name}"] = ort_static(make, 33, atol, quant_format=qop)
        cases[f"ort-static-qoperator-s8-per-channel-{name}"] = ort_static(
            make, 34, atol, quant_format=qop, per_channel=True, **s8)
        cases[f"ort-dynamic-s8-{name}"] = ort_dynamic(make, 35, weight_type=QuantType.QInt8)
        if name in ("cnn", "mlp"):
            cases[f"ort-dynamic-s8-saved-optimized-{name}"] = ort_saved_optimized(
                cases[f"ort-dynamic-s8-{name}"])
        cases[f"ort-dynamic-u8-per-channel-{name}"] = ort_dynamic(
            make, 36, weight_type=QuantType.QUInt8, per_channel=True)
    # 16-bit activations (the quantizer moves the model to opset 21): with
    # int8 weights per channel (A16W8) and with int16 weights (A16W16). The
    # integer kernels are 8-bit, so dlc runs these layers in float between
    # the 16-bit conversions, as ONNX Runtime's CPU provider does; a float
    # sum in another order may round an activation one 16-bit step the
    # other way: up to 3 steps of the output's 16-bit grid (~2e-5 for the
    # CNN's logits, ~1e-4 for the MLP's; measured: 0 and 1 step).
    a16 = {"cnn": (float_cnn, 6e-5), "mlp": (float_mlp, 3e-4)}
    for name, (make, atol) in a16.items():
        cases[f"ort-static-qdq-a16w8-u16-per-channel-{name}"] = ort_static(
            make, 38, atol, quant_format=qdq, per_channel=True,
            activation_type=QuantType.QUInt16, weight_type=QuantType.QInt8)
        cases[f"ort-static-qdq-a16w16-s16-{name}"] = ort_static(
            make, 39, atol, quant_format=qdq, activation_type=QuantType.QInt16,
            weight_type=QuantType.QInt16)
    # The same Q/DQ in ONNX Runtime's contrib domain.
    cases["ort-static-qdq-contrib-ops-a16w8-cnn"] = ort_static(
        float_cnn, 40, a16["cnn"][1], quant_format=qdq, activation_type=QuantType.QInt16,
        weight_type=QuantType.QInt8, extra_options={"UseQDQContribOps": True})
    # 4-bit weights (ONNX Runtime writes their Q/DQ in its contrib domain
    # below opset 21): imported widened to int8, they fold into the int8
    # kernels beside 8-bit activations, and stay float beside 16-bit ones.
    cases["ort-static-qdq-a8w4-per-channel-cnn"] = ort_static(
        float_cnn, 41, 0.01 + 1e-6, quant_format=qdq, per_channel=True,
        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt4)
    cases["ort-static-qdq-a16w4-per-channel-mlp"] = ort_static(
        float_mlp, 42, a16["mlp"][1], quant_format=qdq, per_channel=True,
        activation_type=QuantType.QUInt16, weight_type=QuantType.QInt4)
    return cases


def ms_node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, domain="com.microsoft", **attrs)


def qgemm(alpha, trans_a, float_out):
    """QGemm with alpha, transA, a per-column b_scale, an int32 C and an f32
    (no y_scale) or uint8 output."""
    r = rng(40)
    a = r.integers(0, 255, size=(16, 5) if trans_a else (5, 16)).astype(U8)
    inits = {"as": np.array(0.02, F32), "az": np.array(120, U8),
             "b": r.integers(-127, 127, size=(7, 16)).astype(I8),
             "bs": r.uniform(0.005, 0.02, size=7).astype(F32), "bz": np.zeros(7, I8),
             "c": r.integers(-3000, 3000, size=7).astype(I32),
             "ys": np.array(0.05, F32), "yz": np.array(100, U8)}
    ins = ["a", "as", "az", "b", "bs", "bz", "c"] + ([] if float_out else ["ys", "yz"])
    node = ms_node("QGemm", ins, ["y"], alpha=alpha, transA=trans_a, transB=1)
    out = {"y": (F32 if float_out else U8, [5, 7])}
    return Case(harness.make_microsoft_model([node], {"a": a}, out, inits), {"a": a},
                int_tol=1, rtol=1e-5, atol=1e-4)


def qlinear_pool(op, channels_last, xdtype=U8):
    """QLinearGlobalAveragePool / QLinearAveragePool (3x3, padded, stride 2)
    on NCHW or, with channels_last, NHWC."""
    r = rng(41)
    shape = (2, 9, 9, 6) if channels_last else (2, 6, 9, 9)
    lo, hi = (0, 255) if xdtype == U8 else (-128, 127)
    x = r.integers(lo, hi, size=shape).astype(xdtype)
    # Scales with no simple ratio: averages of integers land on a rounding
    # tie only by accident, where summation order would decide it.
    inits = {"xs": np.array(0.0317, F32), "xz": np.array(7, xdtype),
             "ys": np.array(0.0213, F32), "yz": np.array(-5 if xdtype == I8 else 9, xdtype)}
    attrs = {"channels_last": channels_last}
    if op == "QLinearAveragePool":
        attrs.update(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
        spatial = [5, 5]
    else:
        spatial = [1, 1]
    out = [2] + spatial + [6] if channels_last else [2, 6] + spatial
    node = ms_node(op, ["x", "xs", "xz", "ys", "yz"], ["y"], **attrs)
    return Case(harness.make_microsoft_model([node], {"x": x}, {"y": (xdtype, out)}, inits), {"x": x},
                int_tol=1)


def qlinear_softmax(opset):
    """QLinearSoftmax on a 3-D input: axis 1 flattens the trailing dims
    before opset 13 (the `opset` attribute) and is one axis from 13."""
    r = rng(42)
    x = r.integers(0, 255, size=(2, 3, 4)).astype(U8)
    inits = {"xs": np.array(0.05, F32), "xz": np.array(128, U8),
             "ys": np.array(1 / 256, F32), "yz": np.array(0, U8)}
    node = ms_node("QLinearSoftmax", ["x", "xs", "xz", "ys", "yz"], ["y"], axis=1,
                   opset=opset)
    return Case(harness.make_microsoft_model([node], {"x": x}, {"y": (U8, [2, 3, 4])}, inits), {"x": x},
                int_tol=1)


def qlinear_concat():
    """QLinearConcat of int8 inputs with different scales and zero points."""
    r = rng(43)
    a = r.integers(-128, 127, size=(2, 3, 4)).astype(I8)
    b = r.integers(-128, 127, size=(2, 5, 4)).astype(I8)
    inits = {"ys": np.array(0.04, F32), "yz": np.array(3, I8), "as": np.array(0.02, F32),
             "az": np.array(-4, I8), "bs": np.array(0.07, F32), "bz": np.array(10, I8)}
    node = ms_node("QLinearConcat", ["ys", "yz", "a", "as", "az", "b", "bs", "bz"], ["y"],
                   axis=-2)
    return Case(harness.make_microsoft_model([node], {"a": a, "b": b}, {"y": (I8, [2, 8, 4])}, inits),
                {"a": a, "b": b}, int_tol=1)


def qlinear_elementwise(op, xdtype=I8, **attrs):
    """QLinearAdd / QLinearMul with broadcasting, QLinearSigmoid,
    QLinearLeakyRelu: every value of the input type."""
    lo, hi = (-128, 127) if xdtype == I8 else (0, 255)
    x = np.arange(lo, hi + 1).reshape(4, 64).astype(xdtype)
    inits = {"xs": np.array(0.05, F32), "xz": np.array(3, xdtype),
             "ys": np.array(0.03, F32), "yz": np.array(-2 if xdtype == I8 else 130, xdtype)}
    if op in ("QLinearAdd", "QLinearMul"):
        inits.update(b=rng(44).integers(lo, hi, size=(64,)).astype(xdtype),
                     bs=np.array(0.04, F32), bz=np.array(-1 if xdtype == I8 else 5, xdtype))
        ins = ["x", "xs", "xz", "b", "bs", "bz", "ys", "yz"]
    else:
        ins = ["x", "xs", "xz", "ys", "yz"]
    node = ms_node(op, ins, ["y"], **attrs)
    return Case(harness.make_microsoft_model([node], {"x": x}, {"y": (xdtype, [4, 64])}, inits), {"x": x},
                int_tol=1)


def qlinear_where():
    """QLinearWhere: a broadcast condition choosing between a uint8 X and Y
    of other scales and zero points."""
    r = rng(46)
    c = r.integers(0, 2, size=(3, 1)).astype(bool)
    x = r.integers(0, 255, size=(3, 5), endpoint=True).astype(U8)
    inits = {"y": r.integers(0, 255, size=(5,), endpoint=True).astype(U8),
             "xs": np.array(0.0371, F32), "xz": np.array(100, U8), "ys": np.array(0.0523, F32),
             "yz": np.array(30, U8), "zs": np.array(0.0449, F32), "zz": np.array(77, U8)}
    node = ms_node("QLinearWhere", ["c", "x", "xs", "xz", "y", "ys", "yz", "zs", "zz"], ["z"])
    return Case(harness.make_microsoft_model([node], {"c": c, "x": x}, {"z": (U8, [3, 5])}, inits),
                {"c": c, "x": x}, int_tol=1)


def ort_dynamic_attention(per_channel):
    """ONNX Runtime's quantize_dynamic on its fused Attention (a [2, 6, 16]
    input, 4 heads, a padding mask): DynamicQuantizeLinear and QAttention."""
    import logging
    import tempfile

    from onnxruntime import quantization as ortq

    logging.getLogger().setLevel(logging.ERROR)
    r = rng(47)
    x = r.standard_normal((2, 6, 16)).astype(F32)
    mask = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], np.int32)
    inits = {"w": float_weights(r, 16, 48), "b": float_weights(r, 48, scale=0.1)}
    node = ms_node("Attention", ["x", "w", "b", "mask"], ["y"], num_heads=4)
    model = harness.make_microsoft_model([node], {"x": x, "mask": mask}, {"y": (F32, [2, 6, 16])}, inits)
    with tempfile.TemporaryDirectory() as d:
        src, dst = Path(d) / "fp32.onnx", Path(d) / "q.onnx"
        onnx.save(model, src)
        ortq.quantize_dynamic(str(src), str(dst), weight_type=ortq.QuantType.QInt8,
                              per_channel=per_channel)
        quantized = onnx.load(str(dst))
    if not any(n.op_type == "QAttention" for n in quantized.graph.node):
        raise RuntimeError("quantize_dynamic wrote no QAttention")
    return Case(quantized, {"x": x, "mask": mask}, rtol=1e-5, atol=1e-5)


def matmul_integer_to_float():
    """MatMulIntegerToFloat: uint8 A, int8 B with per-column scales and zero
    points, a bias."""
    r = rng(48)
    a = r.integers(0, 255, size=(3, 2, 16), endpoint=True).astype(U8)
    inits = {"b": r.integers(-128, 127, size=(16, 5), endpoint=True).astype(I8),
             "as": np.array(0.021, F32), "bs": r.uniform(0.005, 0.02, size=5).astype(F32),
             "az": np.array(117, U8), "bz": r.integers(-3, 3, size=5).astype(I8),
             "bias": r.uniform(-1, 1, size=5).astype(F32)}
    node = ms_node("MatMulIntegerToFloat", ["a", "b", "as", "bs", "az", "bz", "bias"], ["y"])
    return Case(harness.make_microsoft_model([node], {"a": a}, {"y": (F32, [3, 2, 5])}, inits), {"a": a},
                rtol=1e-5, atol=1e-5)


def pack_bits(values, bits):
    """`values` (uint, < 2**bits) packed along the last axis, low bits first,
    as MatMulNBits stores them."""
    per = 8 // bits
    v = values.reshape(*values.shape[:-1], -1, per).astype(np.uint16)
    out = np.zeros(v.shape[:-1], np.uint16)
    for i in range(per):
        out |= v[..., i] << (i * bits)
    return out.astype(U8)


def matmul_nbits(bits, block, k, zero_points, bias=False):
    """MatMulNBits: A [2, 3, K] times `bits`-bit weights [N = 6, K] in blocks
    of `block` (K need not divide: the last block's padding is ignored), zero
    points packed ('packed'), f32 ('float') or absent (2**(bits-1))."""
    r = rng(49 + bits + block + k)
    n, blocks = 6, -(-k // block)
    q = r.integers(0, 2 ** bits, size=(n, blocks * block)).astype(U8)
    a = r.standard_normal((2, 3, k)).astype(F32)
    inits = {"b": pack_bits(q, bits).reshape(n, blocks, block * bits // 8),
             "scales": r.uniform(0.01, 0.05, size=n * blocks).astype(F32)}
    inputs = ["a", "b", "scales"]
    if zero_points == "packed":
        zp = r.integers(0, 2 ** bits, size=(n, -(-blocks * bits // 8) * (8 // bits))).astype(U8)
        inits["zp"] = pack_bits(zp, bits).reshape(-1)
        inputs.append("zp")
    elif zero_points == "float":
        inits["zp"] = r.uniform(0, 2 ** bits - 1, size=n * blocks).astype(F32)
        inputs.append("zp")
    if bias:
        inits["bias"] = r.uniform(-1, 1, size=n).astype(F32)
        inputs += [""] * (5 - len(inputs)) + ["bias"]
    node = ms_node("MatMulNBits", inputs, ["y"], K=k, N=n, bits=bits, block_size=block)
    return Case(harness.make_microsoft_model([node], {"a": a}, {"y": (F32, [2, 3, n])}, inits), {"a": a},
                rtol=1e-4, atol=1e-4)


def microsoft_cases():
    return {
        "ms-qgemm-alpha-trans-a-f32-out": qgemm(0.5, 1, True),
        "ms-qgemm-u8-out": qgemm(1.0, 0, False),
        "ms-qgemm-alpha-u8-out": qgemm(2.0, 0, False),
        "ms-qlinear-global-average-pool": qlinear_pool("QLinearGlobalAveragePool", 0),
        "ms-qlinear-global-average-pool-nhwc-i8": qlinear_pool("QLinearGlobalAveragePool", 1, I8),
        "ms-qlinear-average-pool": qlinear_pool("QLinearAveragePool", 0),
        "ms-qlinear-average-pool-nhwc": qlinear_pool("QLinearAveragePool", 1),
        "ms-qlinear-softmax-opset12": qlinear_softmax(12),
        "ms-qlinear-softmax-opset13": qlinear_softmax(13),
        "ms-qlinear-concat-i8": qlinear_concat(),
        "ms-qlinear-add-i8": qlinear_elementwise("QLinearAdd"),
        "ms-qlinear-mul-u8": qlinear_elementwise("QLinearMul", U8),
        "ms-qlinear-sigmoid-i8": qlinear_elementwise("QLinearSigmoid"),
        "ms-qlinear-leaky-relu-u8": qlinear_elementwise("QLinearLeakyRelu", U8, alpha=0.2),
        "ms-qlinear-where-u8": qlinear_where(),
        "ms-matmul-integer-to-float": matmul_integer_to_float(),
        "ms-matmul-4bits": matmul_nbits(4, 32, 64, None),
        "ms-matmul-4bits-zero-points-bias-k-tail": matmul_nbits(4, 16, 40, "packed", bias=True),
        "ms-matmul-4bits-float-zero-points": matmul_nbits(4, 16, 48, "float"),
        "ms-matmul-8bits-zero-points": matmul_nbits(8, 16, 48, "packed"),
        "ms-matmul-2bits": matmul_nbits(2, 32, 64, "packed"),
        "ms-qattention-dynamic": ort_dynamic_attention(False),
        "ms-qattention-dynamic-per-channel": ort_dynamic_attention(True),
    }


def build_table():
    cases = {
        "qdq-u8-per-tensor-opset10": q_dq(10, U8, 128),
        "qdq-i8-per-tensor-opset13": q_dq(13, I8, -3),
        "qdq-i8-per-channel-opset13": q_dq(13, I8, 5, axis=1, per_channel=True),
        "qdq-u8-per-channel-opset19": q_dq(19, U8, 20, axis=-2, per_channel=True),
        "qdq-i8-f16-scale-opset21": q_dq_f16(),
        "qdq-i8-f16-scale-per-channel-opset21": q_dq_f16(per_channel=True),
        "quantize-near-ties": quantize_near_ties(),
        "quantize-nan-u8": quantize_nan(U8, 128),
        "quantize-nan-i8": quantize_nan(I8, 3),
        "dq-u8-input": dq_input(U8, 200),
        "dq-i8-input": dq_input(I8, -7),
        "dq-i32-input": dq_input(I32, 13),
        # Opset 21's 16-bit grids (ONNX Runtime's QInt16/QUInt16).
        "qdq-i16-per-tensor-opset21": q_dq(21, I16, -300, step=1 / 250),
        "qdq-u16-per-channel-opset21": q_dq(21, U16, 32768, axis=1, per_channel=True,
                                            step=1 / 250),
        "dq-i16-input": dq_input(I16, -1234),
        "dq-u16-input": dq_input(U16, 40000),
        "q-i16-blocked-axis1": blocked("QuantizeLinear", I16, 1, 3),
        "q-u16-blocked-no-zp": blocked("QuantizeLinear", U16, 0, 4, zp=False),
        "dq-u16-blocked-axis0": blocked("DequantizeLinear", U16, 0, 2),
        "dq-i8-blocked-axis1": blocked("DequantizeLinear", I8, 1, 4),
        "dq-u8-blocked-axis0-no-zp": blocked("DequantizeLinear", U8, 0, 2, zp=False),
        "q-i8-blocked-axis1": blocked("QuantizeLinear", I8, 1, 3),
        "q-u8-blocked-axis-1-short-block": blocked("QuantizeLinear", U8, -1, 4, shape=(2, 3, 10)),
        "q-i8-blocked-no-zp": blocked("QuantizeLinear", I8, 0, 4, zp=False),
        "dq-i8-blocked-weights-matmul": blocked_weights(I8),
        "dq-u8-blocked-weights-matmul-no-zp": blocked_weights(U8, zp=False),
        "dq-int4-blocked-weights-matmul": four_bit_weights(True, raw=False),
        "dq-uint4-blocked-weights-matmul-raw": four_bit_weights(False, raw=True),
        "dq-int4-per-channel-weights-matmul-raw": four_bit_weights(True, raw=True, block=0, n=21),
        "qlinearconv-u8-padded": qlinear_conv([1, 1, 1, 1]),
        "qlinearconv-i8-group": qlinear_conv([0, 0, 0, 0], group=2, xdtype=I8),
        "qlinearconv-u8-group-padded": qlinear_conv([1, 1, 1, 1], group=2),
        "qlinearconv-i8-group-asym-pads": qlinear_conv([1, 0, 0, 1], group=2, xdtype=I8),
        "qlinearconv-per-tensor": qlinear_conv([1, 0, 1, 0], per_channel=False),
        "qlinearmatmul-u8": qlinear_matmul(),
        "matmulinteger-u8u8": matmul_integer(U8),
        "matmulinteger-u8i8": matmul_integer(I8),
        # K = 64: with --cpu=native on AVX512-VNNI the row (lanes along N,
        # B the signed side) takes vpdpbusd.
        "matmulinteger-u8i8-k64": matmul_integer(I8, m=8, k=64, n=44, bz=0),
        # A weight whose K is a multiple of 4, its zero point 0: held as
        # byte quadruples [K / 4, 4 N] on AVX512-VNNI
        # (dlc-convert-to-linalg quad-matmul-weights), a tile's words one
        # load. s8 x s8 reads the lhs as u8 (x xor 0x80); u8 x u8 keeps the
        # plain form. 44 columns: tiles of 16, 16, 8 and 4 lanes; 20 rows:
        # a row block of 8 and a rest. Past L1 (256 x 160 bytes) a row of
        # quadruples is padded to an odd number of 64-byte lines.
        "matmulinteger-i8i8-quads": matmul_integer(I8, m=20, k=96, n=44, bz=0, adtype=I8,
                                                   az=-5),
        "matmulinteger-u8i8-quads-padded": matmul_integer(I8, m=9, k=256, n=160, bz=0,
                                                          batch=(2,)),
        "matmulinteger-i8u8-quads": matmul_integer(U8, m=8, k=32, n=48, bz=0, adtype=I8, az=3),
        "matmulinteger-u8u8-k32": matmul_integer(U8, m=8, k=32, n=48, bz=0),
        "matmulinteger-i8i8-k6": matmul_integer(I8, m=8, k=6, n=48, bz=0, adtype=I8, az=-2),
        "qlinearconv-vnni-1x1-u8": vnni_conv(U8, 32, 12, (5, 20), 1, [0, 0, 0, 0]),
        "qlinearconv-vnni-3x3-i8-padded": vnni_conv(I8, 8, 8, (9, 13), 3, [1, 1, 1, 1]),
        "qlinearconv-vnni-3x3-u8-stride2": vnni_conv(U8, 16, 8, (12, 12), 3, [1, 1, 1, 1], (2, 2)),
        "qlinearconv-vnni-1x1-i8-stride2": vnni_conv(I8, 64, 16, (14, 14), 1, [0, 0, 0, 0], (2, 2)),
        # Rows shorter than a tile (dlc-convert-to-linalg conv-plane-rows):
        # the padded input's plane (61 -> 64 positions, the copy a row
        # longer; 14x14: 222 -> 224), the phases' plane (55 -> 64), phases
        # in rows of the output's width (a stem), a subsampled 1x1 copy.
        "qlinearconv-vnni-depthwise-u8": vnni_conv(U8, 16, 16, (9, 21), 3, [1, 1, 1, 1],
                                                   group=16),
        "qlinearconv-vnni-depthwise-i8-stride2": vnni_conv(I8, 16, 16, (23, 23), 3,
                                                           [1, 1, 1, 1], (2, 2), group=16),
        "qlinearconv-vnni-depthwise-5x5-u8-asym-pads": vnni_conv(U8, 16, 16, (10, 18), 5,
                                                                 [2, 1, 1, 2], group=16),
        "qlinearconv-vnni-group4-i8": vnni_conv(I8, 16, 8, (8, 19), 3, [1, 1, 1, 1], group=4),
        "qlinearconv-plane-depthwise-i8": vnni_conv(I8, 64, 64, (7, 7), 3, [1, 1, 1, 1],
                                                    group=64),
        "qlinearconv-plane-3x3-i8": vnni_conv(I8, 8, 64, (7, 7), 3, [1, 1, 1, 1]),
        "qlinearconv-plane-3x3-u8-14x14": vnni_conv(U8, 4, 64, (14, 14), 3, [1, 1, 1, 1]),
        "qlinearconv-phases-3x3-i8-stride2": vnni_conv(I8, 8, 64, (14, 14), 3, [1, 1, 1, 1], (2, 2)),
        "qlinearconv-phase-rows-7x7-u8-stride2": vnni_conv(U8, 3, 64, (40, 40), 7, [3, 3, 3, 3],
                                                           (2, 2)),
        "qlinearconv-subsampled-1x1-u8-stride2": vnni_conv(U8, 16, 64, (14, 14), 1, [0, 0, 0, 0],
                                                           (2, 2)),
        "convinteger-u8-plane": conv_integer_rows((1, 1), (7, 7)),
        "convinteger-u8-phases": conv_integer_rows((2, 2), (14, 14)),
        "convinteger-u8": conv_integer(),
        "convinteger-u8-depthwise-padded": conv_integer_depthwise(False),
        "convinteger-u8-depthwise-weight-input": conv_integer_depthwise(True),
        "dynamicquantizelinear": dynamic_quantize(),
        "qdq-conv": qdq_conv("Conv"),
        "qdq-conv-relu-zp0": qdq_conv("Conv", relu=True),
        "qdq-gemm": qdq_conv("Gemm"),
        "qdq-matmul": qdq_conv("MatMul"),
        "qdq-gemm-matvec": qdq_conv("Gemm", matvec=(256, 1000)),
        "qdq-matmul-matvec": qdq_conv("MatMul", matvec=(128, 600)),
        "qdq-matmul-matvec-odd-k": qdq_conv("MatMul", matvec=(130, 520)),
        "qdq-chain-u8": qdq_chain(U8),
        "qdq-chain-i8": qdq_chain(I8),
        "qdq-chain-fp32-tap": qdq_chain(U8, fp32_tap=True),
        "qdq-attention-i8": qdq_attention(),
        "resize-i8-linear": resize_bytes(I8, "linear", "half_pixel"),
        "resize-u8-linear-asymmetric": resize_bytes(U8, "linear", "asymmetric"),
        "resize-i8-nearest": resize_bytes(I8, "nearest", "asymmetric"),
    }
    cases.update(ort_cases())
    cases.update(microsoft_cases())
    return cases


def check_case(case, d, dlc, target, device, extra=()):
    model_path = d / "model.onnx"
    onnx.save(case.model, model_path)
    ref = harness.run_ort(model_path, case.feeds, optimize=case.ort_optimize)
    dlc.compile(model_path, d / "model.so", target=target, extra=list(extra))
    got = dlc.run(d / "model.so", harness.save_inputs(case.feeds, d), d / "out", list(ref),
                  device=device)
    for name, r in ref.items():
        g = got[name]
        if r.dtype.kind in "iu" and case.int_tol:
            if g.dtype != r.dtype or g.shape != r.shape:
                raise harness.Failure(f"output '{name}': {g.dtype}{g.shape}, expected {r.dtype}{r.shape}")
            diff = np.abs(g.astype(np.int64) - r.astype(np.int64))
            if diff.max() > case.int_tol:
                raise harness.Failure(f"output '{name}': max |diff| {diff.max()} > {case.int_tol}")
        else:
            harness.compare(name, g, r, rtol=case.rtol, atol=case.atol, scale_atol=False)


def main():
    p = harness.common_args(__doc__)
    p.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--cuda-kernel-form", action="store_true",
                   help="with --target cpu: compile the CUDA kernel form for the host")
    args = p.parse_args()
    extra = ("--cuda-kernel-form",) if args.cuda_kernel_form and args.target == "cpu" else ()
    harness.require("onnxruntime")
    device = "cuda" if args.target == "cuda" else "cpu"
    if device == "cuda":
        harness.skip_without_gpu()
    cases = build_table()
    dlc = harness.Dlc(args.bin_dir)
    print(f"dlc quantization suite: target {args.target}"
          f"{' (CUDA kernel form)' if extra else ''}, {len(cases)} cases")

    def check(name, d):
        case = cases[name]
        try:
            check_case(case, d, dlc, args.target, device, extra)
        except harness.Failure as e:
            if device == "cuda" and harness.is_no_cuda_error(str(e)):
                raise harness.NoDevice(str(e))
            if case.xfail:
                raise harness.ExpectedFailure(f"{case.xfail} [{harness.first_error(str(e))}]")
            raise
        if case.xfail:
            raise harness.UnexpectedPass(f"marked expected-fail ({case.xfail}) but passed")

    results = harness.run_cases(list(cases), check, args)
    return harness.finish("quant", results)


if __name__ == "__main__":
    sys.exit(main())
