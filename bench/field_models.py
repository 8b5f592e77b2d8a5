#!/usr/bin/python3
"""field_models.py — the python3-onnx steps of bench/field-models.sh.

  spec MODEL SETTINGS        the input feeds as JSON {name: {"dims": [...], "type": "float32"}}
                             from the model's inputs and SETTINGS ("name=1x3x64x64 sym=8 ..."),
                             symbolic dims not set -> 1; fails when a dim stays unknown
  expose MODEL OUT           OUT: MODEL with every node output also a graph output (for ORT)
  inline MODEL SHAPES OUT    OUT: MODEL with every If whose condition ORT reported (SHAPES'
                             "?values") replaced by the branch taken, its nodes renamed as
                             roofline names them (IF/then/NODE); prints how many were inlined
  exact MODEL SHAPES ROOF    the exact Conv/MatMul/Gemm FLOPs from ORT's shapes (SHAPES: JSON
                             {tensor: dims} printed by field_ort.js) against roofline's JSON
                             profile ROOF; prints "k n undefined total_layers" and, on stderr,
                             the first mismatches
  coverage ROOF              "measured all flops% wall_s" of a --measure JSON profile
Fails (exit 1, one line) when a step cannot be done: never prints a made-up 0.
"""
import json
import sys

import onnx
from onnx import TensorProto

ONNX_TO_ORT = {
    TensorProto.FLOAT: "float32", TensorProto.FLOAT16: "float16", TensorProto.INT64: "int64",
    TensorProto.INT32: "int32", TensorProto.INT8: "int8", TensorProto.UINT8: "uint8",
    TensorProto.BOOL: "bool", TensorProto.DOUBLE: "float64",
}


def die(msg):
    print("field_models.py: " + msg, file=sys.stderr)
    sys.exit(1)


def load(path):
    try:
        return onnx.load(path)
    except Exception as e:  # noqa: BLE001 — any reader error is fatal here
        die(f"{path}: {e}")


def graph_inputs(m):
    inits = {t.name for t in m.graph.initializer}
    return [i for i in m.graph.input if i.name not in inits]


def spec(path, settings):
    m = load(path)
    named, dims, values = {}, {}, {}
    for s in settings.split():
        k, v = s.rsplit("=", 1)
        if k.endswith(":"):  # NAME:=V, the value of an integer scalar input (--value)
            values[k[:-1]] = int(v)
        elif "x" in v or k in {i.name for i in graph_inputs(m)}:
            named[k] = [int(d) for d in v.split("x")]
        else:
            dims[k] = int(v)
    out = {}
    for i in graph_inputs(m):
        tt = i.type.tensor_type
        if tt.elem_type not in ONNX_TO_ORT:
            die(f"{path}: input '{i.name}' has element type {tt.elem_type}, not handled")
        if i.name in named:
            d = named[i.name]
        else:
            d = []
            for x in tt.shape.dim:
                if x.HasField("dim_value"):
                    d.append(x.dim_value)
                else:
                    d.append(dims.get(x.dim_param, 1))
        out[i.name] = {"dims": d, "type": ONNX_TO_ORT[tt.elem_type]}
        if i.name in values:
            out[i.name]["value"] = values[i.name]
    print(json.dumps(out))


def expose(path, dst):
    m = load(path)
    have = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for o in n.output:
            if o and o not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=o))
                have.add(o)
    onnx.save(m, dst)


def inline(path, shapes_path, dst):
    """Replace each If with a known condition by its branch's nodes (one level per call)."""
    m = load(path)
    with open(shapes_path) as f:
        values = json.load(f).get("?values", {})
    nodes, done = [], 0
    for n in m.graph.node:
        if n.op_type != "If" or n.input[0] not in values:
            nodes.append(n)
            continue
        side = "then" if values[n.input[0]] else "else"
        g = attr(n, side + "_branch", None)
        if g is None:
            die(f"{path}: If '{n.name}' has no {side}_branch")
        m.graph.initializer.extend(g.initializer)
        for b in g.node:
            b.name = f"{n.name}/{side}/{b.name}"
            nodes.append(b)
        for src, dst_name in zip(g.output, n.output):
            nodes.append(onnx.helper.make_node("Identity", [src.name], [dst_name],
                                               name=f"{n.name}/{side}/out:{dst_name}"))
        done += 1
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    onnx.save(m, dst)
    print(done)


def attr(n, name, default):
    for a in n.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


def exact_flops(n, shapes, init_shapes):
    """The FLOPs of one Conv/ConvInteger/MatMul/MatMulInteger/Gemm node, or None."""
    def shp(name):
        return shapes.get(name) or init_shapes.get(name)
    if n.op_type in ("Conv", "ConvInteger"):
        y, w = shp(n.output[0]), shp(n.input[1])
        if y is None or w is None:
            return None
        f = 2 * prod(y) * prod(w[1:])
        if n.op_type == "Conv" and len(n.input) > 2 and n.input[2]:
            f += prod(y)
        return f
    if n.op_type in ("MatMul", "MatMulInteger"):
        a, y = shp(n.input[0]), shp(n.output[0])
        if a is None or y is None:
            return None
        return 2 * prod(y) * a[-1]
    if n.op_type == "Gemm":
        a, y = shp(n.input[0]), shp(n.output[0])
        if a is None or y is None:
            return None
        k = a[0] if attr(n, "transA", 0) else a[-1]
        f = 2 * prod(y) * k
        if len(n.input) > 2 and n.input[2]:
            f += prod(y)
        return f
    return None


def exact(path, shapes_path, roof_path):
    m = load(path)
    with open(shapes_path) as f:
        shapes = json.load(f)
    with open(roof_path) as f:
        roof = json.load(f)
    init_shapes = {t.name: list(t.dims) for t in m.graph.initializer}
    for n in m.graph.node:  # weights held by Constant nodes
        if n.op_type == "Constant":
            v = attr(n, "value", None)
            if v is not None:
                init_shapes[n.output[0]] = list(v.dims)
    layers = roof.get("rows")
    if layers is None:
        die(f"{roof_path}: no 'rows' in roofline's JSON")
    by_name = {}
    for lay in layers:
        by_name.setdefault(lay.get("name"), lay)
    undefined = sum(1 for lay in layers if lay.get("bound") == "undefined")
    k = n_all = 0
    shown = 0
    for i, n in enumerate(m.graph.node):
        if n.op_type not in ("Conv", "ConvInteger", "MatMul", "MatMulInteger", "Gemm"):
            continue
        n_all += 1
        want = exact_flops(n, shapes, init_shapes)
        if want is None:
            die(f"{path}: ORT reported no shape for node '{n.name}' ({n.op_type})")
        name = n.name or f"{n.op_type}_{i}"
        lay = by_name.get(name)
        got = None if lay is None or lay.get("bound") == "undefined" else lay.get("flops")
        if got == want:
            k += 1
        elif shown < 3:
            print(f"  {n.op_type} '{name}': roofline {got}, exact {want}", file=sys.stderr)
            shown += 1
    print(k, n_all, undefined, len(layers))


def coverage(roof_path):
    """measured (or folded) layers / all, % of the FLOPs measured, the pass time (s) of --measure,
    and how many of the rows were folded at load."""
    with open(roof_path) as f:
        roof = json.load(f)
    rows = roof.get("rows")
    tot = roof.get("totals", {}).get("measured")
    if rows is None or tot is None:
        die(f"{roof_path}: no rows or totals.measured in roofline's --measure JSON")
    # a row folded at load (a constant computed once, as ONNX Runtime folds it) has no time in
    # the pass: accounted for, and counted apart
    folded = [r for r in rows if "folded: a constant" in (r.get("shape") or "")]
    ran = [r for r in rows if "measured" in r or r in folded]
    n_meas = len(ran)
    fl = sum(r.get("flops", 0) for r in rows)
    fl_meas = sum(r.get("flops", 0) for r in ran)
    wall = tot.get("wall_s")
    if wall is None and n_meas == len(rows):
        die(f"{roof_path}: no totals.measured.wall_s")
    if wall is None:  # a partial pass has no whole-pass time: the layers that ran, never compared
        wall = tot.get("time_s", 0.0)
    print(n_meas, len(rows), f"{100.0 * fl_meas / fl if fl else 0.0:.1f}", wall, len(folded))


def main():
    a = sys.argv[1:]
    if a[:1] == ["spec"] and len(a) == 3:
        spec(a[1], a[2])
    elif a[:1] == ["expose"] and len(a) == 3:
        expose(a[1], a[2])
    elif a[:1] == ["inline"] and len(a) == 4:
        inline(a[1], a[2], a[3])
    elif a[:1] == ["exact"] and len(a) == 4:
        exact(a[1], a[2], a[3])
    elif a[:1] == ["coverage"] and len(a) == 2:
        coverage(a[1])
    else:
        die("usage: spec MODEL SETTINGS | expose MODEL OUT | inline MODEL SHAPES OUT | "
            "exact MODEL SHAPES ROOF | coverage ROOF")


if __name__ == "__main__":
    main()
