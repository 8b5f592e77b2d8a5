"""roofline — roofline performance analysis from Python, over the C library (libroofline.so).

Machines (`machine("a100-sxm4-80gb")`, `peaks(quick=True)` for this one measured), `analyze` for
a list of operations, `profile` for a model file, `op_cost` for one operation by the cost model
(docs/cost-model.md), results as plain Python objects, charts drawn by the library
(`result.plot("chart.html")`). `roofline.torch.RooflineAnalyzer` profiles a PyTorch model module by
module. Standard library only (ctypes); every figure comes from the C library.
"""
import ctypes
import json
import operator

from ._lib import (ATTR_FLOAT, ATTR_FLOATS, ATTR_INT, ATTR_INTS, ATTR_STRING, CEILING_BANDWIDTH,
                   CEILING_COMPUTE, Attr, Context, LayerCost, Measured, ModelOpts, OpInput, ProfileHead,
                   RooflineError, ShapeBinding, c_double, c_int, c_int64, c_size_t, c_uint32,
                   c_void_p, lib)

__all__ = ["Machine", "Result", "Row", "OpCost", "RooflineError", "machine", "peaks", "analyze",
           "profile", "op_cost", "version"]


_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1
_DIM_MAX = 2**30  # --batch and --seq: the CLI's bound


def _int(what, v, lo, hi):
    """`v` as an int in [lo, hi], checked before it reaches C (ctypes would wrap 2**70 to 0
    silently): TypeError when it is not a whole number, OverflowError naming `what` when it is
    out of range."""
    try:
        n = operator.index(v)
    except TypeError:
        if not (isinstance(v, float) and v.is_integer()):
            raise TypeError("%s must be a whole number, got %r" % (what, v)) from None
        n = int(v)
    if not lo <= n <= hi:
        raise OverflowError("%s = %d is out of range (%d to %d)" % (what, n, lo, hi))
    return n


def _handle(obj, kind):
    """The C handle of a Machine or Result; ValueError once it has been freed (C would be handed
    NULL)."""
    ptr = getattr(obj, "_ptr", None)
    if not ptr:
        raise ValueError("this %s has been freed" % kind)
    return ptr


def version():
    """The C library's version ("0.1.0")."""
    return lib.rf_version().decode()


class Machine:
    """A machine: its ceilings (plain dicts, SI base units) and the default roof.

    Holds the C rf_machine for the analyses; `compute` and `memory` pick the ceilings used (a
    name or a precision prefix such as "fp16"; None: the machine's default)."""

    def __init__(self, ptr, compute=None, memory=None):
        self._ptr = ptr
        with Context() as ctx:
            doc = json.loads(ctx.render(lib.rf_machine_write_json, ptr, 0))
            self.compute_index, self.memory_index = self._select(ctx, compute, memory)
        self.name = doc["name"]
        self.description = doc.get("description", "")
        self.kind = doc.get("kind", "")
        self.provenance = doc.get("provenance", "")
        self.ceilings = doc["ceilings"]
        self.compute = self.ceilings[self.compute_index]
        self.memory = self.ceilings[self.memory_index]
        self.peak_flops_per_s = self.compute["value"]
        self.bw_bytes_per_s = self.memory["value"]
        self.ridge_ai = self.peak_flops_per_s / self.bw_bytes_per_s

    def _select(self, ctx, compute, memory):
        ci, bi = c_size_t(), c_size_t()
        ctx.check(lib.rf_machine_select(ctx.ptr, self._ptr, CEILING_COMPUTE,
                                        compute.encode() if compute else None, ctypes.byref(ci)))
        ctx.check(lib.rf_machine_select(ctx.ptr, self._ptr, CEILING_BANDWIDTH,
                                        memory.encode() if memory else None, ctypes.byref(bi)))
        return ci.value, bi.value

    def free(self):
        """Release the C machine now; using it afterwards raises ValueError."""
        if getattr(self, "_ptr", None):
            lib.rf_machine_free(self._ptr)
        self._ptr = None

    __del__ = free

    def __repr__(self):
        return "Machine(%r, %s %.3g FLOP/s, %s %.3g B/s, %s)" % (
            self.name, self.compute["name"], self.peak_flops_per_s, self.memory["name"],
            self.bw_bytes_per_s, self.provenance)


def machine(name, compute=None, memory=None):
    """A datasheet machine by name or alias ("a100-sxm4-80gb", "h100") or a machine file path."""
    with Context() as ctx:
        p = c_void_p()
        ctx.check(lib.rf_machine_resolve(ctx.ptr, name.encode(), ctypes.byref(p)))
    return Machine(p, compute, memory)


def peaks(quick=True, compute=None, memory=None):
    """This machine, measured (the cached measurement, else a quick run now, which is cached).

    `quick` is accepted for fasterbench's signature; the full run is `roofline peaks`."""
    del quick
    with Context() as ctx:
        p = c_void_p()
        ctx.check(lib.rf_probe_measured(ctx.ptr, ctypes.byref(p)))
    return Machine(p, compute, memory)


class Row:
    """One evaluated operation: the keys of the result JSON as attributes (name, op, flops, bytes,
    ai, attainable_flops_per_s, bound, efficiency, time_s, time_share, shape)."""

    def __init__(self, d):
        self.__dict__.update(d)

    def __repr__(self):
        return "Row(%r, flops=%g, bytes=%g, bound=%r)" % (self.name, self.flops, self.bytes,
                                                            self.bound)


class Result:
    """An analysis: title, machine, roof, rows (Row), totals (dict) — the document `--json`
    prints, as Python objects. `json` is that text; `plot(path)` draws it; `table()` the text."""

    def __init__(self, ptr, machine_, owner=None):
        self._ptr, self._machine, self._owner = ptr, machine_, owner
        with Context() as ctx:
            self.json = ctx.render(lib.rf_report_json, ptr)
        doc = json.loads(self.json)
        self.title = doc["title"]
        self.machine = doc["machine"]
        self.roof = doc["roof"]
        self.rows = [Row(r) for r in doc["rows"]]
        self.totals = doc["totals"]

    def to_dict(self):
        return json.loads(self.json)

    def table(self, width=100):
        """The aligned text table (as `roofline analyze` prints it)."""

        class Opts(ctypes.Structure):
            _fields_ = [("width", ctypes.c_uint), ("utf8", c_int), ("color", c_int),
                        ("chart_height", ctypes.c_uint)]

        o = Opts(_int("width", width, 0, 2**31), 0, 0, 0)
        ptr = _handle(self, "Result")
        with Context() as ctx:
            return ctx.render(lib.rf_report_table, ptr, ctypes.byref(o))

    def plot(self, path, others=()):
        """Draw the roofline chart into `path`: an interactive HTML page (.html) or SVG (.svg),
        with every ceiling of the machine; `others` are more Results drawn as series."""
        results = [self] + list(others)
        arr = (c_void_p * len(results))(*[_handle(r, "Result") for r in results])
        fn = lib.rf_report_chart_html if path.endswith(".html") else lib.rf_report_chart_svg
        if not path.endswith((".html", ".svg")):
            raise RooflineError("%s: the chart is .svg or .html" % path)
        m = _handle(self._machine, "Machine") if self._machine else None
        with Context() as ctx:
            text = ctx.render(fn, arr, len(results), m, None)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def free(self):
        """Release the C result now; table() and plot() afterwards raise ValueError."""
        if getattr(self, "_ptr", None) and getattr(self, "_owner", None) is None:
            lib.rf_result_free(self._ptr)
        self._ptr, self._owner = None, None

    __del__ = free


_SORTS = {"input": 0, "time": 1, "ai": 2, "name": 3}


def _machine_or_measured(m):
    if m is None:
        return peaks(quick=True)
    if isinstance(m, str):
        return machine(m)
    return m


def analyze(ops, machine=None, sort="input", top=0, title="operations", interconnect=None):
    """Evaluate operations against a machine (a Machine, a name, or None: this one measured).

    `ops`: an iterable of (name, flops, bytes) tuples or dicts with those keys (bytes may be given
    as memory_bytes or bytes_moved). A dict with `time_s` (seconds; optionally `min_s`, `max_s`,
    `runs`) is a measured operation: its row gets achieved FLOP/s and utilization, and charts
    draw it filled under its estimate (as `analyze`'s time column). A dict with `net_bytes` sends
    that many bytes over the network: give `interconnect` (a link of the database, "nvlink4",
    "ib-ndr", ...) or a machine with a network ceiling, and the row is compute-, memory- or
    network-bound (docs/distributed.md), as `analyze --interconnect`. Returns a Result."""
    m = _machine_or_measured(machine)
    if sort not in _SORTS:
        raise ValueError("sort must be one of %s, got %r" % (", ".join(_SORTS), sort))
    top = _int("top", top, 0, 2**64 - 1)
    with Context() as ctx:
        mp, owned, net = _handle(m, "Machine"), None, None
        if interconnect is not None:  # a copy of the machine with the link as its network ceiling
            owned, ic = c_void_p(), c_void_p()
            ctx.check(lib.rf_machine_clone(ctx.ptr, m._ptr, ctypes.byref(owned)))
            mp = owned
            try:
                ctx.check(lib.rf_interconnect_find(ctx.ptr, interconnect.encode(),
                                                   ctypes.byref(ic)))
                ctx.check(lib.rf_machine_add_interconnect(ctx.ptr, owned, ic))
            except Exception:
                lib.rf_machine_free(owned)
                raise
            net = len(m.ceilings)
        else:
            net = next((i for i, c in enumerate(m.ceilings) if c.get("kind") == "network"), None)
        a = c_void_p()
        try:
            ctx.check(lib.rf_analysis_new(ctx.ptr, mp, m.compute_index, m.memory_index,
                                          _SORTS[sort], top, ctypes.byref(a)))
            if net is not None:
                ctx.check(lib.rf_analysis_set_network(a, mp, net))
            for op in ops:
                t, net_bytes = None, 0.0
                if isinstance(op, dict):
                    name, flops = op["name"], op["flops"]
                    nbytes = op.get("bytes", op.get("memory_bytes", op.get("bytes_moved")))
                    kind = op.get("op")
                    net_bytes = float(op.get("net_bytes", 0.0))
                    if op.get("time_s") is not None:
                        ts = float(op["time_s"])
                        t = Measured(ts, float(op.get("min_s", ts)), float(op.get("max_s", ts)),
                                     _int("runs", op.get("runs", 1), 0, 2**32 - 1))
                else:
                    (name, flops, nbytes), kind = op[:3], (op[3] if len(op) > 3 else None)
                nb = str(name).encode()
                kb = kind.encode() if kind else None
                ctx.check(lib.rf_analysis_add_net(a, nb, len(nb), kb, None, 0, float(flops),
                                                  float(nbytes), net_bytes,
                                                  ctypes.byref(t) if t is not None else None))
            r = c_void_p()
            ctx.check(lib.rf_analysis_finish(a, title.encode(), ctypes.byref(r)))
        finally:
            lib.rf_analysis_free(a)
            if owned is not None:
                lib.rf_machine_free(owned)
    return Result(r, m)


class _Profile:
    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        lib.rf_profile_free(self.ptr)


def profile(path, machine=None, batch=0, seq=0, inputs=None, dims=None):
    """Profile a model file (ONNX, GGUF, SafeTensors or a checkpoint folder) layer by layer, as
    `roofline profile`. `inputs`: {"input": (1, 3, 512, 512)}; `dims`: {"batch": 8}."""
    m = _machine_or_measured(machine)
    batch, seq = _int("batch", batch, 0, _DIM_MAX), _int("seq", seq, 0, _DIM_MAX)
    texts = ["%s=%s" % (k, "x".join(str(_int("inputs[%r]" % k, d, 0, _INT64_MAX)) for d in v))
             for k, v in (inputs or {}).items()]
    texts += ["%s=%d" % (k, _int("dims[%r]" % k, v, 0, _INT64_MAX)) for k, v in (dims or {}).items()]
    is_dim = [0] * len(inputs or {}) + [1] * len(dims or {})
    binds = (ShapeBinding * max(1, len(texts)))()
    with Context() as ctx:
        for i, t in enumerate(texts):
            ctx.check(lib.rf_shape_binding_parse(ctx.ptr, t.encode(), is_dim[i],
                                                 ctypes.byref(binds[i])))
        mo = ModelOpts(0, binds, len(texts), batch, seq)
        p = ctypes.POINTER(ProfileHead)()
        ctx.check(lib.rf_profile_model(ctx.ptr, path.encode() if path else None, ctypes.byref(mo),
                                       _handle(m, "Machine"), m.compute_index, m.memory_index,
                                       ctypes.byref(p)))
    owner = _Profile(ctypes.cast(p, c_void_p))
    return Result(c_void_p(p.contents.result), m, owner=owner)


class OpCost:
    """The cost of one operation (docs/cost-model.md): flops (bias adds included), bias_flops,
    bytes and its parts, params, known (False: the cost model does not know it; see reason),
    output_shape."""

    def __init__(self, c, shape):
        for k, _ in LayerCost._fields_:
            setattr(self, k, getattr(c, k))
        self.known = bool(c.known)
        self.reason = c.reason.decode()
        self.output_shape = shape

    @property
    def matmul_flops(self):
        """FLOPs without the bias adds (what PyTorch's profiler counts for conv and addmm)."""
        return self.flops - self.bias_flops

    def __repr__(self):
        return "OpCost(flops=%g, bytes=%g, known=%s)" % (self.flops, self.bytes, self.known)


_DTYPES = {}


def _dtype(name):
    if name not in _DTYPES:
        v = c_int()
        if not lib.rf_dtype_from_name(name.encode(), ctypes.byref(v)):
            raise RooflineError("unknown element type '%s'" % name)
        _DTYPES[name] = v.value
    return _DTYPES[name]


def _attr(name, v, keep):
    a = Attr()
    a.name = name.encode()
    if isinstance(v, bool) or isinstance(v, int):
        a.type, a.i = ATTR_INT, _int("attrs[%r]" % name, v, _INT64_MIN, _INT64_MAX)
    elif isinstance(v, float):
        a.type, a.f = ATTR_FLOAT, v
    elif isinstance(v, str):
        a.type, a.s = ATTR_STRING, v.encode()
    elif all(isinstance(x, int) for x in v):
        arr = (c_int64 * max(1, len(v)))(*[_int("attrs[%r]" % name, x, _INT64_MIN, _INT64_MAX)
                                           for x in v])
        keep.append(arr)
        a.type, a.ints, a.n = ATTR_INTS, arr, len(v)
    else:
        arr = (c_double * max(1, len(v)))(*[float(x) for x in v])
        keep.append(arr)
        a.type, a.floats, a.n = ATTR_FLOATS, arr, len(v)
    return a


def op_cost(op_type, inputs, attrs=None, dtype="F32"):
    """Cost one operation: `op_type` in ONNX spelling ("Conv", "Gemm", "Relu", ...), `inputs` a
    list of shapes, or of (shape, dtype, is_weight[, values]) tuples (values: known integer
    contents, e.g. Resize's sizes), None for an omitted optional input;
    `attrs` a dict of ONNX attributes (int, float, str, list of int or of float)."""
    keep = []
    ins = (OpInput * max(1, len(inputs)))()
    for i, spec in enumerate(inputs):
        if spec is None:
            ins[i].dtype = 0
            continue
        values = None
        if isinstance(spec, tuple) and len(spec) in (3, 4) and isinstance(spec[1], str):
            shape, dt, weight = spec[:3]
            values = spec[3] if len(spec) == 4 else None
        else:
            shape, dt, weight = spec, dtype, i > 0 and op_type not in _NO_WEIGHTS
        dims = (c_int64 * max(1, len(shape)))(
            *[_int("inputs[%d] dimension %d" % (i, k), d, _INT64_MIN, _INT64_MAX)
              for k, d in enumerate(shape)])
        keep.append(dims)
        ins[i].dtype, ins[i].rank, ins[i].dims, ins[i].weight = _dtype(dt), len(shape), dims, \
            int(bool(weight))
        if values is not None:  # known integer contents (Resize's sizes)
            vals = (c_int64 * max(1, len(values)))(
                *[_int("inputs[%d] values" % i, v, _INT64_MIN, _INT64_MAX) for v in values])
            keep.append(vals)
            ins[i].values, ins[i].n_values = vals, len(values)
    attrs = attrs or {}
    at = (Attr * max(1, len(attrs)))(*[_attr(k, v, keep) for k, v in attrs.items()])
    c = LayerCost()
    od = (c_int64 * 8)()
    rank = c_uint32()
    with Context() as ctx:
        ctx.check(lib.rf_op_cost(ctx.ptr, op_type.encode(), ins, len(inputs), at, len(attrs),
                                 ctypes.byref(c), od, ctypes.byref(rank)))
    return OpCost(c, tuple(od[k] for k in range(rank.value)))


# Ops whose later inputs are activations, not weights, when given as bare shapes.
_NO_WEIGHTS = {"MatMul", "Add", "Sub", "Mul", "Div", "Concat", "Where", "Max", "Min", "Sum",
               "Mean", "Pow"}
