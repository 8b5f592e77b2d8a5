#!/usr/bin/env python3
"""gen_symbolic.py - ONNX models with symbolic input dimensions, as exporters write them
(Debian python3-onnx, onnx.helper; no weights needed: initializers are tiny or absent).

kws_symbolic_batch.onnx: a tf2onnx-style keyword-spotting CNN, NHWC input [unk__batch, 49, 10, 1]
  with Transpose pairs around a Conv, MatMul head: only the batch is symbolic.
audio_frontend.onnx: an audio front-end, input [batch_size, samples]: a framing Conv1d over the
  samples, so the samples dimension must be given (--dim samples=16000).
unknown_ops.onnx: Relu, a custom-domain op, Sigmoid: a third of the layers undefined.

    python3 tests/data/onnx/gen_symbolic.py tests/data/onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def kws():
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["unk__batch", 49, 10, 1])
    y = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["unk__batch", 12])
    w = numpy_helper.from_array(np.zeros((64, 1, 10, 4), np.float32), "conv_w")
    b = numpy_helper.from_array(np.zeros((64,), np.float32), "conv_b")
    fw = numpy_helper.from_array(np.zeros((64 * 25 * 5, 12), np.float32), "fc_w")
    shape = numpy_helper.from_array(np.array([-1, 64 * 25 * 5], np.int64), "flat_shape")
    nodes = [
        helper.make_node("Transpose", ["input"], ["nchw"], perm=[0, 3, 1, 2], name="to_nchw"),
        helper.make_node("Conv", ["nchw", "conv_w", "conv_b"], ["c"], strides=[2, 2],
                         pads=[4, 1, 5, 2], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Transpose", ["r"], ["nhwc"], perm=[0, 2, 3, 1], name="to_nhwc"),
        helper.make_node("Reshape", ["nhwc", "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("MatMul", ["flat", "fc_w"], ["logits"], name="fc"),
    ]
    g = helper.make_graph(nodes, "kws", [x], [y], [w, b, fw, shape])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                             producer_name="tf2onnx")


def frontend():
    x = helper.make_tensor_value_info("audio", TensorProto.FLOAT, ["batch_size", "samples"])
    y = helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch_size", 40, "frames"])
    w = numpy_helper.from_array(np.zeros((40, 1, 400), np.float32), "frame_w")
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    nodes = [
        helper.make_node("Unsqueeze", ["audio", "axes"], ["a3"], name="to_channels"),
        helper.make_node("Conv", ["a3", "frame_w"], ["frames"], strides=[160], name="frames"),
        helper.make_node("Abs", ["frames"], ["mag"], name="magnitude"),
        helper.make_node("Log", ["mag"], ["features"], name="log"),
    ]
    g = helper.make_graph(nodes, "frontend", [x], [y], [w, axes])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def unknown_ops():
    """Three layers, one an op no cost rule knows (a custom domain): a third undefined."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu"),
             helper.make_node("MysteryOp", ["a"], ["b"], domain="com.example", name="mystery"),
             helper.make_node("Sigmoid", ["b"], ["y"], name="sigmoid")]
    g = helper.make_graph(nodes, "unknown", [x], [y],
                          value_info=[helper.make_tensor_value_info("b", TensorProto.FLOAT,
                                                                    [1, 64])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                               helper.make_opsetid("com.example", 1)])


def main(root):
    for name, model in (("kws_symbolic_batch.onnx", kws()), ("audio_frontend.onnx", frontend()),
                        ("unknown_ops.onnx", unknown_ops())):
        if name != "unknown_ops.onnx":  # the checker knows no com.example schema
            onnx.checker.check_model(model)
        onnx.save(model, os.path.join(root, name))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/onnx")
