#!/usr/bin/env python3
"""gen_hostile_exec.py - crafted ONNX models against the executor (issue 25, part 1).

Each model is a few hundred bytes, written with the hand-rolled protobuf writer of
fuzz/gen_shapes_corpus.py (Python standard library only), and targets one finding of the
outside security round: value-dependent output shapes declared smaller than the op produces
(TopK, OneHot, Slice, Split, Expand), attribute overflow (MatMulNBits block_size 2^62), empty
axes (cubic Resize, RotaryEmbedding cache, MultiHeadAttention keys), zero-sized dimensions
handed to oneDNN (MatMul, Gemm, MatMulInteger, LSTM), operand shapes that do not agree (Gemm B,
Conv/ConvTranspose bias, PRelu slope, LSTM/GRU R, B, initial_h/c) and float->int64 conversions
out of range (Gather indices, HardSigmoid beta). `profile FILE --measure` must end every one
with exit 0 (the layer not measured) or exit 2 (one line naming the file), never a crash.

    python3 tests/data/tools/gen_hostile_exec.py OUTDIR      # writes OUTDIR/NAME.onnx
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "fuzz"))
from gen_shapes_corpus import (I64_MAX, attr_int, attr_str, f_bytes, f_int, key,  # noqa
                               value_info, varint)

I64_MIN = -(2**63)
F32, U8, I8, I64 = 1, 2, 3, 7


def attr_float(name, v):
    return f_bytes(1, name) + key(2, 5) + struct.pack("<f", v) + f_int(20, 1)


def node(op, ins, outs, attrs=(), domain=""):
    b = b"".join(f_bytes(1, i) for i in ins) + b"".join(f_bytes(2, o) for o in outs)
    b += f_bytes(3, op.lower() + "_0") + f_bytes(4, op)
    if domain:
        b += f_bytes(7, domain)
    return b + b"".join(f_bytes(5, a) for a in attrs)


def init_f(name, dims, vals=None):
    n = 1
    for d in dims:
        n *= d
    vals = vals if vals is not None else [0.5] * n
    return (b"".join(f_int(1, d) for d in dims) + f_int(2, F32) + f_bytes(8, name) +
            f_bytes(9, struct.pack("<%df" % n, *vals)))


def init_u8(name, dims, fill=0x11):
    n = 1
    for d in dims:
        n *= d
    return b"".join(f_int(1, d) for d in dims) + f_int(2, U8) + f_bytes(8, name) + f_bytes(9, bytes([fill]) * n)


def init_i64d(name, dims, vals):
    """int64 initializer, int64_data packed (as onnx writes it; the reader keeps its values)"""
    return (b"".join(f_int(1, d) for d in dims) + f_int(2, I64) +
            f_bytes(7, b"".join(varint(v) for v in vals)) + f_bytes(8, name))


def init_i64(name, vals):
    return init_i64d(name, [len(vals)], vals)


def model(nodes, inputs, outputs, inits=()):
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, value_info(*i)) for i in inputs)
    g += b"".join(f_bytes(12, value_info(*o)) for o in outputs)
    ops = f_bytes(8, f_bytes(1, "") + f_int(2, 17)) + f_bytes(8, f_bytes(1, "com.microsoft") + f_int(2, 1))
    return f_int(1, 8) + ops + f_bytes(7, g)


def cases():
    # 1. value-dependent outputs declared small
    yield "topk_k_input", model([node("TopK", ["x", "k"], ["v", "i"])],
                                [("x", [1, 10]), ("k", [1], I64)], [("v", [1, 3]), ("i", [1, 1], I64)])
    yield "onehot_depth_input", model([node("OneHot", ["ind", "depth", "vals"], ["y"])],
                                      [("ind", [4], I64), ("depth", [1], I64)], [("y", [1, 3])],
                                      [init_f("vals", [2], [0.0, 1.0])])
    # 2. Slice: axes from a graph input and a negative step; a step of INT64_MIN
    yield "slice_axes_input_negstep", model([node("Slice", ["x", "s", "e", "a", "p"], ["y"])],
                                            [("x", [10]), ("a", [1], I64)], [("y", [20])],
                                            [init_i64("s", [-1]), init_i64("e", [-100]),
                                             init_i64("p", [-1])])
    yield "slice_step_min", model([node("Slice", ["x", "s", "e", "a", "p"], ["y"])],
                                  [("x", [10]), ("a", [1], I64)], [("y", [3])],
                                  [init_i64("s", [9]), init_i64("e", [-100]), init_i64("p", [I64_MIN])])
    # 3. Split sizes past the axis; Expand to a declared shape x does not broadcast to
    yield "split_past_axis", model([node("Split", ["x", "sp"], ["y0", "y1"], [attr_int("axis", 1)])],
                                   [("x", [1, 4])], [("y0", [1, 3]), ("y1", [1, 3])],
                                   [init_i64("sp", [3, 3])])
    yield "split_uneven", model([node("Split", ["x"], ["y0", "y1"], [attr_int("axis", 1)])],
                                [("x", [1, 5])], [("y0", [1, 3]), ("y1", [1, 3])])
    yield "expand_shape_input", model([node("Expand", ["x", "s"], ["y"])],
                                      [("x", [1, 2]), ("s", [2], I64)], [("y", [3, 8])])
    # 4. MatMulNBits block_size 2^62: N*nb*(bs/2) wraps to 0
    yield "matmulnbits_bs_2p62", model(
        [node("MatMulNBits", ["a", "b", "sc"], ["y"],
              [attr_int("K", 8), attr_int("N", 8), attr_int("bits", 4), attr_int("block_size", 2**62)],
              "com.microsoft")],
        [("a", [1, 8])], [("y", [1, 8])], [init_u8("b", [0]), init_f("sc", [8])])
    # 5. empty axes
    yield "resize_cubic_empty", model([node("Resize", ["x", "", "sc"], ["y"], [attr_str("mode", "cubic")])],
                                      [("x", [1, 1, 0, 4])], [("y", [1, 1, 4, 8])],
                                      [init_f("sc", [4], [1.0, 1.0, 2.0, 2.0])])
    yield "rotary_zero_cache", model([node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"],
                                           [attr_int("num_heads", 2)], "com.microsoft")],
                                     [("x", [1, 2, 8]), ("pos", [1, 2], I64)], [("y", [1, 2, 8])],
                                     [init_f("cos", [0, 2], []), init_f("sin", [0, 2], [])])
    yield "mha_zero_keys", model([node("MultiHeadAttention", ["q", "k", "v"], ["y"],
                                       [attr_int("num_heads", 2)], "com.microsoft")],
                                 [("q", [1, 2, 8]), ("k", [1, 0, 8]), ("v", [1, 0, 8])], [("y", [1, 2, 8])])
    # 6. zero-sized dimensions into oneDNN
    yield "matmul_m0", model([node("MatMul", ["a", "b"], ["y"])], [("a", [0, 4])], [("y", [0, 3])],
                             [init_f("b", [4, 3])])
    yield "gemm_m0", model([node("Gemm", ["a", "b"], ["y"])], [("a", [0, 4])], [("y", [0, 3])],
                           [init_f("b", [4, 3])])
    yield "matmulinteger_m0", model([node("MatMulInteger", ["a", "b"], ["y"])], [("a", [0, 4], U8)],
                                    [("y", [0, 3], 6)], [init_u8("b", [4, 3])])
    lstm_w = [init_f("W", [1, 16, 4]), init_f("R", [1, 16, 4])]
    yield "lstm_batch0", model([node("LSTM", ["X", "W", "R"], ["Y"], [attr_int("hidden_size", 4)])],
                               [("X", [2, 0, 4])], [("Y", [2, 1, 0, 4])], lstm_w)
    yield "lstm_input0", model([node("LSTM", ["X", "W", "R"], ["Y"], [attr_int("hidden_size", 4)])],
                               [("X", [2, 1, 0])], [("Y", [2, 1, 1, 4])],
                               [init_f("W", [1, 16, 0], []), init_f("R", [1, 16, 4])])
    # 7. operand shapes that do not agree
    yield "gemm_b_rows", model([node("Gemm", ["a", "b"], ["y"])], [("a", [2, 4096])], [("y", [2, 1])],
                               [init_f("b", [1, 1])])
    x4 = ("x", [1, 3, 8, 8])
    yield "conv_bias_len", model([node("Conv", ["x", "w", "b"], ["y"])], [x4], [("y", [1, 4, 6, 6])],
                                 [init_f("w", [4, 3, 3, 3]), init_f("b", [1])])
    yield "convt_bias_len", model([node("ConvTranspose", ["x", "w", "b"], ["y"])], [x4],
                                  [("y", [1, 4, 10, 10])], [init_f("w", [3, 4, 3, 3]), init_f("b", [1])])
    yield "prelu_slope", model([node("PRelu", ["x", "s"], ["y"])], [("x", [1, 4, 8])], [("y", [1, 4, 8])],
                               [init_f("s", [3])])
    for nm, extra_in, extra_init in (
            ("lstm_R_bad", ["X", "W", "R"], [init_f("W", [1, 16, 4]), init_f("R", [1, 16, 1])]),
            ("lstm_B_bad", ["X", "W", "R", "B"], lstm_w + [init_f("B", [1, 2])]),
            ("lstm_h0_bad", ["X", "W", "R", "", "", "h0", "c0"],
             lstm_w + [init_f("h0", [1, 1, 1]), init_f("c0", [1, 1, 1])])):
        yield nm, model([node("LSTM", extra_in, ["Y"], [attr_int("hidden_size", 4)])],
                        [("X", [2, 1, 4])], [("Y", [2, 1, 1, 4])], extra_init)
    yield "gru_R_bad", model([node("GRU", ["X", "W", "R", "B", "", "h0"], ["Y"], [attr_int("hidden_size", 4)])],
                             [("X", [2, 1, 4])], [("Y", [2, 1, 1, 4])],
                             [init_f("W", [1, 12, 4]), init_f("R", [1, 12, 1]), init_f("B", [1, 3]),
                              init_f("h0", [1, 1, 1])])
    # 8. float -> int64 out of range
    yield "gather_idx_huge", model([node("Gather", ["x", "i"], ["y"])], [("x", [10])], [("y", [1])],
                                   [init_i64d("i", [1], [I64_MAX])])
    yield "hardsigmoid_beta", model([node("HardSigmoid", ["x"], ["y"], [attr_float("beta", 1e30)])],
                                    [("x", [1, 4])], [("y", [1, 4])])


def main(root):
    os.makedirs(root, exist_ok=True)
    for name, m in cases():
        with open(os.path.join(root, name + ".onnx"), "wb") as f:
            f.write(m)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
