#!/usr/bin/env python3
"""gen_vit.py - a tiny Vision Transformer exported by PyTorch's (legacy, TorchScript) exporter
with a dynamic batch: the class token is Expanded to a shape computed by a Shape / Gather /
Unsqueeze / Concat / Reshape / ConstantOfShape / Mul / Equal / Where subgraph and Concat'ed, so
every encoder layer's shape depends on shape arithmetic (issue 12 item 1). torch 1.13 has no
dynamo exporter; this is the path every torch.onnx.export user takes.

The reference (vit.ref.json): the matrix FLOPs counted by hand below (torch.profiler misses the
encoder layer's fused fast path, so it is no reference here).

    python3 tests/data/onnx/gen_vit.py tests/data/onnx
"""
import json
import os
import sys

import torch
from torch import nn

D, DEPTH, HEADS, FF, PATCH, IMG, NCLS = 32, 2, 4, 64, 8, 32, 10


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, D, PATCH, PATCH)
        self.cls = nn.Parameter(torch.zeros(1, 1, D))
        self.pos = nn.Parameter(torch.zeros(1, (IMG // PATCH) ** 2 + 1, D))
        layer = nn.TransformerEncoderLayer(D, HEADS, FF, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, DEPTH)
        self.head = nn.Linear(D, NCLS)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        cls = self.cls.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], 1) + self.pos
        x = self.enc(x)
        return self.head(x[:, 0])


def main(root):
    torch.manual_seed(0)
    path = os.path.join(root, "vit.onnx")
    torch.onnx.export(ViT().eval(), torch.randn(1, 3, IMG, IMG), path, opset_version=14,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
    P = (IMG // PATCH) ** 2
    S = P + 1
    conv = 2 * D * P * 3 * PATCH * PATCH
    layer = (2 * S * D * 3 * D  # in-projection
             + 2 * 2 * HEADS * S * S * (D // HEADS)  # Q.K^T and A.V
             + 2 * S * D * D  # out-projection
             + 2 * 2 * S * D * FF)  # the MLP
    head = 2 * D * NCLS
    with open(os.path.join(root, "vit.ref.json"), "w") as f:
        json.dump({"batch": 1, "matmul_conv_flops": conv + DEPTH * layer + head,
                   "conv": conv, "encoder_layer": layer, "head": head}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/onnx")
