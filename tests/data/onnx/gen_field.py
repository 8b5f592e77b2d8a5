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
field_silero_if.onnx: silero-vad style (torch.onnx of a module with a sample-rate switch): an If
  on Equal(sr, 16000), sr an int64 scalar input; its then branch builds reflect pads the torch
  way (ConstantOfShape, Concat, Reshape [-1, 2], Slice with step -1, Transpose, Reshape [-1]),
  and holds two nested Ifs decided by shape tests (Equal of a Gather of a Shape; Not of Equal of a
  Size), one of which reads a tensor its parent branch made (outer scope two levels up).
field_fold.onnx: weights made from initializers at run time, as silero-vad's LSTM weights are: an
  LSTM whose W is a Slice of an initializer, R a Transpose of one, B a Concat of two, and a MatMul
  whose B is a Concat of a Transpose and a Slice of initializers (all folded by the executor);
  a Shape of the LSTM state and a Reshape by it (folded Shape).

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


def silero_if():
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, "n"])
    st = helper.make_tensor_value_info("state", TensorProto.FLOAT, [2, 1, 8])
    sr = helper.make_tensor_value_info("sr", TensorProto.INT64, [])
    y = helper.make_empty_tensor_value_info("y")
    s_out = helper.make_empty_tensor_value_info("s")
    i64 = lambda v: np.array(v, np.int64)
    ab = helper.make_graph([
        helper.make_node("Squeeze", ["conv", "ax_last"], ["a_then"], name="sq")], "a_then", [],
        [helper.make_empty_tensor_value_info("a_then")])
    ae = helper.make_graph([helper.make_node("Identity", ["conv"], ["a_else"], name="id_a")],
                           "a_else", [], [helper.make_empty_tensor_value_info("a_else")])
    bt = helper.make_graph([
        const("ax0", i64([0])),
        helper.make_node("Unsqueeze", ["st0", "ax0"], ["st0u"], name="unsq_state"),
        helper.make_node("MatMul", ["st0u", "w2"], ["b_then"], name="state_proj")], "b_then", [],
        [helper.make_empty_tensor_value_info("b_then")])
    be = helper.make_graph([helper.make_node("Identity", ["st0"], ["b_else"], name="id_b")],
                           "b_else", [], [helper.make_empty_tensor_value_info("b_else")])
    then = helper.make_graph([
        const("c4", i64([4, 4])), const("two", i64([2])),
        helper.make_node("ConstantOfShape", ["two"], ["zeros"], name="zeros",
                         value=numpy_helper.from_array(i64([0]))),
        helper.make_node("Concat", ["c4", "zeros"], ["cat"], axis=0, name="cat"),
        const("m12", i64([-1, 2])),
        helper.make_node("Reshape", ["cat", "m12"], ["pairs"], name="pairs"),
        const("s_st", i64([-1])), const("s_en", i64([-(2**63) + 1])), const("s_ax", i64([0])),
        const("s_sp", i64([-1])),
        helper.make_node("Slice", ["pairs", "s_st", "s_en", "s_ax", "s_sp"], ["rev"], name="rev"),
        helper.make_node("Transpose", ["rev"], ["tr"], perm=[1, 0], name="tr"),
        const("m1", i64([-1])),
        helper.make_node("Reshape", ["tr", "m1"], ["flat"], name="flat"),
        helper.make_node("Cast", ["flat"], ["pads"], to=TensorProto.INT64, name="pads"),
        helper.make_node("Pad", ["input", "pads"], ["padded"], mode="reflect", name="pad"),
        const("ax1", i64([1])),
        helper.make_node("Unsqueeze", ["padded", "ax1"], ["pu"], name="unsq"),
        helper.make_node("Conv", ["pu", "w8"], ["conv"], strides=[8], name="then_conv"),
        helper.make_node("Shape", ["conv"], ["cs"], name="cs"),
        const("ax_last", i64([-1])),
        helper.make_node("Gather", ["cs", "ax_last"], ["t_len"], axis=0, name="t_len"),
        const("one", i64([1])),
        helper.make_node("Equal", ["t_len", "one"], ["is1"], name="is1"),
        helper.make_node("If", ["is1"], ["a"], then_branch=ab, else_branch=ae, name="if_a"),
        const("zero", i64(0)),
        helper.make_node("Gather", ["state", "zero"], ["st0"], axis=0, name="st0"),
        helper.make_node("Shape", ["a"], ["as"], name="as"),
        helper.make_node("Size", ["as"], ["rank"], name="rank"),
        const("r2", i64(2)),
        helper.make_node("Equal", ["rank", "r2"], ["is2"], name="is2"),
        helper.make_node("Not", ["is2"], ["not2"], name="not2"),
        helper.make_node("If", ["not2"], ["b"], then_branch=bt, else_branch=be, name="if_b"),
    ], "then", [], [helper.make_empty_tensor_value_info("a"),
                    helper.make_empty_tensor_value_info("b")])
    els = helper.make_graph([
        const("ax1e", i64([1])),
        helper.make_node("Unsqueeze", ["input", "ax1e"], ["eu"], name="unsq_e"),
        helper.make_node("Conv", ["eu", "w4"], ["e_conv"], strides=[4], name="else_conv"),
        const("zero_e", i64(0)),
        helper.make_node("Gather", ["state", "zero_e"], ["e_st"], axis=0, name="e_st"),
    ], "else", [], [helper.make_empty_tensor_value_info("e_conv"),
                    helper.make_empty_tensor_value_info("e_st")])
    nodes = [
        const("rate", i64(16000)),
        helper.make_node("Equal", ["sr", "rate"], ["is16k"], name="is16k"),
        helper.make_node("If", ["is16k"], ["y", "s"], then_branch=then, else_branch=els,
                         name="if_sr"),
    ]
    inits = [numpy_helper.from_array(np.zeros((8, 1, 8), np.float32), "w8"),
             numpy_helper.from_array(np.zeros((8, 1, 4), np.float32), "w4"),
             numpy_helper.from_array(np.zeros((8, 4), np.float32), "w2")]
    g = helper.make_graph(nodes, "silero_if", [x, st, sr], [y, s_out], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)],
                             producer_name="pytorch")


def fold():
    T, N, I, H = 3, 1, 6, 8
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, N, I])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, N, 4])
    yl = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [T, 1, N, H])
    rng = np.random.default_rng(26)
    f = lambda *d: rng.standard_normal(d).astype(np.float32)
    inits = [numpy_helper.from_array(f(2, 4 * H, I), "Wall"),
             numpy_helper.from_array(f(1, H, 4 * H), "Rt"),
             numpy_helper.from_array(f(1, 4 * H), "b_in"),
             numpy_helper.from_array(f(1, 4 * H), "b_rec"),
             numpy_helper.from_array(f(2, H), "P"),
             numpy_helper.from_array(f(H, 5), "Q"),
             numpy_helper.from_array(np.array([1], np.int64), "one"),
             numpy_helper.from_array(np.array([2], np.int64), "two"),
             numpy_helper.from_array(np.array([0], np.int64), "zero")]
    nodes = [helper.make_node("Slice", ["Wall", "one", "two", "zero"], ["W"], name="w_slice"),
             helper.make_node("Transpose", ["Rt"], ["R"], name="r_transpose", perm=[0, 2, 1]),
             helper.make_node("Concat", ["b_in", "b_rec"], ["B"], name="b_concat", axis=1),
             helper.make_node("LSTM", ["x", "W", "R", "B"], ["Y", "Y_h"], name="lstm",
                              hidden_size=H),
             helper.make_node("Transpose", ["P"], ["Pt"], name="p_transpose", perm=[1, 0]),
             helper.make_node("Slice", ["Q", "zero", "two", "one"], ["Qs"], name="q_slice"),
             helper.make_node("Concat", ["Pt", "Qs"], ["M"], name="m_concat", axis=1),
             helper.make_node("MatMul", ["Y_h", "M"], ["mm"], name="matmul"),
             helper.make_node("Shape", ["Y_h"], ["hs"], name="h_shape"),
             helper.make_node("Slice", ["hs", "zero", "two", "zero"], ["hs2"], name="hs_slice"),
             helper.make_node("Concat", ["hs2", "two", "two"], ["shp"], name="shp_concat", axis=0),
             helper.make_node("Reshape", ["mm", "shp"], ["mm4"], name="mm_reshape"),
             helper.make_node("Reshape", ["mm4", "hs_y"], ["y"], name="out_reshape")]
    inits.append(numpy_helper.from_array(np.array([1, N, 4], np.int64), "hs_y"))
    g = helper.make_graph(nodes, "fold", [x], [y, yl], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)],
                             producer_name="pytorch")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, m in [("field_p2o_resize", p2o()), ("field_tf_pad", tf_pad()),
                    ("field_rnn_batch", rnn_batch()), ("field_resize_runtime", resize_runtime()),
                    ("field_silero_if", silero_if()), ("field_fold", fold())]:
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
