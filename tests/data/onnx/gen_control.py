#!/usr/bin/env python3
"""gen_control.py - ONNX models with control flow (onnx.helper, Debian python3-onnx), and the
FLOPs each should count (control.ref.json), by hand:

if_known.onnx: If on a constant true: the then branch (a 64x64 MatMul on [1, 64]: 8,192) counts.
if_unknown.onnx: If on an input: then = MatMul 64x64 (8,192), else = Relu (64): both costed, the
  larger (then) counted: 8,192.
vad_if.onnx: a voice-activity model whose whole network sits in the branches of an If on an
  input flag (then: Conv1d 1->16 k=3 over 400 samples + Relu + MatMul 16*398 -> 2; else: copy).
loop_const.onnx: Loop with M = 5 (a constant) over a 32x32 MatMul on [1, 32] and an Add:
  5 x (2,048 + 32) = 10,400.
loop_unknown.onnx: the same with M a graph input: once (2,080) and a warning; --trips loop=7:
  14,560.
scan.onnx: Scan over a [10, 1, 16] sequence, body a 16x16 MatMul (512) + Add (16): 10 x 528 =
  5,280.

    python3 tests/data/onnx/gen_control.py tests/data/onnx
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64
n = helper.make_node


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def w(name, shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def branches():
    then_g = helper.make_graph([n("MatMul", ["x", "W"], ["t_out"], name="mm")], "then", [],
                               [vi("t_out", [1, 64])])
    else_g = helper.make_graph([n("Relu", ["x"], ["e_out"], name="relu")], "else", [],
                               [vi("e_out", [1, 64])])
    return then_g, else_g


def main(root):
    refs = {}
    then_g, else_g = branches()
    cond = numpy_helper.from_array(np.array(True), "c")
    m = model([n("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g, name="branch")],
              [vi("x", [1, 64])], [vi("y", [1, 64])], [w("W", (64, 64)), cond])
    onnx.save(m, os.path.join(root, "if_known.onnx"))
    refs["if_known"] = 2 * 64 * 64
    m = model([n("If", ["flag"], ["y"], then_branch=then_g, else_branch=else_g, name="branch")],
              [vi("x", [1, 64]), vi("flag", [], B)], [vi("y", [1, 64])], [w("W", (64, 64))])
    onnx.save(m, os.path.join(root, "if_unknown.onnx"))
    refs["if_unknown"] = 2 * 64 * 64

    # voice activity: the network inside the then branch of an If on an input flag
    then_v = helper.make_graph(
        [n("Unsqueeze", ["audio", "ax"], ["a3"], name="to3"),
         n("Conv", ["a3", "cw"], ["c"], name="conv"), n("Relu", ["c"], ["r"], name="relu"),
         n("Reshape", ["r", "flat"], ["f"], name="flatten"),
         n("MatMul", ["f", "fw"], ["speech"], name="classify")],
        "network", [], [vi("speech", [1, 2])],
        [w("cw", (16, 1, 3)), w("fw", (16 * 398, 2)),
         numpy_helper.from_array(np.array([1], np.int64), "ax"),
         numpy_helper.from_array(np.array([1, -1], np.int64), "flat")])
    else_v = helper.make_graph([n("Identity", ["zeros"], ["none"], name="silence")], "skip", [],
                               [vi("none", [1, 2])],
                               [numpy_helper.from_array(np.zeros((1, 2), np.float32), "zeros")])
    m = model([n("If", ["active"], ["y"], then_branch=then_v, else_branch=else_v, name="vad")],
              [vi("audio", [1, 400]), vi("active", [], B)], [vi("y", [1, 2])])
    onnx.save(m, os.path.join(root, "vad_if.onnx"))
    refs["vad_if"] = 2 * 16 * 398 * 3 + 2 * 16 * 398 * 2 + 16 * 398

    body = helper.make_graph(
        [n("MatMul", ["h", "W"], ["m"], name="mm"), n("Add", ["m", "h"], ["h2"], name="add"),
         n("Identity", ["cond_in"], ["cond_out"], name="keep")],
        "body", [vi("iter", [], I64), vi("cond_in", [], B), vi("h", [1, 32])],
        [vi("cond_out", [], B), vi("h2", [1, 32])])
    trips = numpy_helper.from_array(np.array(5, np.int64), "M")
    true = numpy_helper.from_array(np.array(True), "go")
    m = model([n("Loop", ["M", "go", "h0"], ["h_final"], body=body, name="loop")],
              [vi("h0", [1, 32])], [vi("h_final", [1, 32])], [w("W", (32, 32)), trips, true])
    onnx.save(m, os.path.join(root, "loop_const.onnx"))
    refs["loop_const"] = 5 * (2 * 32 * 32 + 32)
    m = model([n("Loop", ["M", "go", "h0"], ["h_final"], body=body, name="loop")],
              [vi("h0", [1, 32]), vi("M", [], I64)], [vi("h_final", [1, 32])],
              [w("W", (32, 32)), true])
    onnx.save(m, os.path.join(root, "loop_unknown.onnx"))
    refs["loop_unknown"] = 2 * 32 * 32 + 32
    refs["loop_unknown_trips7"] = 7 * (2 * 32 * 32 + 32)

    sbody = helper.make_graph(
        [n("MatMul", ["x_t", "W"], ["y_t"], name="mm"), n("Add", ["y_t", "s"], ["s2"], name="add")],
        "sbody", [vi("s", [1, 16]), vi("x_t", [1, 16])], [vi("s2", [1, 16]), vi("y_t", [1, 16])])
    m = model([n("Scan", ["s0", "xs"], ["s_final", "ys"], body=sbody, num_scan_inputs=1,
                 name="scan")],
              [vi("s0", [1, 16]), vi("xs", [10, 1, 16])],
              [vi("s_final", [1, 16]), vi("ys", [10, 1, 16])], [w("W", (16, 16))])
    onnx.save(m, os.path.join(root, "scan.onnx"))
    refs["scan"] = 10 * (2 * 16 * 16 + 16)
    with open(os.path.join(root, "control.ref.json"), "w") as f:
        json.dump(refs, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/onnx")
