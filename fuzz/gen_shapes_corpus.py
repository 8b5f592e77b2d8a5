#!/usr/bin/env python3
"""gen_shapes_corpus.py - seed corpus for fuzz_shapes (Python standard library only).

Writes tiny ONNX models (a hand-rolled protobuf writer, onnx.proto field numbers) with one node
each of the ops whose shape rules do arithmetic on file data - Conv, ConvTranspose, MaxPool,
Slice, Concat, Pad, Reshape, Gemm, MatMul, Expand, Split - with ordinary and hostile attributes
(pads and strides near 2**62, group near 2**62, Slice steps of INT64_MAX, Concat/Pad sums past
2**63). Each file starts with fuzz_shapes' binding prefix (rank byte + dim-table indices).

    python3 fuzz/gen_shapes_corpus.py fuzz/corpus/shapes
"""
import os
import struct
import sys

I64_MAX = 2**63 - 1


def varint(v):
    v &= 2**64 - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    b = b.encode() if isinstance(b, str) else b
    return key(field, 2) + varint(len(b)) + b


def attr_ints(name, vals):
    return f_bytes(1, name) + b"".join(f_int(8, v) for v in vals) + f_int(20, 7)


def attr_int(name, v):
    return f_bytes(1, name) + f_int(3, v) + f_int(20, 2)


def attr_str(name, s):
    return f_bytes(1, name) + f_bytes(4, s) + f_int(20, 3)


def node(op, ins, outs, attrs=(), name=None):
    b = b"".join(f_bytes(1, i) for i in ins) + b"".join(f_bytes(2, o) for o in outs)
    b += f_bytes(3, name or op.lower() + "_0") + f_bytes(4, op)
    return b + b"".join(f_bytes(5, a) for a in attrs)


def value_info(name, dims, elem=1):
    shape = b"".join(f_bytes(1, f_int(1, d) if isinstance(d, int) else f_bytes(2, d)) for d in dims)
    tensor_type = f_int(1, elem) + f_bytes(2, shape)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tensor_type))


def init_i64(name, vals):
    return f_int(1, len(vals)) + f_int(2, 7) + b"".join(f_int(7, v) for v in vals) + f_bytes(8, name)


def init_f32(name, dims):
    n = 1
    for d in dims:
        n *= d
    return (b"".join(f_int(1, d) for d in dims) + f_int(2, 1) + f_bytes(8, name) +
            f_bytes(9, struct.pack("<%df" % n, *([0.5] * n))))


def model(nodes, inputs, outputs, inits=()):
    g = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "g")
    g += b"".join(f_bytes(5, t) for t in inits)
    g += b"".join(f_bytes(11, value_info(*i)) for i in inputs)
    g += b"".join(f_bytes(12, value_info(*o)) for o in outputs)
    return f_int(1, 8) + f_bytes(8, f_bytes(1, "") + f_int(2, 17)) + f_bytes(7, g)


def cases():
    x4 = ("x", [1, 3, 8, 8])
    w = init_f32("w", [4, 3, 3, 3])
    yield "conv_ok", model([node("Conv", ["x", "w"], ["y"], [attr_ints("pads", [1, 1, 1, 1])])],
                           [x4], [("y", [])], [w])
    yield "conv_pads_2p62", model([node("Conv", ["x", "w"], ["y"],
                                        [attr_ints("pads", [2**62, 2**62, 2**62, 2**62])])],
                                  [x4], [("y", [])], [w])
    yield "conv_dil_huge", model([node("Conv", ["x", "w"], ["y"],
                                       [attr_ints("dilations", [2**62, 2**62])])],
                                 [x4], [("y", [])], [w])
    yield "conv_same_stride", model([node("Conv", ["x", "w"], ["y"],
                                          [attr_str("auto_pad", "SAME_UPPER"),
                                           attr_ints("strides", [I64_MAX, 2])])],
                                    [x4], [("y", [])], [w])
    wt = init_f32("wt", [3, 2, 3, 3])
    yield "convt_ok", model([node("ConvTranspose", ["x", "wt"], ["y"],
                                  [attr_ints("strides", [2, 2])])], [x4], [("y", [])], [wt])
    yield "convt_group_2p62", model([node("ConvTranspose", ["x", "wt"], ["y"],
                                          [attr_int("group", 2**62)])], [x4], [("y", [])], [wt])
    yield "convt_stride_2p62", model([node("ConvTranspose", ["x", "wt"], ["y"],
                                           [attr_ints("strides", [2**62, 2**62])])],
                                     [x4], [("y", [])], [wt])
    yield "pool_ok", model([node("MaxPool", ["x"], ["y"], [attr_ints("kernel_shape", [2, 2]),
                                                          attr_int("ceil_mode", 1)])],
                           [x4], [("y", [])])
    yield "pool_ceil_huge", model([node("MaxPool", ["x"], ["y"],
                                        [attr_ints("kernel_shape", [2, 2]), attr_int("ceil_mode", 1),
                                         attr_ints("strides", [I64_MAX, I64_MAX])])],
                                  [x4], [("y", [])])
    for nm, st, en, sp in (("slice_ok", 0, 4, 1), ("slice_step_max", 0, I64_MAX, I64_MAX),
                           ("slice_neg_from_max", I64_MAX, -I64_MAX - 1, -1),
                           ("slice_neg_step_max", -1, -I64_MAX - 1, -I64_MAX - 1)):
        yield nm, model([node("Slice", ["x", "s", "e", "a", "p"], ["y"])], [x4], [("y", [])],
                        [init_i64("s", [st]), init_i64("e", [en]), init_i64("a", [2]),
                         init_i64("p", [sp])])
    big = [1, 2**62 + 2**61, 8, 8]
    yield "concat_ok", model([node("Concat", ["x", "x2"], ["y"], [attr_int("axis", 1)])],
                             [x4, ("x2", [1, 5, 8, 8])], [("y", [])])
    yield "concat_past_2p63", model([node("Concat", ["x", "x2"], ["y"], [attr_int("axis", 1)])],
                                    [("x", big), ("x2", big)], [("y", [])])
    yield "pad_ok", model([node("Pad", ["x", "p"], ["y"])], [x4], [("y", [])],
                          [init_i64("p", [0, 0, 1, 1, 0, 0, 1, 1])])
    yield "pad_past_2p63", model([node("Pad", ["x", "p"], ["y"])], [x4], [("y", [])],
                                 [init_i64("p", [0, 0, I64_MAX, 1, 0, 0, I64_MAX, 1])])
    yield "reshape_ok", model([node("Reshape", ["x", "s"], ["y"])], [x4], [("y", [])],
                              [init_i64("s", [1, -1])])
    yield "gemm_ok", model([node("Gemm", ["a", "b", "c"], ["y"], [attr_int("transB", 1)])],
                           [("a", [4, 8]), ("b", [16, 8]), ("c", [16])], [("y", [])])
    yield "gemm_huge_bias", model([node("Gemm", ["a", "b", "c"], ["y"])],
                                  [("a", [2**40, 1]), ("b", [1, 2**40]), ("c", [1])], [("y", [])])
    yield "matmul_ok", model([node("MatMul", ["a", "b"], ["y"])],
                             [("a", ["batch", 4, 8]), ("b", [8, 16])], [("y", [])])
    yield "expand_ok", model([node("Expand", ["x", "s"], ["y"])], [x4], [("y", [])],
                             [init_i64("s", [2, 1, 1, 1])])
    yield "split_ok", model([node("Split", ["x"], ["y0", "y1"], [attr_int("axis", 1),
                                                               attr_ints("split", [1, 2])])],
                            [x4], [("y0", []), ("y1", [])])
    yield "shape_arith", model([node("Shape", ["x"], ["s"]),
                                node("Mul", ["s", "k"], ["s2"], name="mul_0"),
                                node("Reshape", ["x", "s2"], ["y"])],
                               [x4], [("y", [])], [init_i64("k", [I64_MAX])])


def main(root):
    os.makedirs(root, exist_ok=True)
    for name, m in cases():
        for tag, prefix in (("", b"\x00"), ("_bind", bytes([4, 0, 2, 13, 15]))):
            with open(os.path.join(root, name + tag + ".bin"), "wb") as f:
                f.write(prefix + m)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fuzz/corpus/shapes")
