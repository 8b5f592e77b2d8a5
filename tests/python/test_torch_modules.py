"""test_torch_modules.py — nothing PyTorch ships is `undefined`: every public module class of
torch.nn that can be a leaf is built here with a sample input and costed by roofline.torch
(docs/python.md); the test fails when torch.nn has a class this table does not name, so a new
PyTorch cannot add an uncosted module silently. Hand rules (docs/cost-model.md) check the figures
of the modules this package costs as a copy or as a few fused operations. Exits 77 without torch.
Usage: test_torch_modules.py SOURCE_DIR."""
import inspect
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
try:
    import torch
    from torch import nn
except ImportError:
    print("SKIP: torch is not installed (Debian: apt-get install python3-torch)")
    sys.exit(77)
from roofline.torch import cost_call  # noqa: E402

torch.manual_seed(0)
fails = []


def check(what, cond):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def r(*s):
    return torch.randn(*s)


# Not leaves (containers, composites whose children are the leaves), or not callable here
NOT_LEAVES = {"Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
              "ParameterDict", "DataParallel", "Transformer", "TransformerEncoder",
              "TransformerDecoder", "TransformerEncoderLayer", "TransformerDecoderLayer",
              "AdaptiveLogSoftmaxWithLoss", "RNNBase", "RNNCellBase", "SyncBatchNorm"}
x4 = r(2, 8, 6, 6)
tgt_cls = torch.tensor([1, 3])
CASES = {
    "AdaptiveAvgPool1d": (lambda: nn.AdaptiveAvgPool1d(2), (r(2, 3, 8),)),
    "AdaptiveAvgPool2d": (lambda: nn.AdaptiveAvgPool2d(2), (x4,)),
    "AdaptiveAvgPool3d": (lambda: nn.AdaptiveAvgPool3d(1), (r(1, 2, 4, 4, 4),)),
    "AdaptiveMaxPool1d": (lambda: nn.AdaptiveMaxPool1d(2), (r(2, 3, 8),)),
    "AdaptiveMaxPool2d": (lambda: nn.AdaptiveMaxPool2d(3), (x4,)),
    "AdaptiveMaxPool3d": (lambda: nn.AdaptiveMaxPool3d(2), (r(1, 2, 4, 4, 4),)),
    "AlphaDropout": (lambda: nn.AlphaDropout(), (x4,)),
    "AvgPool1d": (lambda: nn.AvgPool1d(2), (r(2, 3, 8),)),
    "AvgPool2d": (lambda: nn.AvgPool2d(2), (x4,)),
    "AvgPool3d": (lambda: nn.AvgPool3d(2), (r(1, 2, 4, 4, 4),)),
    "BCELoss": (lambda: nn.BCELoss(), (torch.rand(4, 5), torch.rand(4, 5))),
    "BCEWithLogitsLoss": (lambda: nn.BCEWithLogitsLoss(), (r(4, 5), torch.rand(4, 5))),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(3), (r(2, 3, 8),)),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(8), (x4,)),
    "BatchNorm3d": (lambda: nn.BatchNorm3d(2), (r(1, 2, 4, 4, 4),)),
    "Bilinear": (lambda: nn.Bilinear(5, 6, 7), (r(4, 5), r(4, 6))),
    "CELU": (lambda: nn.CELU(), (x4,)),
    "CTCLoss": (lambda: nn.CTCLoss(), (r(10, 2, 5).log_softmax(2), torch.randint(1, 5, (2, 4)),
                                       torch.tensor([10, 10]), torch.tensor([4, 4]))),
    "ChannelShuffle": (lambda: nn.ChannelShuffle(2), (x4,)),
    "ConstantPad1d": (lambda: nn.ConstantPad1d(2, 0.0), (r(2, 3, 8),)),
    "ConstantPad2d": (lambda: nn.ConstantPad2d(1, 0.0), (x4,)),
    "ConstantPad3d": (lambda: nn.ConstantPad3d(1, 0.0), (r(1, 2, 4, 4, 4),)),
    "Conv1d": (lambda: nn.Conv1d(3, 4, 3), (r(2, 3, 8),)),
    "Conv2d": (lambda: nn.Conv2d(8, 4, 3), (x4,)),
    "Conv3d": (lambda: nn.Conv3d(2, 3, 3), (r(1, 2, 4, 4, 4),)),
    "ConvTranspose1d": (lambda: nn.ConvTranspose1d(3, 4, 3), (r(2, 3, 8),)),
    "ConvTranspose2d": (lambda: nn.ConvTranspose2d(8, 4, 3, stride=2), (x4,)),
    "ConvTranspose3d": (lambda: nn.ConvTranspose3d(2, 3, 3), (r(1, 2, 4, 4, 4),)),
    "CosineEmbeddingLoss": (lambda: nn.CosineEmbeddingLoss(),
                            (r(4, 5), r(4, 5), torch.tensor([1, -1, 1, 1]))),
    "CosineSimilarity": (lambda: nn.CosineSimilarity(), (r(4, 5), r(4, 5))),
    "CrossEntropyLoss": (lambda: nn.CrossEntropyLoss(), (r(2, 5), tgt_cls)),
    "CrossMapLRN2d": (lambda: nn.CrossMapLRN2d(3), (x4,)),
    "Dropout": (lambda: nn.Dropout(), (x4,)),
    "Dropout1d": (lambda: nn.Dropout1d(), (r(2, 3, 8),)),
    "Dropout2d": (lambda: nn.Dropout2d(), (x4,)),
    "Dropout3d": (lambda: nn.Dropout3d(), (r(1, 2, 4, 4, 4),)),
    "ELU": (lambda: nn.ELU(), (x4,)),
    "Embedding": (lambda: nn.Embedding(10, 4), (torch.tensor([[1, 2], [3, 4]]),)),
    "EmbeddingBag": (lambda: nn.EmbeddingBag(10, 4), (torch.tensor([[1, 2, 3], [3, 4, 5]]),)),
    "FeatureAlphaDropout": (lambda: nn.FeatureAlphaDropout(), (x4,)),
    "Flatten": (lambda: nn.Flatten(), (x4,)),
    "Fold": (lambda: nn.Fold((4, 5), (2, 2)), (r(1, 3 * 2 * 2, 12),)),
    "FractionalMaxPool2d": (lambda: nn.FractionalMaxPool2d(2, output_size=(4, 4)), (x4,)),
    "FractionalMaxPool3d": (lambda: nn.FractionalMaxPool3d(2, output_size=(3, 3, 3)),
                            (r(1, 2, 6, 6, 6),)),
    "GELU": (lambda: nn.GELU(), (x4,)),
    "GLU": (lambda: nn.GLU(), (r(4, 6),)),
    "GaussianNLLLoss": (lambda: nn.GaussianNLLLoss(), (r(4, 5), r(4, 5), torch.rand(4, 5) + .1)),
    "GroupNorm": (lambda: nn.GroupNorm(2, 8), (x4,)),
    "Hardshrink": (lambda: nn.Hardshrink(), (x4,)),
    "Hardsigmoid": (lambda: nn.Hardsigmoid(), (x4,)),
    "Hardswish": (lambda: nn.Hardswish(), (x4,)),
    "Hardtanh": (lambda: nn.Hardtanh(), (x4,)),
    "HingeEmbeddingLoss": (lambda: nn.HingeEmbeddingLoss(), (r(4, 5), torch.ones(4, 5))),
    "HuberLoss": (lambda: nn.HuberLoss(), (r(4, 5), r(4, 5))),
    "Identity": (lambda: nn.Identity(), (x4,)),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3), (r(2, 3, 8),)),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(8), (x4,)),
    "InstanceNorm3d": (lambda: nn.InstanceNorm3d(2), (r(1, 2, 4, 4, 4),)),
    "KLDivLoss": (lambda: nn.KLDivLoss(reduction="batchmean"), (r(4, 5), torch.rand(4, 5))),
    "L1Loss": (lambda: nn.L1Loss(), (r(4, 5), r(4, 5))),
    "LPPool1d": (lambda: nn.LPPool1d(2, 2), (r(2, 3, 8),)),
    "LPPool2d": (lambda: nn.LPPool2d(2, 2), (x4,)),
    "LayerNorm": (lambda: nn.LayerNorm(6), (x4,)),
    "LazyBatchNorm1d": (lambda: nn.LazyBatchNorm1d(), (r(2, 3, 8),)),
    "LazyBatchNorm2d": (lambda: nn.LazyBatchNorm2d(), (x4,)),
    "LazyBatchNorm3d": (lambda: nn.LazyBatchNorm3d(), (r(1, 2, 4, 4, 4),)),
    "LazyConv1d": (lambda: nn.LazyConv1d(4, 3), (r(2, 3, 8),)),
    "LazyConv2d": (lambda: nn.LazyConv2d(4, 3), (x4,)),
    "LazyConv3d": (lambda: nn.LazyConv3d(3, 3), (r(1, 2, 4, 4, 4),)),
    "LazyConvTranspose1d": (lambda: nn.LazyConvTranspose1d(4, 3), (r(2, 3, 8),)),
    "LazyConvTranspose2d": (lambda: nn.LazyConvTranspose2d(4, 3), (x4,)),
    "LazyConvTranspose3d": (lambda: nn.LazyConvTranspose3d(3, 3), (r(1, 2, 4, 4, 4),)),
    "LazyInstanceNorm1d": (lambda: nn.LazyInstanceNorm1d(), (r(2, 3, 8),)),
    "LazyInstanceNorm2d": (lambda: nn.LazyInstanceNorm2d(), (x4,)),
    "LazyInstanceNorm3d": (lambda: nn.LazyInstanceNorm3d(), (r(1, 2, 4, 4, 4),)),
    "LazyLinear": (lambda: nn.LazyLinear(3), (r(4, 5),)),
    "LeakyReLU": (lambda: nn.LeakyReLU(), (x4,)),
    "Linear": (lambda: nn.Linear(5, 3), (r(4, 5),)),
    "LocalResponseNorm": (lambda: nn.LocalResponseNorm(3), (x4,)),
    "LogSigmoid": (lambda: nn.LogSigmoid(), (x4,)),
    "LogSoftmax": (lambda: nn.LogSoftmax(1), (x4,)),
    "MSELoss": (lambda: nn.MSELoss(), (r(4, 5), r(4, 5))),
    "MarginRankingLoss": (lambda: nn.MarginRankingLoss(), (r(4), r(4), torch.ones(4))),
    "MaxPool1d": (lambda: nn.MaxPool1d(2), (r(2, 3, 8),)),
    "MaxPool2d": (lambda: nn.MaxPool2d(2), (x4,)),
    "MaxPool3d": (lambda: nn.MaxPool3d(2), (r(1, 2, 4, 4, 4),)),
    "MaxUnpool1d": (lambda: nn.MaxUnpool1d(2),
                    lambda: nn.MaxPool1d(2, return_indices=True)(r(2, 3, 8))),
    "MaxUnpool2d": (lambda: nn.MaxUnpool2d(2),
                    lambda: nn.MaxPool2d(2, return_indices=True)(x4)),
    "MaxUnpool3d": (lambda: nn.MaxUnpool3d(2),
                    lambda: nn.MaxPool3d(2, return_indices=True)(r(1, 2, 4, 4, 4))),
    "Mish": (lambda: nn.Mish(), (x4,)),
    "MultiLabelMarginLoss": (lambda: nn.MultiLabelMarginLoss(),
                             (r(2, 4), torch.tensor([[3, 0, -1, 1], [0, 1, 2, 3]]))),
    "MultiLabelSoftMarginLoss": (lambda: nn.MultiLabelSoftMarginLoss(),
                                 (r(2, 4), torch.ones(2, 4))),
    "MultiMarginLoss": (lambda: nn.MultiMarginLoss(), (r(2, 5), tgt_cls)),
    "MultiheadAttention": (lambda: nn.MultiheadAttention(8, 2), (r(5, 2, 8),) * 3),
    "NLLLoss": (lambda: nn.NLLLoss(), (r(2, 5).log_softmax(1), tgt_cls)),
    "NLLLoss2d": (lambda: nn.NLLLoss2d(), (r(2, 5, 3, 3).log_softmax(1),
                                           torch.randint(0, 5, (2, 3, 3)))),
    "PReLU": (lambda: nn.PReLU(), (x4,)),
    "PairwiseDistance": (lambda: nn.PairwiseDistance(), (r(4, 5), r(4, 5))),
    "PixelShuffle": (lambda: nn.PixelShuffle(2), (x4,)),
    "PixelUnshuffle": (lambda: nn.PixelUnshuffle(2), (x4,)),
    "PoissonNLLLoss": (lambda: nn.PoissonNLLLoss(), (r(4, 5), torch.rand(4, 5))),
    "RReLU": (lambda: nn.RReLU(), (x4,)),
    "ReLU": (lambda: nn.ReLU(), (x4,)),
    "ReLU6": (lambda: nn.ReLU6(), (x4,)),
    "ReflectionPad1d": (lambda: nn.ReflectionPad1d(2), (r(2, 3, 8),)),
    "ReflectionPad2d": (lambda: nn.ReflectionPad2d(1), (x4,)),
    "ReflectionPad3d": (lambda: nn.ReflectionPad3d(1), (r(1, 2, 4, 4, 4),)),
    "ReplicationPad1d": (lambda: nn.ReplicationPad1d(2), (r(2, 3, 8),)),
    "ReplicationPad2d": (lambda: nn.ReplicationPad2d(1), (x4,)),
    "ReplicationPad3d": (lambda: nn.ReplicationPad3d(1), (r(1, 2, 4, 4, 4),)),
    "SELU": (lambda: nn.SELU(), (x4,)),
    "SiLU": (lambda: nn.SiLU(), (x4,)),
    "Sigmoid": (lambda: nn.Sigmoid(), (x4,)),
    "SmoothL1Loss": (lambda: nn.SmoothL1Loss(), (r(4, 5), r(4, 5))),
    "SoftMarginLoss": (lambda: nn.SoftMarginLoss(), (r(4, 5), torch.ones(4, 5))),
    "Softmax": (lambda: nn.Softmax(1), (x4,)),
    "Softmax2d": (lambda: nn.Softmax2d(), (x4,)),
    "Softmin": (lambda: nn.Softmin(1), (x4,)),
    "Softplus": (lambda: nn.Softplus(), (x4,)),
    "Softshrink": (lambda: nn.Softshrink(), (x4,)),
    "Softsign": (lambda: nn.Softsign(), (x4,)),
    "Tanh": (lambda: nn.Tanh(), (x4,)),
    "Tanhshrink": (lambda: nn.Tanhshrink(), (x4,)),
    "Threshold": (lambda: nn.Threshold(0.1, 0.0), (x4,)),
    "TripletMarginLoss": (lambda: nn.TripletMarginLoss(), (r(4, 5), r(4, 5), r(4, 5))),
    "TripletMarginWithDistanceLoss": (lambda: nn.TripletMarginWithDistanceLoss(),
                                      (r(4, 5), r(4, 5), r(4, 5))),
    "Unflatten": (lambda: nn.Unflatten(1, (2, 4)), (x4,)),
    "Unfold": (lambda: nn.Unfold((2, 2)), (x4,)),
    "Upsample": (lambda: nn.Upsample(scale_factor=2), (x4,)),
    "UpsamplingBilinear2d": (lambda: nn.UpsamplingBilinear2d(scale_factor=2), (x4,)),
    "UpsamplingNearest2d": (lambda: nn.UpsamplingNearest2d(scale_factor=2), (x4,)),
    "ZeroPad2d": (lambda: nn.ZeroPad2d(1), (x4,)),
}
RECURRENT = {
    "RNN": (lambda: nn.RNN(5, 6, num_layers=2), (r(7, 3, 5),)),
    "LSTM": (lambda: nn.LSTM(5, 6, bidirectional=True), (r(7, 3, 5),)),
    "GRU": (lambda: nn.GRU(5, 6, batch_first=True), (r(3, 7, 5),)),
    "RNNCell": (lambda: nn.RNNCell(5, 6), (r(3, 5),)),
    "LSTMCell": (lambda: nn.LSTMCell(5, 6), (r(3, 5),)),
    "GRUCell": (lambda: nn.GRUCell(5, 6), (r(3, 5),)),
}
CASES.update(RECURRENT)

shipped = {n for n, c in inspect.getmembers(nn, inspect.isclass)
           if issubclass(c, nn.Module) and not n.startswith("_")}
missing = sorted(shipped - NOT_LEAVES - set(CASES))
check("every torch.nn module class has a case here (missing: %s)" % ", ".join(missing),
      not missing)

results = {}
for name, (make, args) in sorted(CASES.items()):
    m = make().eval()
    with torch.no_grad():
        a = args() if callable(args) else args
        if name.startswith("MaxUnpool"):
            a = tuple(a)
        out = m(*a)
        if name == "MultiheadAttention":
            out = out[0]
    f, b, mm, known = cost_call(m, a, None, out)
    results[name] = (f, b, m, a, out)
    check("%s is costed (not undefined)" % name, known)
    check("%s moves bytes (%g)" % (name, b), b > 0 or isinstance(m, (nn.Identity, nn.Flatten,
                                                                     nn.Unflatten, nn.Dropout,
                                                                     nn.Dropout1d, nn.Dropout2d,
                                                                     nn.Dropout3d,
                                                                     nn.AlphaDropout,
                                                                     nn.FeatureAlphaDropout)))

# Hand rules (docs/cost-model.md, docs/python.md) for the modules costed as copies or fused ops
n4 = x4.numel()
f, b = results["PixelShuffle"][:2]
check("PixelShuffle: a copy, 0 FLOPs, input + output bytes (%g, %g)" % (f, b),
      f == 0 and b == 2 * 4 * n4)
f, b = results["ChannelShuffle"][:2]
check("ChannelShuffle: a copy (%g, %g)" % (f, b), f == 0 and b == 2 * 4 * n4)
f, b = results["Bilinear"][:2]
# x1·A: 2·4·5·(7·6) = 1680; ·x2: 4·7·6 = 168 multiplies, 4·7·(6-1) = 140 adds... the cost
# model's ReduceSum counts one add per input element (168); bias 28
check("Bilinear FLOPs 1680 + 168 + 168 + 28 = 2044 (%g)" % f, f == 2044)
check("Bilinear bytes = x1 + x2 + weight + bias + out (%g)" % b,
      b == 4 * (4 * 5 + 4 * 6 + 7 * 5 * 6 + 7 + 4 * 7))
f, b = results["GLU"][:2]
check("GLU: sigmoid + multiply on the half (%g)" % f, f == 2 * 4 * 3)
f, b = results["Unfold"][:2]
out = results["Unfold"][4]
check("Unfold: a copy into the patch matrix (%g, %g)" % (f, b),
      f == 0 and b == 4 * (n4 + out.numel()))
f, b = results["Softmax2d"][:2]
f2 = results["Softmax"][0]
check("Softmax2d = Softmax over channels (%g, %g)" % (f, f2), f == f2 and f > 0)

f, b = results["LSTM"][:2]
# LSTM(5, 6, bidirectional) over 7 steps x batch 3 (n = 21 rows), per direction: input Gemm
# 2*21*5*24 + bias 21*24 = 5544, recurrent Gemm 2*21*6*24 + 504 = 6552, the two projections
# summed 504, 3 sigmoids 378, 2 tanh 252, 3 products 378, c = f*c + i*g's sum 126: 13734 x 2
check("LSTM FLOPs 27468 (%g)" % f, f == 27468)
check("LSTM bytes: x, weights and biases of both directions, y, h_n, c_n (%g)" % b,
      b == 4 * (7 * 3 * 5 + 2 * (24 * 5 + 24 * 6 + 24 + 24) + 7 * 3 * 12 + 2 * 3 * 6 * 2))
f = results["GRUCell"][0]
# GRUCell(5, 6), batch 3: Gemms 2*3*5*18 + 54 = 594 and 2*3*6*18 + 54 = 702; r,z sums 36,
# sigmoids 36, r*(W_hn h) 18, + 18, tanh 18, 1 - z 18, two products 36, the sum 18
check("GRUCell FLOPs 1494 (%g)" % f, f == 594 + 702 + 36 + 36 + 18 + 18 + 18 + 18 + 36 + 18)

print("%d module kinds costed, %d failed" % (len(results), len(fails)))
sys.exit(1 if fails else 0)
