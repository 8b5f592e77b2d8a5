"""resnet18_224_vs_512.py — fasterbench's ResNet-18 walk-through with roofline on the CPU: profile
every module at 224x224 and at 512x512 against this machine's measured roof, print the summaries
and how the intensity of the layers shifts, and draw both charts. docs/python.md explains it.
Run: PYTHONPATH=python ROOFLINE_LIB=build/libroofline.so python3 examples/resnet18_224_vs_512.py
(torchvision's resnet18 when installed, else the same modules written out in tests/python)."""
import os
import sys

import torch

import roofline
from roofline.torch import RooflineAnalyzer

try:
    from torchvision.models import resnet18
    model = resnet18()
except ImportError:  # the same modules and names, written out in the test suite
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
    from resnet18_model import ResNet18 as resnet18
    model = resnet18()
model.eval()

peaks = roofline.peaks(quick=True)  # this machine, measured (cached after the first run)
print(peaks)
runs = {}
for size in (224, 512):
    an = RooflineAnalyzer(model, torch.randn(1, 3, size, size), peaks=peaks)
    an.profile(device="cpu", warmup=2, steps=5)
    print("\n== %dx%d ==" % (size, size))
    print(an.summary(top=8))
    an.plot("resnet18-%d.html" % size)
    runs[size] = {r.name: r for r in an.results}

print("\nintensity shift 224 -> 512 (FLOP/byte), the convolutions:")
print("%-22s %8s %8s %9s %9s" % ("module", "AI 224", "AI 512", "bound 224", "bound 512"))
for name, r in runs[224].items():
    if r.type == "Conv2d":
        s = runs[512][name]
        print("%-22s %8.1f %8.1f %9s %9s" % (name, r.arithmetic_intensity,
                                             s.arithmetic_intensity, r.bound, s.bound))
