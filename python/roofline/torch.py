"""roofline.torch — fasterbench's RooflineAnalyzer interface on roofline's cost model and roofs.

Every leaf module (and nn.MultiheadAttention as a whole) is timed with forward hooks and costed
by roofline.torch_cost through the library's rf_op_cost from its kind, shapes, dtypes and
attributes (docs/cost-model.md): convolutions, linear, normalisations, activations, pooling,
embedding, attention; dropout, identity and flatten cost nothing (bound "none"). Functional calls made inside a module's forward
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
# The costs of modules and functional calls; module_ops, cost_call and functional_ops stay
# importable from roofline.torch.
from roofline.torch_cost import (_F_FREE, _functional_cost, cost_call,  # noqa: F401
                                 functional_ops, module_ops)


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

    def profile(self, device="cpu", warmup=5, steps=20, functional=True):
        """Time every leaf module over `steps` forward passes (after `warmup`), cost each from the
        shapes it saw, and evaluate it against the machine. With `functional` (the default), `steps`
        more passes time and cost the torch functions the modules' forwards call outside any leaf
        (residual adds, F.relu, matmuls): rows named "PARENT:function", type "functional".
        Returns `results`."""
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
        fcalls, ftimes = self._functional(device, steps, leaves) if functional else ({}, {})
        self._evaluate(leaves, calls, {n: t[warmup:] for n, t in times.items()}, fcalls, ftimes)
        return self.results

    def _functional(self, device, steps, leaves):
        """Passes with a TorchFunctionMode: every torch function called outside a leaf module,
        timed and (in the first pass) costed, per (innermost module, function)."""
        from torch.overrides import TorchFunctionMode
        model, sync = self.model, (torch.cuda.synchronize if str(device).startswith("cuda")
                                   else (lambda: None))
        leaf_ids = {id(m) for _, m in leaves}
        stack, handles = [], []
        calls, times = {}, {}
        state = {"inside": 0, "busy": False, "record": False}
        self.unknown_functional = {}

        def enter(name, m):
            def hook(mod, args):
                if id(m) in leaf_ids:
                    state["inside"] += 1
                else:
                    stack.append(name)
            return hook

        def leave(m):
            def hook(mod, args, out):
                if id(m) in leaf_ids:
                    state["inside"] -= 1
                elif stack:
                    stack.pop()
            return hook

        class Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if state["inside"] or state["busy"]:
                    return func(*args, **kwargs)
                name = getattr(func, "__name__", "") or str(func)
                if name in _F_FREE:
                    return func(*args, **kwargs)
                state["busy"] = True
                try:
                    sync()
                    t0 = time.perf_counter()
                    out = func(*args, **kwargs)
                    sync()
                    dt = time.perf_counter() - t0
                finally:
                    state["busy"] = False
                key = "%s:%s" % (stack[-1] if stack else "", name)
                if state["record"]:
                    c = _functional_cost(name, args, kwargs, out)
                    if c is None:
                        unknown[name] = unknown.get(name, 0) + 1
                        return out
                    calls.setdefault(key, []).append(c)
                if key in calls:
                    times.setdefault(key, [0.0] * steps)[state["step"]] += dt
                return out

        unknown = self.unknown_functional
        for name, m in model.named_modules():
            handles.append(m.register_forward_pre_hook(enter(name, m)))
            handles.append(m.register_forward_hook(leave(m)))
        was_training = model.training
        model.to(device).eval()
        try:
            with torch.no_grad(), Mode():
                for i in range(steps):
                    state["record"], state["step"] = i == 0, i
                    stack.clear()
                    self._run(device)
        finally:
            for h in handles:
                h.remove()
            model.train(was_training)
        return calls, times

    def _evaluate(self, leaves, calls, times, fcalls=None, ftimes=None):
        rows = []
        for name, m in leaves:
            cs = calls[name]
            if not cs:
                continue  # never called as a module
            known = all(c[3] for c in cs)
            f, b, mm = (sum(c[k] for c in cs) for k in range(3))
            t = statistics.median(times[name]) if times[name] else 0.0
            rows.append([name or type(m).__name__, type(m).__name__, f, b, t, mm, known, len(cs),
                         len(times[name])])
        for key, cs in (fcalls or {}).items():
            ts = (ftimes or {}).get(key, [])
            f, b = sum(c[0] for c in cs), sum(c[1] for c in cs)
            t = statistics.median(ts) if ts else 0.0
            name = type(self.model).__name__ + key if key.startswith(":") else key
            rows.append([name, "functional." + key.split(":")[-1], f, b, t, 0.0, True, len(cs),
                         len(ts)])
        ev = [r for r in rows if r[6] and (r[2] or r[3])]
        self._result = _rf.analyze(
            [{"name": r[0], "flops": r[2], "bytes": r[3], "op": r[1],
              "time_s": r[4] if r[4] > 0 else None, "runs": max(1, r[8])}
             for r in ev], self.machine, title=type(self.model).__name__)
        by_name = {row.name: row for row in self._result.rows}
        self.results = []
        for name, typ, f, b, t, mm, known, n, _ in rows:
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
        nf = sum(1 for r in self.results if r.type.startswith("functional."))
        lines.append("total: %d modules%s, %.3g GFLOP, %.3f ms measured (sum of modules), "
                     "%.2f GFLOP/s"
                     % (len(self.results) - nf, " + %d functional calls" % nf if nf else "",
                        total_f / 1e9, total_t * 1e3,
                        total_f / total_t / 1e9 if total_t else 0.0))
        un = getattr(self, "unknown_functional", {})
        if un:
            lines.append("functional calls not costed: " + ", ".join(
                "%s x%d" % (k, v) for k, v in sorted(un.items())))
        return "\n".join(lines)

    def plot(self, path):
        """The roofline chart of the modules (SVG or HTML by the name), drawn by the library.
        The points are each module's estimate on the roof (measured points: see docs/python.md)."""
        if self._result is None:
            raise _rf.RooflineError("profile() first")
        return self._result.plot(path)
