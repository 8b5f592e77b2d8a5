#!/usr/bin/env python3
"""exec_models.py — models for the executor benchmarks (python3-onnx).

  exec_models.py complete IN.onnx OUT.onnx   weights-complete copy of a fixture whose external
        weights were deleted (random values, inline), for ONNX Runtime; prints the graph
        inputs' shapes as JSON ({"input": [1, 3, 224, 224]}).
  exec_models.py matmul N OUT.onnx           Y = X[N,N] @ W[N,N] (W an initializer)
  exec_models.py eltwise N OUT.onnx          Y = Relu(X[N]), Z = X + X2 (N floats each)
"""
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def complete(src, dst):
    m = onnx.load(src, load_external_data=False)
    rng = np.random.default_rng(0)
    for t in m.graph.initializer:
        if t.data_location == TensorProto.EXTERNAL:
            dt = helper.tensor_dtype_to_np_dtype(t.data_type) if hasattr(helper, "tensor_dtype_to_np_dtype") \
                else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]
            a = (rng.standard_normal(tuple(t.dims)) * 0.05).astype(dt)
            t.CopyFrom(numpy_helper.from_array(a, t.name))
    onnx.save(m, dst)
    inits = {t.name for t in m.graph.initializer}
    shapes = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        shapes[i.name] = [d.dim_value if d.dim_value > 0 else 1 for d in i.type.tensor_type.shape.dim]
    print(json.dumps(shapes))


def matmul(n, dst):
    w = numpy_helper.from_array(np.random.default_rng(0).standard_normal((n, n)).astype(np.float32), "W")
    g = helper.make_graph([helper.make_node("MatMul", ["X", "W"], ["Y"], name="matmul")], "mm",
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, [n, n])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n, n])], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), dst)


def eltwise(n, dst):
    g = helper.make_graph([helper.make_node("Relu", ["X"], ["Y"], name="relu"),
                           helper.make_node("Add", ["X", "X2"], ["Z"], name="add")], "elt",
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, [n]),
                           helper.make_tensor_value_info("X2", TensorProto.FLOAT, [n])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n]),
                           helper.make_tensor_value_info("Z", TensorProto.FLOAT, [n])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), dst)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "complete":
        complete(sys.argv[2], sys.argv[3])
    elif cmd == "matmul":
        matmul(int(sys.argv[2]), sys.argv[3])
    elif cmd == "eltwise":
        eltwise(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit("usage: exec_models.py complete|matmul|eltwise ...")
