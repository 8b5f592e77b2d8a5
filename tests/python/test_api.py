"""test_api.py — the Python package against the CLI's JSON for the same inputs (analyze, profile),
rf_op_cost through ctypes against docs/cost-model.md's checks, machines, charts, errors.
Usage: test_api.py ROOFLINE_BIN SOURCE_DIR (ROOFLINE_LIB names libroofline.so)."""
import json
import os
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "python"))
import roofline  # noqa: E402

fails = []


def check(what, cond):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def cli_json(*args, advice=False):
    """The CLI's JSON; without its "advice" array unless asked (the library's result is the
    document before the advice is added to it)."""
    env = dict(os.environ, LC_ALL="C")
    extra = [] if advice else ["--advice", "0"]
    return subprocess.run([BIN, *args, "--format", "json", *extra], check=True,
                          capture_output=True, text=True, env=env).stdout


a100 = roofline.machine("a100-sxm4-80gb")
check("machine name", a100.name == "a100-sxm4-80gb")
check("machine default roof", a100.compute["name"] == "fp32" and a100.memory["name"] == "DRAM")
check("machine ridge", abs(a100.ridge_ai - 19.5e12 / a100.bw_bytes_per_s) < 1e-9)
fp16 = roofline.machine("a100-sxm4-80gb", compute="fp16.tensor")
check("machine compute choice", fp16.peak_flops_per_s == 312e12)

# analyze: the cookbook's six layers, the same rows as the CLI reads them from the CSV
csv = os.path.join(SRC, "examples", "cookbook-six-layers.csv")
rows = []
with open(csv) as f:
    head = f.readline().strip().split(",")
    for line in f:
        d = dict(zip(head, line.strip().split(",")))
        rows.append((d["name"], float(d["flops"]), float(d.get("bytes", d.get("memory_bytes")))))
res = roofline.analyze(rows, a100, title=csv)
check("analyze JSON == CLI JSON", res.json == cli_json("analyze", csv, "--hw", "a100-sxm4-80gb"))
check("analyze rows as objects", len(res.rows) == 6 and res.rows[0].bound in ("memory", "compute"))
res_top = roofline.analyze(rows, a100, sort="time", top=2, title=csv)
check("analyze --sort time --top 2 == CLI",
      res_top.json == cli_json("analyze", csv, "--hw", "a100-sxm4-80gb", "--top", "2"))

# the network roof: rows with net_bytes over a link of the database, the same as the CLI
ncsv = os.path.join(SRC, "tests", "golden", "data", "ops_network.csv")
nrows = []
with open(ncsv) as f:
    head = f.readline().strip().split(",")
    for line in f:
        d = dict(zip(head, line.strip().split(",")))
        nrows.append({"name": d["name"], "flops": float(d["flops"]), "bytes": float(d["bytes"]),
                      "net_bytes": float(d["net_bytes"])})
h100 = roofline.machine("h100-sxm5", compute="fp16.tensor")
rn = roofline.analyze(nrows, h100, title=ncsv, interconnect="nvlink4")
check("analyze with net_bytes == CLI --interconnect",
      rn.json == cli_json("analyze", ncsv, "--hw", "h100-sxm5", "--compute", "fp16.tensor",
                          "--interconnect", "nvlink4"))
check("network-bound rows", sum(1 for r in rn.rows if r.bound == "network") == 3)
try:
    roofline.analyze(nrows, h100, title=ncsv)
    check("net_bytes without a network roof is refused", False)
except roofline.RooflineError as e:
    check("the refusal names the row: %s" % e, "tp.attn_allreduce" in str(e))

# profile: the ResNet-18 ONNX file at 224 and at 512
onnx = os.path.join(SRC, "data", "resnet18.onnx")
p = roofline.profile(onnx, a100)
check("profile JSON == CLI JSON", p.json == cli_json("profile", onnx, "--hw", "a100-sxm4-80gb"))
adv = json.loads(cli_json("profile", onnx, "--hw", "a100-sxm4-80gb", advice=True))
check("the CLI's JSON adds the advice to the same document",
      isinstance(adv.get("advice"), list) and len(adv["advice"]) > 0
      and {k: v for k, v in adv.items() if k != "advice"} == json.loads(p.json))
p512 = roofline.profile(onnx, a100, inputs={"input": (1, 3, 512, 512)})
check("profile 512 JSON == CLI JSON",
      p512.json == cli_json("profile", onnx, "--hw", "a100-sxm4-80gb", "--input",
                            "input=1x3x512x512"))
check("512 has more FLOPs", p512.totals["flops"] > 5 * p.totals["flops"])

# op_cost: docs/cost-model.md's conv1 check, a Linear with bias, an unknown op
c = roofline.op_cost("Conv", [(1, 3, 224, 224), (64, 3, 7, 7)],
                     {"kernel_shape": [7, 7], "strides": [2, 2], "pads": [3, 3, 3, 3]})
check("conv1 FLOPs 236,027,904", c.flops == 236027904 and c.output_shape == (1, 64, 112, 112))
g = roofline.op_cost("Gemm", [(8, 512), (1000, 512), (1000,)], {"transB": 1})
check("Gemm with bias",
      g.flops == 2 * 8 * 512 * 1000 + 8000 and g.matmul_flops == 2 * 8 * 512 * 1000)
check("unknown op is not known", not roofline.op_cost("NoSuchOp", [(4,)]).known)
try:
    roofline.op_cost("Relu", [(-1,)])
    check("negative dim raises", False)
except roofline.RooflineError as e:
    check("negative dim message", "dim 0 is -1" in str(e))
try:
    roofline.machine("no-such-machine-xyz")
    check("unknown machine raises", False)
except roofline.RooflineError as e:
    check("unknown machine message names it", "no-such-machine-xyz" in str(e))

# charts drawn by the library
with tempfile.TemporaryDirectory() as d:
    res.plot(os.path.join(d, "c.html"))
    p.plot(os.path.join(d, "c.svg"), others=[p512])
    check("html chart", "<svg" in open(os.path.join(d, "c.html")).read())
    check("svg chart, two series", open(os.path.join(d, "c.svg")).read().startswith("<?xml"))
check("table text", "cookbook-six-layers.csv" in res.table())



def raises(what, exc, fn, *words):
    """fn() raises exc whose message holds every word."""
    try:
        fn()
    except exc as e:
        check("%s: message names it (%s)" % (what, e), all(w in str(e) for w in words))
        return
    except Exception as e:  # noqa: BLE001 - the wrong exception is a failure, not a crash
        check("%s: raised %r instead of %s" % (what, e, exc.__name__), False)
        return
    check("%s raises %s" % (what, exc.__name__), False)


# freed handles: a ValueError, never NULL handed to C (which segfaulted the interpreter)
gone = roofline.analyze([("a", 1e9, 1e6)], a100, title="gone")
gone.free()
raises("table() on a freed result", ValueError, gone.table, "freed")
raises("plot() on a freed result", ValueError, lambda: gone.plot("/tmp/never-written.svg"),
       "freed")
gone.free()  # twice is harmless
pf = roofline.profile(onnx, a100)
pf.__del__()  # a profile's result (owned by its profile) as well
raises("table() on a freed profile result", ValueError, pf.table, "freed")
m2 = roofline.machine("a100-sxm4-80gb")
m2.free()
raises("analyze on a freed machine", ValueError,
       lambda: roofline.analyze([("a", 1, 1)], m2), "Machine", "freed")

# integers range-checked before ctypes wraps them: 2**70 became 0 and a wrong "known" cost
raises("op_cost dimension 2**70", OverflowError,
       lambda: roofline.op_cost("Relu", [(2**70, 4)]), "inputs[0] dimension 0")
raises("op_cost attribute 2**64", OverflowError,
       lambda: roofline.op_cost("Conv", [(1, 3, 8, 8), (4, 3, 3, 3)],
                                {"kernel_shape": [3, 3], "group": 2**64}), "attrs['group']")
raises("op_cost attribute list 2**63", OverflowError,
       lambda: roofline.op_cost("Conv", [(1, 3, 8, 8), (4, 3, 3, 3)],
                                {"kernel_shape": [3, 2**63]}), "attrs['kernel_shape']")
raises("op_cost non-integer dimension", TypeError,
       lambda: roofline.op_cost("Relu", [(2.5, 4)]), "inputs[0] dimension 0")
check("op_cost whole floats still accepted", roofline.op_cost("Relu", [(2.0, 4)]).known)
raises("profile batch 2**64-1", OverflowError,
       lambda: roofline.profile(onnx, a100, batch=2**64 - 1), "batch")
raises("profile seq -1", OverflowError, lambda: roofline.profile(onnx, a100, seq=-1), "seq")
raises("profile batch 'x'", TypeError, lambda: roofline.profile(onnx, a100, batch="8"), "batch")
check("profile batch 2 honoured",
      roofline.profile(onnx, a100, batch=2).totals["flops"] > 1.9 * p.totals["flops"])
raises("analyze top -1", OverflowError,
       lambda: roofline.analyze([("a", 1, 1)], a100, top=-1), "top")
raises("analyze unknown sort", ValueError,
       lambda: roofline.analyze([("a", 1, 1)], a100, sort="size"), "sort")

print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
