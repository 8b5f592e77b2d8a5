#!/usr/bin/python3
"""Make a small PyTorch profiler trace (Chrome trace, with_flops=True) on this CPU: a two-layer
MLP and a convolution run three times. Needs python3-torch (Debian); the tests only read the
committed output, torch_cpu_trace.json, never this script. Usage: gen_torch_trace.py OUT.json"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
torch.set_num_threads(1)
mlp = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 128))
conv = torch.nn.Conv2d(8, 16, 3, padding=1)
x = torch.randn(64, 256)
img = torch.randn(4, 8, 32, 32)
with torch.no_grad():
    mlp(x), conv(img)  # warm-up outside the profile
    with profile(activities=[ProfilerActivity.CPU], with_flops=True, record_shapes=True) as prof:
        for _ in range(3):
            mlp(x)
            conv(img)
            torch.bmm(torch.randn(8, 64, 32), torch.randn(8, 32, 64))
out = sys.argv[1] if len(sys.argv) > 1 else "torch_cpu_trace.json"
prof.export_chrome_trace(out)
# Debian's python3-torch is built without Kineto, so export_chrome_trace takes the legacy path
# (a bare array, "args": {}). Kineto's exporter writes "cat": "cpu_op" and the op's FLOP count in
# "args": {"flops": N}, and with record_shapes=True "Input Dims" and "Input type"; add those from
# the same events, in the order the exporter wrote them. The legacy events keep shapes but not
# dtypes: every tensor here is float32, so a shaped input is written as "float".
if not torch.autograd.kineto_available():
    import json

    with open(out) as f:
        trace = json.load(f)
    events = [e for e in prof.events() if e.trace_name is not None]
    assert len(events) == len(trace), "the exporter wrote one entry per event"
    for entry, evt in zip(trace, events):
        assert entry["name"] == evt.trace_name
        entry["cat"] = "cpu_op"
        if evt.flops:
            entry["args"]["flops"] = evt.flops
        if evt.input_shapes:
            entry["args"]["Input Dims"] = [list(d) for d in evt.input_shapes]
            entry["args"]["Input type"] = ["float" if d else "" for d in evt.input_shapes]
    with open(out, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": trace}, f, indent=0)
