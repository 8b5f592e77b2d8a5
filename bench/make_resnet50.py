#!/usr/bin/python3
"""make_resnet50.py OUT.onnx — ResNet-50 (torchvision layout, BatchNorm folded into the convs as
torch.onnx.export does in eval mode) with random FP32 weights stored INLINE (raw_data), opset 13,
input 1x3x224x224. Needs Debian's python3-onnx and python3-numpy; no network, no torch."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
nodes, inits = [], []


def weight(name, shape):
    inits.append(numpy_helper.from_array(
        (rng.standard_normal(shape) * 0.02).astype(np.float32), name))
    return name


def conv(x, name, cin, cout, k, stride=1, relu=True):
    w = weight(name + ".weight", (cout, cin, k, k))
    b = weight(name + ".bias", (cout,))
    y = name + ".out"
    nodes.append(helper.make_node("Conv", [x, w, b], [y], name=name + "/Conv",
                                  kernel_shape=[k, k], strides=[stride, stride],
                                  pads=[k // 2] * 4))
    if not relu:
        return y
    nodes.append(helper.make_node("Relu", [y], [y + ".relu"], name=name + "/Relu"))
    return y + ".relu"


def bottleneck(x, name, cin, width, stride):
    out = width * 4
    y = conv(x, name + ".conv1", cin, width, 1)
    y = conv(y, name + ".conv2", width, width, 3, stride)
    y = conv(y, name + ".conv3", width, out, 1, relu=False)
    if stride != 1 or cin != out:
        x = conv(x, name + ".downsample", cin, out, 1, stride, relu=False)
    s = name + ".add"
    nodes.append(helper.make_node("Add", [y, x], [s], name=name + "/Add"))
    nodes.append(helper.make_node("Relu", [s], [s + ".relu"], name=name + "/Relu"))
    return s + ".relu", out


def main(path):
    x = conv("input", "conv1", 3, 64, 7, 2)
    nodes.append(helper.make_node("MaxPool", [x], ["pool"], name="maxpool/MaxPool",
                                  kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
    x, cin = "pool", 64
    for i, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2),
                                                 (512, 3, 2)]):
        for b in range(blocks):
            x, cin = bottleneck(x, "layer%d.%d" % (i + 1, b), cin, width, stride if b == 0 else 1)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="avgpool/GAP"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1))
    w, b = weight("fc.weight", (1000, 2048)), weight("fc.bias", (1000,))
    nodes.append(helper.make_node("Gemm", ["flat", w, b], ["output"], name="fc/Gemm", transB=1))
    graph = helper.make_graph(
        nodes, "resnet50",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1000])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)


if __name__ == "__main__":
    main(sys.argv[1])
