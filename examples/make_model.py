#!/usr/bin/env python3
"""Writes the demo model: a small image classifier (Conv-BatchNorm-Relu,
depthwise Conv, MaxPool, GlobalAveragePool, Gemm, Softmax) with
deterministic random weights, and one input image.

usage: make_model.py OUT_DIR   -> OUT_DIR/classifier.onnx, OUT_DIR/input.npy
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(rng):
    def weight(name, *shape, scale=0.2):
        return numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [
        weight("conv1.w", 16, 3, 3, 3), weight("conv1.b", 16),
        weight("bn.scale", 16), weight("bn.bias", 16), weight("bn.mean", 16),
        numpy_helper.from_array(rng.uniform(0.5, 1.5, 16).astype(np.float32), "bn.var"),
        weight("dw.w", 16, 1, 3, 3),
        weight("fc.w", 10, 16), weight("fc.b", 10),
    ]
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"],
                         ["b1"], name="bn1"),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "dw.w"], ["c2"], name="depthwise", group=16,
                         pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["c2", "", ""], ["r2"], name="relu6"),
        helper.make_node("MaxPool", ["r2"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "classifier",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 32, 32])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="dlc-examples", ir_version=8)
    onnx.checker.check_model(model)
    return model


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    onnx.save(build(rng), os.path.join(out, "classifier.onnx"))
    np.save(os.path.join(out, "input.npy"),
            rng.standard_normal((1, 3, 32, 32)).astype(np.float32))


if __name__ == "__main__":
    main()
