#!/usr/bin/env python3
"""gen_field.py - tiny models shaped like the field exports of issue 26 (Debian python3-onnx).

field_p2o_resize.onnx: paddle2onnx style: every weight in a Constant node (no initializers),
  input [p2o.DynamicDimension.0, 3, p2o.DynamicDimension.1, p2o.DynamicDimension.2], an opset-11
  Resize whose empty roi and float scales [1, 1, 2, 2] come from Constant nodes, a Conv after it.
field_tf_pad.onnx: tf2onnx style: Pad's pads a Concat of the outputs of a Split of a constant,
  then a Conv (initializer weights) and a TopK.
field_resize_runtime.onnx: a Resize whose scales are a graph input (known only at run time),
  then a Conv: both undefined, the warning saying where the Conv's input shape was lost.
field_rnn_batch.onnx: a recurrent state [2, batch, 64] (batch not the first axis) and x
  [batch, 64].

    python3 tests/data/onnx/gen_field.py tests/data/onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def const(name, arr):
    return helper.make_node("Constant", [], [name], name=name + "_node",
                            value=numpy_helper.from_array(arr, name))


def p2o():
    d = ["p2o.DynamicDimension.0", 3, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, d)
    y = helper.make_empty_tensor_value_info("y")
    nodes = [
        const("w0", np.zeros((8, 3, 3, 3), np.float32)),
        const("b0", np.zeros((8,), np.float32)),
        helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1],
                         name="p2o.Conv.0"),
        const("roi", np.zeros((0,), np.float32)),
        const("scales", np.array([1, 1, 2, 2], np.float32)),
        helper.make_node("Resize", ["c0", "roi", "scales"], ["r0"], mode="nearest",
                         name="p2o.Resize.0"),
        const("w1", np.zeros((4, 8, 1, 1), np.float32)),
        helper.make_node("Conv", ["r0", "w1"], ["y"], name="p2o.Conv.1"),
    ]
    g = helper.make_graph(nodes, "p2o", [x], [y])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)],
                             producer_name="PaddlePaddle")


def tf_pad():
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 8, 16, 16])
    y = helper.make_empty_tensor_value_info("vals")
    i = helper.make_empty_tensor_value_info("idx")
    w = numpy_helper.from_array(np.zeros((16, 8, 3, 3), np.float32), "conv_w")
    pc = numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pad_const")
    k = numpy_helper.from_array(np.array([5], np.int64), "k")
    nodes = [
        helper.make_node("Split", ["pad_const"], ["p_lo", "p_hi"], axis=0, name="split"),
        helper.make_node("Concat", ["p_lo", "p_hi"], ["pads"], axis=0, name="concat"),
        helper.make_node("Pad", ["input", "pads"], ["padded"], name="pad"),
        helper.make_node("Conv", ["padded", "conv_w"], ["c"], strides=[2, 2], name="conv"),
        helper.make_node("TopK", ["c", "k"], ["vals", "idx"], axis=-1, name="topk"),
    ]
    g = helper.make_graph(nodes, "tf_pad", [x], [y, i], [w, pc, k])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                             producer_name="tf2onnx")


def rnn_batch():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])
    h = helper.make_tensor_value_info("h", TensorProto.FLOAT, [2, "batch", 64])
    y = helper.make_empty_tensor_value_info("y")
    w = numpy_helper.from_array(np.zeros((64, 64), np.float32), "w")
    nodes = [
        helper.make_node("MatMul", ["h", "w"], ["hw"], name="state_proj"),
        helper.make_node("Add", ["hw", "x"], ["y"], name="add"),
    ]
    g = helper.make_graph(nodes, "rnn_batch", [x, h], [y], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                             producer_name="pytorch")


def resize_runtime():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 4, 4])
    sc = helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4])
    y = helper.make_empty_tensor_value_info("y")
    w = numpy_helper.from_array(np.zeros((4, 8, 1, 1), np.float32), "w")
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["r"], mode="nearest", name="resize"),
        helper.make_node("Conv", ["r", "w"], ["y"], name="conv"),
    ]
    g = helper.make_graph(nodes, "resize_runtime", [x, sc], [y], [w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, m in [("field_p2o_resize", p2o()), ("field_tf_pad", tf_pad()),
                    ("field_rnn_batch", rnn_batch()), ("field_resize_runtime", resize_runtime())]:
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
