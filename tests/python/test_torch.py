"""test_torch.py — roofline.torch.RooflineAnalyzer: the FLOPs of every module of a
torchvision-style ResNet-18 (written here; torchvision may be absent) and of an
nn.TransformerEncoderLayer against PyTorch's own profiler (torch.profiler with_flops=True) where
it counts (convolutions, addmm, bmm: the matrix work without bias adds), and the cost model's
hand rules where it counts nothing (docs/cost-model.md). Exits 77 without torch.
Usage: test_torch.py SOURCE_DIR."""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import torch
    from torch import nn
    from torch.profiler import profile
except ImportError:
    print("SKIP: torch is not installed (Debian: apt-get install python3-torch)")
    sys.exit(77)
import roofline  # noqa: E402
from roofline.torch import RooflineAnalyzer  # noqa: E402

torch.manual_seed(0)
fails = []


def check(what, cond):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


from resnet18_model import ResNet18  # noqa: E402  torchvision's, written out


def captured_calls(model, sample):
    """Every call of every leaf module (MultiheadAttention whole): (name, module, args, out)."""
    from roofline.torch import _leaves
    calls, hs = [], []
    for name, m in _leaves(model):
        def hook(mod, args, out, name=name):
            calls.append((name, mod, tuple(a.clone() if torch.is_tensor(a) else a for a in args),
                          out[0] if isinstance(out, tuple) else out))
        hs.append(m.register_forward_hook(hook))
    with torch.no_grad():
        model(*sample) if isinstance(sample, tuple) else model(sample)
    for h in hs:
        h.remove()
    return calls


def profiler_flops(mod, args):
    with torch.no_grad(), profile(with_flops=True) as p:
        mod(*args)
    return sum(e.flops for e in p.key_averages())


def hand_rule(mod, args, out):
    """docs/cost-model.md for what torch.profiler does not count."""
    x = args[0]
    if isinstance(mod, nn.BatchNorm2d):
        return 2 * out.numel()
    if isinstance(mod, nn.ReLU):
        return out.numel()
    if isinstance(mod, nn.MaxPool2d):
        return mod.kernel_size ** 2 * out.numel()
    if isinstance(mod, nn.AdaptiveAvgPool2d):
        return x.numel()
    if isinstance(mod, nn.LayerNorm):
        return 7 * out.numel()
    if isinstance(mod, nn.Dropout):
        return 0
    return None


def compare(model, sample, what):
    model.eval()
    an = RooflineAnalyzer(model, sample, peaks="a100-sxm4-80gb")
    res = {r.name: r for r in an.profile(warmup=1, steps=1)
           if not r.type.startswith("functional.")}
    calls = captured_calls(model, sample)
    per = {}
    for name, mod, args, out in calls:
        pf = profiler_flops(mod, args)
        hr = hand_rule(mod, args, out)
        d = per.setdefault(name, [0, 0, mod])
        d[0] += pf
        d[1] += hr if hr is not None else 0
    n_prof = n_hand = 0
    for name, (pf, hr, mod) in per.items():
        r = res.get(name)
        check("%s: %s has a result" % (what, name), r is not None)
        if r is None:
            continue
        check("%s: %s is not undefined" % (what, name), r.bound != "undefined")
        if pf > 0:  # the profiler counts it: the matrix work without bias adds
            n_prof += 1
            check("%s: %s (%s) matrix FLOPs %g == torch.profiler %g"
                  % (what, name, r.type, r.matmul_flops, pf), r.matmul_flops == pf)
        else:
            n_hand += 1
            check("%s: %s (%s) FLOPs %g == hand rule %g" % (what, name, r.type, r.flops, hr),
                  r.flops == hr)
    print("%s: %d modules against torch.profiler, %d against hand rules"
          % (what, n_prof, n_hand))
    return an


net = ResNet18()
an = compare(net, torch.randn(1, 3, 224, 224), "resnet18")
types = {r.type for r in an.results}
check("resnet18 module kinds", {"Conv2d", "BatchNorm2d", "ReLU", "MaxPool2d", "AdaptiveAvgPool2d",
                                "Linear"} <= types)
total = sum(r.matmul_flops for r in an.results)
check("resnet18 conv+fc FLOPs 3,628,146,688 (2 x torchvision's 1.814 GMACs)",
      total == 3628146688)
check("a block calls its relu twice: both calls counted",
      next(r for r in an.results if r.name == "layer1.0.relu").calls == 2)
summ = an.summary(top=5).splitlines()  # the slowest 5 depend on the machine's load: count them
check("summary: header, column names, 5 modules, total",
      len(summ) == 8 and summ[0].startswith("roofline of ResNet18")
      and summ[-1].startswith("total: 52 modules + 8 functional calls"))
# functional calls: each BasicBlock's residual add (out + identity), one FLOP per output element
fadd = [r for r in an.results if r.type == "functional.add"]
check("8 residual adds seen as functional rows",
      sorted(r.name for r in fadd) == sorted("layer%d.%d:add" % (i, j)
                                             for i in range(1, 5) for j in range(2)))
check("residual add FLOPs: 64*56*56 in layer1, 512*7*7 in layer4",
      {r.name: r.flops for r in fadd}["layer1.0:add"] == 64 * 56 * 56
      and {r.name: r.flops for r in fadd}["layer4.1:add"] == 512 * 7 * 7)
check("functional rows are timed", all(r.time_s > 0 for r in fadd))
# measured points reach the library's result (charts draw them filled)
doc = an._result.to_dict()
check("every costed module is a measured row",
      all("measured" in row for row in doc["rows"]) and doc["totals"]["measured"]["count"] == 60)

enc = nn.TransformerEncoderLayer(64, 4, 128)  # batch_first=False: the module path, not the fast one
an2 = compare(enc, torch.randn(10, 2, 64), "encoder")
mha = next(r for r in an2.results if r.type == "MultiheadAttention")
# the layer's own forward: two residual adds and the activation (F.relu) are functions
fx = {r.name: r for r in an2.results if r.type.startswith("functional.")}
check("encoder: residual adds 2 x 10*2*64 and F.relu over 10*2*128 seen",
      fx.get("TransformerEncoderLayer:add") is not None
      and fx["TransformerEncoderLayer:add"].flops == 2 * 10 * 2 * 64
      and fx["TransformerEncoderLayer:relu"].flops == 10 * 2 * 128)
check("MHA = in_proj + QK^T + AV + out_proj", mha.matmul_flops == 655360 + 51200)

# Upsample and padding: the cost model's "Resize" and "Data movement" (torch.profiler counts none)
x = torch.randn(1, 3, 8, 8)
seq = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear"), nn.ZeroPad2d((1, 2, 3, 4)),
                    nn.Upsample(scale_factor=2))
up = {r.name: r for r in RooflineAnalyzer(seq, x, peaks="a100-sxm4-80gb").profile(warmup=0,
                                                                                  steps=1)}
check("bilinear upsample: 2*2^2 per output element", up["0"].flops == 8 * 3 * 16 * 16)
check("padding: no FLOPs, input + output bytes", up["1"].flops == 0
      and up["1"].bytes_moved == 4 * (3 * 16 * 16 + 3 * 23 * 19) and up["1"].bound != "undefined")
check("nearest upsample: no FLOPs, bytes moved", up["2"].flops == 0 and up["2"].bytes_moved > 0)

print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
