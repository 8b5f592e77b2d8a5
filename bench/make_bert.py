#!/usr/bin/python3
"""make_bert.py OUT.onnx [LAYERS] [SEQ] — a BERT-base-shaped encoder (hidden 768, 12 heads,
FFN 3072, vocab 30522) as torch.onnx.export writes it at opset 13: Gather embeddings, LayerNorm
and GELU decomposed (ReduceMean/Sub/Pow/Sqrt/Div, Erf), attention through Reshape/Transpose/
MatMul/Softmax with an additive mask. Random FP32 weights inline. Input input_ids [1, SEQ] int64.
Needs Debian's python3-onnx and python3-numpy; no network, no torch."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

E, HEADS, FFN, VOCAB = 768, 12, 3072, 30522
rng = np.random.default_rng(0)
nodes, inits = [], []
n_ids = [0]


def uid(p):
    n_ids[0] += 1
    return "%s_%d" % (p, n_ids[0])


def const(arr, name=None):
    name = name or uid("c")
    inits.append(numpy_helper.from_array(np.asarray(arr), name))
    return name


def weight(shape):
    return const((rng.standard_normal(shape) * 0.02).astype(np.float32), uid("w"))


def op(kind, ins, **attrs):
    out = uid(kind.lower())
    nodes.append(helper.make_node(kind, ins, [out], name=uid("/" + kind), **attrs))
    return out


def layernorm(x):
    mu = op("ReduceMean", [x], axes=[-1])
    d = op("Sub", [x, mu])
    var = op("ReduceMean", [op("Pow", [d, const(np.float32(2))])], axes=[-1])
    y = op("Div", [d, op("Sqrt", [op("Add", [var, const(np.float32(1e-12))])])])
    return op("Add", [op("Mul", [y, weight([E])]), weight([E])])


def linear(x, n_in, n_out):
    return op("Add", [op("MatMul", [x, weight([n_in, n_out])]), weight([n_out])])


def main():
    out, layers, seq = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12, \
        int(sys.argv[3]) if len(sys.argv) > 3 else 128
    dh = E // HEADS
    x = op("Gather", [weight([VOCAB, E]), "input_ids"])
    x = op("Add", [x, op("Gather", [weight([512, E]), const(np.arange(seq, dtype=np.int64)[None, :])])])
    x = layernorm(x)
    mask = const(np.zeros((1, 1, 1, seq), np.float32))
    heads = const(np.array([1, seq, HEADS, dh], np.int64))
    flat = const(np.array([1, seq, E], np.int64))
    for _ in range(layers):
        q, k, v = (op("Transpose", [op("Reshape", [linear(x, E, E), heads])], perm=p)
                   for p in ([0, 2, 1, 3], [0, 2, 3, 1], [0, 2, 1, 3]))
        s = op("Add", [op("Div", [op("MatMul", [q, k]), const(np.float32(8.0))]), mask])
        a = op("MatMul", [op("Softmax", [s], axis=-1), v])
        a = op("Reshape", [op("Transpose", [a], perm=[0, 2, 1, 3]), flat])
        x = layernorm(op("Add", [linear(a, E, E), x]))
        h = linear(x, E, FFN)
        g = op("Mul", [op("Mul", [h, op("Add", [op("Erf", [op("Div", [h, const(np.float32(1.4142135))])]),
                                              const(np.float32(1.0))])]), const(np.float32(0.5))])
        x = layernorm(op("Add", [linear(g, FFN, E), x]))
    nodes[-1].output[0] = "output"
    g = helper.make_graph(nodes, "bert", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq])],
                          [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, seq, E])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out)


if __name__ == "__main__":
    main()
