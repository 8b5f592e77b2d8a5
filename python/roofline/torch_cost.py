"""roofline.torch_cost — what one PyTorch module or functional call costs, by the library's rules.

A module (its kind, input shapes, dtypes and attributes) becomes the operations rf_op_cost
knows (docs/cost-model.md): convolutions, linear, normalisations, activations, pooling,
embedding, attention, recurrent layers, padding and Resize, fused blocks; dropout, identity and
flatten cost nothing. Functional calls (F.relu, +, matmul) are costed the same way. Used by
roofline.torch (the analyzer times; this costs); never prints.
"""
import torch
from torch import nn

import roofline as _rf


_DT = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
       torch.int64: "I64", torch.int32: "I32", torch.int8: "I8", torch.uint8: "U8",
       torch.bool: "BOOL"}



def _t(x, weight=False):
    return (tuple(x.shape), _DT.get(x.dtype, "F32"), weight)


def _pair(v, n):
    return list(v) if isinstance(v, (tuple, list)) else [v] * n


_ACT = {nn.ReLU: "Relu", nn.Sigmoid: "Sigmoid", nn.Tanh: "Tanh", nn.GELU: "Gelu",
        nn.SiLU: "Silu", nn.Hardswish: "HardSwish", nn.Hardsigmoid: "HardSigmoid", nn.ELU: "Elu",
        nn.SELU: "Selu", nn.Softplus: "Softplus", nn.Mish: "Mish", nn.LeakyReLU: "LeakyRelu",
        nn.ReLU6: "Clip", nn.Hardtanh: "Clip", nn.CELU: "Elu", nn.RReLU: "LeakyRelu",
        # 1 FLOP per element like every activation (docs/cost-model.md "Activations")
        nn.Softsign: "Relu", nn.LogSigmoid: "Sigmoid", nn.Threshold: "Relu",
        nn.Tanhshrink: "Tanh", nn.Softshrink: "Relu", nn.Hardshrink: "Relu"}
_FREE = (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout,
         nn.FeatureAlphaDropout, nn.Identity,
         nn.Flatten, nn.Unflatten)


def _conv(m, x):
    n = x.dim() - 2
    ins = [_t(x), _t(m.weight, True)] + ([_t(m.bias, True)] if m.bias is not None else [])
    a = {"kernel_shape": _pair(m.kernel_size, n), "strides": _pair(m.stride, n),
         "dilations": _pair(m.dilation, n), "group": m.groups}
    if isinstance(m.padding, str):
        a["auto_pad"] = "VALID" if m.padding == "valid" else "SAME_UPPER"
    else:
        a["pads"] = _pair(m.padding, n) * 2
    if isinstance(m, nn.modules.conv._ConvTransposeNd):
        a["output_padding"] = _pair(m.output_padding, n)
        return [("ConvTranspose", ins, a)]
    return [("Conv", ins, a)]


def _linear(m, x):
    rows = x.numel() // x.shape[-1] if x.dim() else 1
    ins = [((rows, x.shape[-1]), _DT.get(x.dtype, "F32"), False), _t(m.weight, True)]
    if m.bias is not None:
        ins.append(_t(m.bias, True))
    return [("Gemm", ins, {"transB": 1})]


def _norm(m, x):
    params = [_t(p, True) for p in (m.weight, m.bias) if p is not None]
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        c = (x.shape[1],)
        ins = [_t(x)] + [(c, "F32", True)] * 4  # scale, bias, running mean and variance
        return [("BatchNormalization", ins, {})]
    if isinstance(m, nn.LayerNorm):
        return [("LayerNormalization", [_t(x)] + params,
                 {"axis": -len(m.normalized_shape)})]
    if isinstance(m, nn.GroupNorm):
        return [("GroupNormalization", [_t(x)] + params, {"num_groups": m.num_groups})]
    return [("InstanceNormalization", [_t(x)] + params, {})]


def _pool(m, x):
    n = x.dim() - 2
    if isinstance(m, (nn.modules.pooling._AdaptiveAvgPoolNd,
                      nn.modules.pooling._AdaptiveMaxPoolNd)):
        avg = isinstance(m, nn.modules.pooling._AdaptiveAvgPoolNd)
        out = [o if o is not None else i
               for o, i in zip(_pair(m.output_size, n), x.shape[2:])]
        if all(o == 1 for o in out):
            return [("GlobalAveragePool" if avg else "GlobalMaxPool", [_t(x)], {})]
        stride = [max(1, i // o) for i, o in zip(x.shape[2:], out)]
        kernel = [i - (o - 1) * s for i, o, s in zip(x.shape[2:], out, stride)]
        return [("AveragePool" if avg else "MaxPool", [_t(x)],
                 {"kernel_shape": kernel, "strides": stride})]
    avg = isinstance(m, nn.modules.pooling._AvgPoolNd)
    k = _pair(m.kernel_size, n)
    a = {"kernel_shape": k, "strides": _pair(m.stride or m.kernel_size, n),
         "pads": _pair(m.padding, n) * 2, "ceil_mode": int(m.ceil_mode)}
    if not avg:
        a["dilations"] = _pair(m.dilation, n)
    return [("AveragePool" if avg else "MaxPool", [_t(x)], a)]


def _mha(m, args, kwargs):
    q = args[0]
    k = args[1] if len(args) > 1 else kwargs.get("key", q)
    v = args[2] if len(args) > 2 else kwargs.get("value", k)
    if m.batch_first and q.dim() == 3:
        nb, lq, e = q.shape
        s = k.shape[1]
    elif q.dim() == 3:
        lq, nb, e = q.shape
        s = k.shape[0]
    else:
        nb, (lq, e), s = 1, q.shape, k.shape[0]
    h = m.num_heads
    d = e // h
    dt = _DT.get(q.dtype, "F32")
    ops = []
    if m.in_proj_weight is not None and q is k and k is v:  # one fused projection
        ops.append(("Gemm", [((nb * lq, e), dt, False), _t(m.in_proj_weight, True)]
                    + ([_t(m.in_proj_bias, True)] if m.in_proj_bias is not None else []),
                    {"transB": 1}))
    else:
        ws = ([m.in_proj_weight[i * e:(i + 1) * e] for i in range(3)]
              if m.in_proj_weight is not None else
              [m.q_proj_weight, m.k_proj_weight, m.v_proj_weight])
        for w, rows in zip(ws, (nb * lq, nb * s, nb * s)):
            ops.append(("Gemm", [((rows, w.shape[1]), dt, False), ((e, w.shape[1]), dt, True)]
                        + ([((e,), dt, True)] if m.in_proj_bias is not None else []),
                        {"transB": 1}))
    bh = nb * h
    ops.append(("Div", [((bh, lq, d), dt, False), ((1,), dt, False)], {}))  # q / sqrt(d)
    ops.append(("MatMul", [((bh, lq, d), dt, False), ((bh, d, s), dt, False)], {}))
    ops.append(("Softmax", [((bh, lq, s), dt, False)], {"axis": -1}))
    ops.append(("MatMul", [((bh, lq, s), dt, False), ((bh, s, d), dt, False)], {}))
    ops.append(("Gemm", [((nb * lq, e), dt, False), _t(m.out_proj.weight, True)]
                + ([_t(m.out_proj.bias, True)] if m.out_proj.bias is not None else []),
                {"transB": 1}))
    return ops


# rf_cost's matmul_conv_flops: the matrix work without bias adds, which torch.profiler counts
_MATRIX = ("Conv", "ConvTranspose", "Gemm", "MatMul")


def _pad(m, x):
    p = list(m.padding) if isinstance(m.padding, (tuple, list)) else [m.padding] * 2 * (x.dim() - 2)
    k = len(p) // 2  # torch: (last_begin, last_end, second-to-last_begin, ...)
    begin, end = [0] * x.dim(), [0] * x.dim()
    for j in range(k):
        begin[x.dim() - 1 - j], end[x.dim() - 1 - j] = p[2 * j], p[2 * j + 1]
    return [("Pad", [_t(x)], {"pads": begin + end})]


def _resize(m, x, out):
    mode = {"nearest": "nearest", "linear": "linear", "bilinear": "linear",
            "trilinear": "linear", "bicubic": "cubic"}.get(m.mode, "nearest")
    shape = tuple(out.shape)
    return [("Resize", [_t(x), None, None, ((len(shape),), "I64", False, shape)], {"mode": mode})]


def _shuffle(m, x):
    """PixelShuffle, PixelUnshuffle and ChannelShuffle are one copy through a transpose of a view
    (ONNX DepthToSpace / SpaceToDepth in CRD order): "Data movement"."""
    n, c = x.shape[0], x.shape[1]
    rest = tuple(x.shape[2:])
    if isinstance(m, nn.PixelShuffle):
        r = m.upscale_factor
        h, w = rest[-2:]
        return [("Transpose", [((n, c // (r * r), r, r, h, w), _DT.get(x.dtype, "F32"), False)],
                 {"perm": [0, 1, 4, 2, 5, 3]})]
    if isinstance(m, nn.PixelUnshuffle):
        r = m.downscale_factor
        h, w = rest[-2:]
        return [("Transpose", [((n, c, h // r, r, w // r, r), _DT.get(x.dtype, "F32"), False)],
                 {"perm": [0, 1, 3, 5, 2, 4]})]
    g = m.groups
    return [("Transpose", [((n, g, c // g) + rest, _DT.get(x.dtype, "F32"), False)],
             {"perm": [0, 2, 1] + list(range(3, 3 + len(rest)))})]


def _bytes(t):
    return t.numel() * t.element_size() if torch.is_tensor(t) else 0


def _tensors(x):
    """The tensors in x, nested tuples and lists flattened (an LSTM returns (y, (h, c)))."""
    if torch.is_tensor(x):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    return []


def _io_bytes(m, args, out):
    """A fused module's bytes (docs/cost-model.md "Bytes"): its tensor inputs, parameters and
    outputs once each, not the intermediates of the operations its FLOPs are counted by."""
    return (sum(_bytes(a) for a in _tensors(args))
            + sum(_bytes(p) for p in m.parameters(recurse=False))
            + sum(_bytes(o) for o in _tensors(out)))


def _rnn(m, x):
    """RNN, LSTM, GRU and their cells, per layer and direction: the input projection of every step
    as one Gemm, the recurrent projection (the same FLOPs as one step at a time), the bias adds
    and the gates' elementwise work (LSTM: 3 sigmoids, 2 tanh, 3 products, 1 sum per hidden unit
    and step; GRU: 2 sigmoids, 1 tanh, r*(W_hn h), the sums and (1-z)*n + z*h; RNN: the sum and
    tanh or relu)."""
    if not torch.is_tensor(x):
        return None  # a PackedSequence: lengths vary per sequence
    dt = _dt(x)
    cell = isinstance(m, nn.RNNCellBase)
    h = m.hidden_size
    if cell:
        steps, batch = 1, (x.shape[0] if x.dim() == 2 else 1)
        layers, dirs, size_in = 1, 1, m.input_size
    else:
        steps, batch = ((x.shape[1], x.shape[0]) if m.batch_first else (x.shape[0], x.shape[1])) \
            if x.dim() == 3 else (x.shape[0], 1)
        layers, dirs, size_in = m.num_layers, 2 if m.bidirectional else 1, m.input_size
    kind = type(m).__name__.replace("Cell", "")
    g = {"LSTM": 4, "GRU": 3}.get(kind, 1)
    n = steps * batch
    v = lambda k: ((n, k * h), dt, False)  # noqa: E731
    ops = []
    for layer in range(layers):
        k_in = size_in if layer == 0 else h * dirs
        for _ in range(dirs):
            ops.append(("Gemm", [((n, k_in), dt, False), ((g * h, k_in), dt, True),
                                 ((g * h,), dt, True)], {"transB": 1}))
            ops.append(("Gemm", [((n, h), dt, False), ((g * h, h), dt, True),
                                 ((g * h,), dt, True)], {"transB": 1}))
            if kind == "LSTM":
                ops += [("Add", [v(4), v(4)], {}), ("Sigmoid", [v(3)], {}),
                        ("Tanh", [v(2)], {}), ("Mul", [v(3), v(3)], {}), ("Add", [v(1), v(1)], {})]
            elif kind == "GRU":
                ops += [("Add", [v(2), v(2)], {}), ("Sigmoid", [v(2)], {}),
                        ("Mul", [v(1), v(1)], {}), ("Add", [v(1), v(1)], {}), ("Tanh", [v(1)], {}),
                        ("Sub", [v(1), v(1)], {}), ("Mul", [v(2), v(2)], {}),
                        ("Add", [v(1), v(1)], {})]
            else:
                act = "Relu" if getattr(m, "nonlinearity", "tanh") == "relu" else "Tanh"
                ops += [("Add", [v(1), v(1)], {}), (act, [v(1)], {})]
    return ops


def _dt(x):
    return _DT.get(x.dtype, "F32")


def _fused(m, args, out):
    """(operations, True) for modules computed in one kernel whose FLOPs are those of a few
    cost-model operations and whose bytes are its inputs, parameters and outputs (_io_bytes);
    None when `m` is not such a module."""
    x = args[0] if args else None
    if isinstance(m, (nn.RNNBase, nn.RNNCellBase)):
        return _rnn(m, x)
    if isinstance(m, nn.Bilinear):  # y_k = x1 A_k x2 + b_k: x1·A, then ·x2 summed, then + b
        x2 = args[1]
        rows = x.numel() // x.shape[-1]
        o, i1, i2 = m.weight.shape
        ops = [("MatMul", [((rows, i1), _dt(x), False), ((i1, o * i2), _dt(x), True)], {}),
               ("Mul", [((rows, o, i2), _dt(x), False), ((rows, 1, i2), _dt(x2), False)], {}),
               ("ReduceSum", [((rows, o, i2), _dt(x), False)], {"axes": [-1], "keepdims": 0})]
        if m.bias is not None:
            ops.append(("Add", [((rows, o), _dt(x), False), ((o,), _dt(x), True)], {}))
        return ops
    if isinstance(m, nn.GLU):  # a * sigmoid(b) over the two halves
        half = list(x.shape)
        half[m.dim] //= 2
        h = (tuple(half), _dt(x), False)
        return [("Sigmoid", [h], {}), ("Mul", [h, h], {})]
    if isinstance(m, (nn.LocalResponseNorm, nn.CrossMapLRN2d)):
        # x / (k + alpha/size · sum of squares over `size` channels)^beta: a square, a
        # `size`-tap sum (a pooling window over channels), then a power and a division
        n, c = x.shape[0], x.shape[1]
        sp = x.numel() // max(1, n * c)
        v = ((n, 1, c, sp), _dt(x), False)
        t = (tuple(x.shape), _dt(x), False)
        return [("Mul", [t, t], {}),
                ("AveragePool", [v], {"kernel_shape": [m.size, 1], "strides": [1, 1],
                                      "pads": [m.size // 2, 0, (m.size - 1) // 2, 0]}),
                ("Pow", [t, ((1,), "F32", False)], {}), ("Div", [t, t], {})]
    if isinstance(m, nn.CosineSimilarity):  # x1·x2 / max(|x1|·|x2|, eps) along dim
        x2 = args[1]
        t = (tuple(torch.broadcast_shapes(x.shape, x2.shape)), _dt(x), False)
        red = {"axes": [m.dim], "keepdims": 0}
        return [("Mul", [t, t], {})] * 3 + [("ReduceSum", [t], red)] * 3 + \
            [("Mul", [(tuple(out.shape), _dt(x), False)] * 2, {}),
             ("Sqrt", [(tuple(out.shape), _dt(x), False)], {}),
             ("Div", [(tuple(out.shape), _dt(x), False)] * 2, {})]
    if isinstance(m, nn.PairwiseDistance):  # (sum |x1 - x2 + eps|^p)^(1/p) along the last axis
        t = (tuple(torch.broadcast_shapes(x.shape, args[1].shape)), _dt(x), False)
        o = (tuple(out.shape) or (1,), _dt(x), False)
        return [("Sub", [t, t], {}), ("Abs", [t], {}), ("Pow", [t, ((1,), "F32", False)], {}),
                ("ReduceSum", [t], {"axes": [-1], "keepdims": 0}),
                ("Pow", [o, ((1,), "F32", False)], {})]
    if isinstance(m, nn.Unfold):  # im2col: a copy into the patch matrix, no arithmetic
        return [("Identity", [(tuple(out.shape), _dt(x), False)], {})]
    if isinstance(m, nn.Fold):  # col2im: every patch element added into its place once
        t = (tuple(x.shape), _dt(x), False)
        return [("Add", [t, t], {})]
    if isinstance(m, (nn.MaxUnpool1d, nn.MaxUnpool2d, nn.MaxUnpool3d)):
        return [("Identity", [(tuple(out.shape), _dt(x), False)], {})]  # zero-fill + scatter
    if isinstance(m, nn.modules.loss._Loss):
        # the losses are elementwise over prediction and target, then a mean: one subtraction
        # (or log/compare) and one multiply-or-transcendental per element, then the reduction
        t = (tuple(x.shape), _dt(x), False)
        ops = [("Sub", [t, t], {}), ("Mul", [t, t], {}),
               ("ReduceMean", [t], {"keepdims": 0})]
        if isinstance(m, (nn.CrossEntropyLoss, nn.NLLLoss, nn.KLDivLoss, nn.BCELoss,
                          nn.BCEWithLogitsLoss, nn.PoissonNLLLoss, nn.GaussianNLLLoss,
                          nn.MultiLabelSoftMarginLoss, nn.SoftMarginLoss)):
            ops.insert(0, ("Softmax" if isinstance(m, nn.CrossEntropyLoss) else "Log", [t],
                           {"axis": 1} if isinstance(m, nn.CrossEntropyLoss) else {}))
        return ops
    return None


def module_ops(m, args, kwargs=None, out=None):
    """The operations (op_type, inputs, attrs) one call of module `m` on `args` (giving `out`)
    performs, in the cost model's terms; [] for modules that cost nothing; None when the kind is
    not known."""
    x = args[0] if args else None
    if isinstance(m, nn.Upsample) and torch.is_tensor(out):
        return _resize(m, x, out)
    if isinstance(m, (nn.modules.padding._ConstantPadNd, nn.modules.padding._ReflectionPadNd,
                      nn.modules.padding._ReplicationPadNd)):
        return _pad(m, x)
    if isinstance(m, nn.MultiheadAttention):
        return _mha(m, args, kwargs or {})
    if isinstance(m, _FREE):
        return []
    if isinstance(m, nn.modules.conv._ConvNd):
        return _conv(m, x)
    if isinstance(m, nn.Linear):
        return _linear(m, x)
    if isinstance(m, (nn.modules.batchnorm._BatchNorm, nn.LayerNorm, nn.GroupNorm,
                      nn.modules.instancenorm._InstanceNorm)):
        return _norm(m, x)
    if isinstance(m, (nn.modules.pooling._MaxPoolNd, nn.modules.pooling._AvgPoolNd,
                      nn.modules.pooling._AdaptiveAvgPoolNd,
                      nn.modules.pooling._AdaptiveMaxPoolNd)):
        return _pool(m, x)
    if isinstance(m, nn.PReLU):
        return [("PRelu", [_t(x), _t(m.weight, True)], {})]
    for cls, op in _ACT.items():
        if type(m) is cls:
            return [(op, [_t(x)], {})]
    if isinstance(m, (nn.Softmax, nn.LogSoftmax, nn.Softmin)):
        return [("Softmax", [_t(x)], {"axis": m.dim if m.dim is not None else -1})]
    if isinstance(m, nn.Embedding):
        return [("Gather", [_t(m.weight, True), _t(x)], {})]
    if isinstance(m, nn.EmbeddingBag):  # the rows of each bag gathered, then summed or averaged
        idx = x if x.dim() == 1 else x.reshape(-1)
        rows = (tuple(idx.shape) + (m.embedding_dim,), _dt(m.weight), False)
        red = "ReduceMax" if m.mode == "max" else "ReduceSum"
        bags = out.shape[0] if torch.is_tensor(out) else 1
        per = max(1, idx.numel() // max(1, bags))
        return [("Gather", [_t(m.weight, True), _t(idx)], {}),
                (red, [((bags, per, m.embedding_dim), _dt(m.weight), False)],
                 {"axes": [1], "keepdims": 0})]
    if isinstance(m, (nn.PixelShuffle, nn.PixelUnshuffle, nn.ChannelShuffle)):
        return _shuffle(m, x)
    if isinstance(m, nn.Softmax2d):
        return [("Softmax", [_t(x)], {"axis": -3})]
    if isinstance(m, (nn.LPPool1d, nn.LPPool2d)):
        n = x.dim() - 2
        k = _pair(m.kernel_size, n)
        return [("LpPool", [_t(x)], {"kernel_shape": k, "strides": _pair(m.stride or k, n),
                                      "p": int(m.norm_type)})]
    if isinstance(m, (nn.FractionalMaxPool2d, nn.FractionalMaxPool3d)) and torch.is_tensor(out):
        # pseudo-random window starts: the cost of a max pool with the same window and output
        n = x.dim() - 2
        k = _pair(m.kernel_size, n)
        o = list(out.shape[2:])
        st = [max(1, (i - kk) // max(1, oo - 1)) for i, kk, oo in zip(x.shape[2:], k, o)]
        return [("MaxPool", [_t(x)], {"kernel_shape": k, "strides": st})]
    return None


def cost_call(m, args, kwargs=None, out=None):
    """(flops, bytes, matmul_flops, known) of one call, summed over its operations (a fused
    module: the FLOPs of its operations, the bytes of its inputs, parameters and outputs)."""
    fused = _fused(m, args, out)
    ops = fused if fused is not None else module_ops(m, args, kwargs, out)
    if ops is None:
        return 0.0, 0.0, 0.0, False
    f = b = mm = 0.0
    for op, ins, attrs in ops:
        c = _rf.op_cost(op, ins, attrs)
        if not c.known:
            return 0.0, 0.0, 0.0, False
        f, b = f + c.flops, b + c.bytes
        if op in _MATRIX:
            mm += c.matmul_flops
    if fused is not None:
        b = float(_io_bytes(m, args, out))
    return f, b, mm, True


# ---- functional calls: what a module's forward does through torch functions (out + identity,
# F.relu, x @ w) is not a module; with functional=True the analyzer sees them too, through a
# TorchFunctionMode active in passes of their own (so the modules' times carry no overhead).
_F_BINARY = {"add": "Add", "add_": "Add", "__add__": "Add", "__iadd__": "Add", "__radd__": "Add",
             "sub": "Sub", "sub_": "Sub", "__sub__": "Sub", "__isub__": "Sub", "__rsub__": "Sub",
             "mul": "Mul", "mul_": "Mul", "__mul__": "Mul", "__imul__": "Mul", "__rmul__": "Mul",
             "div": "Div", "div_": "Div", "__truediv__": "Div", "__itruediv__": "Div",
             "__rtruediv__": "Div", "pow": "Pow", "__pow__": "Pow", "maximum": "Max",
             "minimum": "Min", "where": "Where"}
_F_UNARY = {"relu": "Relu", "relu_": "Relu", "gelu": "Gelu", "silu": "Silu", "sigmoid": "Sigmoid",
            "tanh": "Tanh", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "rsqrt": "Sqrt",
            "hardswish": "HardSwish", "hardsigmoid": "HardSigmoid", "leaky_relu": "LeakyRelu",
            "elu": "Elu", "softplus": "Softplus", "mish": "Mish", "neg": "Neg", "abs": "Abs",
            "clamp": "Clip", "clip": "Clip", "hardtanh": "Clip", "relu6": "Clip", "erf": "Erf"}
# shape and view functions, dropout at inference, and metadata: no work of their own
_F_FREE = {"view", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "permute",
           "transpose", "t", "expand", "expand_as", "contiguous", "size", "dim", "__getitem__",
           "split", "chunk", "unbind", "narrow", "dropout", "detach", "to", "type", "float",
           "__get__", "numel", "is_floating_point", "__len__", "__iter__", "__bool__", "item",
           "__format__", "__repr__", "__hash__", "__eq__", "__ne__", "__lt__", "__gt__",
           "__le__", "__ge__", "__setitem__", "shape", "dtype", "device", "requires_grad",
           "is_nested", "_has_compatible_shallow_copy_type", "new_empty", "stride",
           "data_ptr", "storage_offset", "__contains__", "view_as", "reshape_as", "clone"}


def _arg_in(a):
    if torch.is_tensor(a):
        return (tuple(a.shape) or (1,), _DT.get(a.dtype, "F32"), False)
    return ((1,), "F32", False)  # a Python number: a scalar operand


def functional_ops(name, args, kwargs, out):
    """The cost-model operations of one torch function call at a module's level, [] for calls
    that cost nothing (views, metadata), None when the function is not known."""
    kwargs = kwargs or {}
    if name in _F_FREE:
        return []
    if name in _F_BINARY:
        return [(_F_BINARY[name], [_arg_in(a) for a in args[:2]], {})]
    if name in _F_UNARY and args and torch.is_tensor(args[0]):
        return [(_F_UNARY[name], [_arg_in(args[0])], {})]
    if name in ("softmax", "log_softmax") and args and torch.is_tensor(args[0]):
        dim = kwargs.get("dim", args[1] if len(args) > 1 else -1)
        return [("Softmax", [_arg_in(args[0])], {"axis": int(dim if dim is not None else -1)})]
    if name in ("matmul", "__matmul__", "mm", "bmm") and len(args) >= 2:
        return [("MatMul", [_arg_in(args[0]), _arg_in(args[1])], {})]
    if name == "linear" and len(args) >= 2:
        x, w = args[0], args[1]
        b = args[2] if len(args) > 2 else kwargs.get("bias")
        rows = x.numel() // x.shape[-1] if x.dim() else 1
        ins = [((rows, x.shape[-1]), _DT.get(x.dtype, "F32"), False), _t(w, True)]
        return [("Gemm", ins + ([_t(b, True)] if torch.is_tensor(b) else []), {"transB": 1})]
    if name == "layer_norm" and args and torch.is_tensor(args[0]):
        shape = args[1] if len(args) > 1 else kwargs.get("normalized_shape")
        return [("LayerNormalization", [_arg_in(args[0])], {"axis": -len(tuple(shape))})]
    if name in ("cat", "concat", "stack") and args and isinstance(args[0], (list, tuple)):
        ins = [_arg_in(a) for a in args[0] if torch.is_tensor(a)]
        if name == "stack":  # a stack is a concat of unsqueezed tensors: same copy
            ins = [((1,) + i[0], i[1], i[2]) for i in ins]
        return [("Concat", ins, {"axis": 0})] if ins else []
    if name in ("mean", "sum", "amax", "amin") and args and torch.is_tensor(args[0]):
        op = {"mean": "ReduceMean", "sum": "ReduceSum", "amax": "ReduceMax",
              "amin": "ReduceMin"}[name]
        dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
        a = {"keepdims": int(bool(kwargs.get("keepdim", False)))}
        if dim is not None:
            a["axes"] = list(dim) if isinstance(dim, (list, tuple)) else [int(dim)]
        return [(op, [_arg_in(args[0])], a)]
    if name in ("adaptive_avg_pool2d", "avg_pool2d", "max_pool2d") and torch.is_tensor(out):
        x = args[0]
        if tuple(out.shape[2:]) == (1, 1):
            return [("GlobalAveragePool" if "avg" in name else "GlobalMaxPool", [_arg_in(x)],
                     {})]
        return None
    return None


def _functional_cost(name, args, kwargs, out):
    ops = functional_ops(name, args, kwargs, out)
    if ops is None:
        return None
    f = b = 0.0
    for op, ins, attrs in ops:
        c = _rf.op_cost(op, ins, attrs)
        if not c.known:
            return None
        f, b = f + c.flops, b + c.bytes
    return f, b
