"""roofline.torch — fasterbench's RooflineAnalyzer interface on roofline's cost model and roofs.

Every leaf module (and nn.MultiheadAttention as a whole) is timed with forward hooks and costed
through the library's rf_op_cost from its kind, shapes, dtypes and attributes (docs/cost-model.md):
convolutions, linear, normalisations, activations, pooling, embedding, attention; dropout,
identity and flatten cost nothing (bound "none"). Functional calls made inside a module's forward
(F.relu, +) are not modules and are not seen, as with any module hook. Never prints.
Upsample (Resize, to the output's shape) and the padding layers (Pad) move data by the rules of
"Resize" and "Data movement".
"""
import statistics
import time
from dataclasses import dataclass

import torch
from torch import nn

import roofline as _rf

_DT = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
       torch.int64: "I64", torch.int32: "I32", torch.int8: "I8", torch.uint8: "U8",
       torch.bool: "BOOL"}


@dataclass
class LayerResult:
    """One module: fasterbench's fields plus its name and type."""
    name: str
    type: str
    flops: float
    bytes_moved: float
    time_s: float
    arithmetic_intensity: float
    achieved_gflops: float
    bound: str
    utilization_pct: float
    matmul_flops: float = 0.0  # conv/gemm/matmul FLOPs without bias adds (torch.profiler's)
    calls: int = 1


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
_FREE = (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout, nn.Identity,
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
    return None


def cost_call(m, args, kwargs=None, out=None):
    """(flops, bytes, matmul_flops, known) of one call, summed over its operations."""
    ops = module_ops(m, args, kwargs, out)
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
    return f, b, mm, True


def _leaves(model):
    """(name, module) of every leaf, MultiheadAttention taken whole (its out_proj is not called
    as a module)."""
    skip = set()
    for name, m in model.named_modules():
        if any(name.startswith(s + ".") for s in skip):
            continue
        if isinstance(m, nn.MultiheadAttention):
            skip.add(name)
            yield name, m
        elif not list(m.children()):
            yield name, m


class RooflineAnalyzer:
    """fasterbench's RooflineAnalyzer: profile(), summary(), results, plot().

    `peaks`: a roofline.Machine, a datasheet name, or None for this machine measured."""

    def __init__(self, model, sample, peaks=None):
        self.model, self.sample = model, sample
        self.machine = _rf._machine_or_measured(peaks)
        self.results = []
        self._result = None

    def _run(self, device):
        s = self.sample
        if isinstance(s, (tuple, list)):
            return self.model(*[t.to(device) for t in s])
        return self.model(s.to(device))

    def profile(self, device="cpu", warmup=5, steps=20):
        """Time every leaf module over `steps` forward passes (after `warmup`), cost each from the
        shapes it saw, and evaluate it against the machine. Returns `results`."""
        model, leaves = self.model, list(_leaves(self.model))
        sync = torch.cuda.synchronize if str(device).startswith("cuda") else (lambda: None)
        calls, times, starts, handles = {}, {}, {}, []

        def pre(name):
            def hook(mod, args, kwargs=None):
                sync()
                starts[name] = time.perf_counter()
            return hook

        def post(name, mod):
            def hook(m_, args, out):
                sync()
                times[name][-1] += time.perf_counter() - starts.pop(name, time.perf_counter())
                if record[0]:
                    calls[name].append(cost_call(mod, args, None, out))
            return hook

        record = [False]
        for name, m in leaves:
            calls[name], times[name] = [], []
            handles.append(m.register_forward_pre_hook(pre(name)))
            handles.append(m.register_forward_hook(post(name, m)))
        was_training = model.training
        model.to(device).eval()
        try:
            with torch.no_grad():
                for i in range(warmup + steps):
                    for name in times:
                        times[name].append(0.0)
                    record[0] = i == warmup  # cost the calls of one step
                    self._run(device)
        finally:
            for h in handles:
                h.remove()
            model.train(was_training)
        self._evaluate(leaves, calls, {n: t[warmup:] for n, t in times.items()})
        return self.results

    def _evaluate(self, leaves, calls, times):
        rows = []
        for name, m in leaves:
            cs = calls[name]
            if not cs:
                continue  # never called as a module
            known = all(c[3] for c in cs)
            f, b, mm = (sum(c[k] for c in cs) for k in range(3))
            t = statistics.median(times[name]) if times[name] else 0.0
            rows.append([name or type(m).__name__, type(m).__name__, f, b, t, mm, known, len(cs)])
        ev = [r for r in rows if r[6] and (r[2] or r[3])]
        self._result = _rf.analyze([(r[0], r[2], r[3], r[1]) for r in ev], self.machine,
                                   title=type(self.model).__name__)
        by_name = {row.name: row for row in self._result.rows}
        self.results = []
        for name, typ, f, b, t, mm, known, n in rows:
            row = by_name.get(name)
            ai = f / b if b else (float("inf") if f else 0.0)
            gf = f / t / 1e9 if t > 0 else 0.0
            bound = row.bound if row else ("undefined" if not known else "none")
            att = row.attainable_flops_per_s if row else 0.0
            util = 100.0 * gf * 1e9 / att if att else 0.0
            self.results.append(LayerResult(name, typ, f, b, t, ai, gf, bound, util, mm, n))
        return self.results

    def summary(self, top=10):
        """The `top` slowest modules and the totals, as text."""
        rs = sorted(self.results, key=lambda r: r.time_s, reverse=True)[:top]
        total_t = sum(r.time_s for r in self.results)
        total_f = sum(r.flops for r in self.results)
        m = self.machine
        lines = ["roofline of %s on %s [%s]: %s %.3g GFLOP/s, %s %.3g GB/s, ridge %.3g FLOP/B"
                 % (type(self.model).__name__, " ".join((m.description or m.name).split()),
                    m.provenance,
                    m.compute["name"], m.peak_flops_per_s / 1e9, m.memory["name"],
                    m.bw_bytes_per_s / 1e9, m.ridge_ai),
                 "%-28s %-18s %10s %10s %8s %9s %7s" % ("module", "type", "time", "GFLOP/s", "AI",
                                                       "bound", "util."),
                 ]
        for r in rs:
            lines.append("%-28s %-18s %8.3f ms %10.2f %8.2f %9s %6.1f%%" % (
                r.name[-28:], r.type[:18], r.time_s * 1e3, r.achieved_gflops,
                r.arithmetic_intensity if r.arithmetic_intensity != float("inf") else 0.0,
                r.bound, r.utilization_pct))
        lines.append("total: %d modules, %.3g GFLOP, %.3f ms measured (sum of modules), "
                     "%.2f GFLOP/s"
                     % (len(self.results), total_f / 1e9, total_t * 1e3,
                        total_f / total_t / 1e9 if total_t else 0.0))
        return "\n".join(lines)

    def plot(self, path):
        """The roofline chart of the modules (SVG or HTML by the name), drawn by the library.
        The points are each module's estimate on the roof (measured points: see docs/python.md)."""
        if self._result is None:
            raise _rf.RooflineError("profile() first")
        return self._result.plot(path)
