#!/usr/bin/python3
"""resnet18_ops.py — writes docs/resnet18_ops.csv: the layers of ResNet-18 (He et al. 2016,
torchvision's resnet18) at batch 1, 224x224, fp32, as an operations list (name,flops,bytes) for
`roofline analyze`. Conv FLOPs are 2*N*Cout*Hout*Wout*Cin*kh*kw (DESIGN.md, docs/cost-model.md);
batch norm + ReLU (folded into one op) count 3 FLOPs and 2 fp32 accesses per element, the residual
add 1 FLOP and 3 accesses per element; bytes: every weight, input and output tensor once."""
import sys

B = 4  # bytes per fp32 value
rows = []


def conv(name, cin, cout, k, stride, hin):
    hout = (hin + 2 * (k // 2) - k) // stride + 1
    flops = 2 * cout * hout * hout * cin * k * k
    nbytes = B * (cin * hin * hin + cout * cin * k * k + cout * hout * hout)
    rows.append((name, flops, nbytes))
    rows.append((name.replace("conv", "bn_relu"), 3 * cout * hout * hout, 2 * B * cout * hout * hout))
    return hout


def block(prefix, cin, cout, stride, h):
    h1 = conv(f"{prefix}.conv1", cin, cout, 3, stride, h)
    h2 = conv(f"{prefix}.conv2", cout, cout, 3, 1, h1)
    if stride != 1 or cin != cout:
        conv(f"{prefix}.downsample.conv", cin, cout, 1, stride, h)
    rows.append((f"{prefix}.add", cout * h2 * h2, 3 * B * cout * h2 * h2))
    return h2


h = conv("conv1", 3, 64, 7, 2, 224)
rows.append(("maxpool", 9 * 64 * 56 * 56, B * (64 * h * h + 64 * 56 * 56)))
h = 56
cin = 64
for i, (c, s) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)], start=1):
    h = block(f"layer{i}.0", cin, c, s, h)
    h = block(f"layer{i}.1", c, c, 1, h)
    cin = c
rows.append(("avgpool", 512 * h * h, B * (512 * h * h + 512)))
rows.append(("fc", 2 * 512 * 1000 + 1000, B * (512 + 512 * 1000 + 1000 + 1000)))
out = open(sys.argv[1], "w") if len(sys.argv) > 1 else sys.stdout
out.write("name,flops,bytes\n")
for name, flops, nbytes in rows:
    out.write(f"{name},{flops},{nbytes}\n")
