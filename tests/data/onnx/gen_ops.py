#!/usr/bin/env python3
"""gen_ops.py - ONNX models of the ops beyond the common set, with reference FLOPs counted here
independently of roofline (hand rules written out below, torch's exporter for the recurrent
ones): recurrent (LSTM, GRU), Einsum, an ONNX-Runtime-optimized transformer block (contrib ops
in com.microsoft) and a quantized CNN (QDQ and QLinear/Integer ops). Debian python3-onnx and
python3-torch. Writes NAME.onnx and NAME.ref.json ({"layers": {name: FLOPs}, "total": FLOPs}).

    python3 tests/data/onnx/gen_ops.py tests/data/onnx
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def vi(name, shape, t=F):
    return helper.make_tensor_value_info(name, t, shape)


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def save(root, name, model, ref):
    onnx.save(model, os.path.join(root, name + ".onnx"))
    with open(os.path.join(root, name + ".ref.json"), "w") as f:
        json.dump({"layers": ref, "total": sum(ref.values())}, f, indent=1, sort_keys=True)
        f.write("\n")


def recurrent(root):
    """torch.nn.LSTM (bidirectional) and GRU exported by torch.onnx (opset 14)."""
    import torch
    torch.manual_seed(0)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(16, 24, bidirectional=True)
            self.gru = torch.nn.GRU(48, 16)

        def forward(self, x):
            y, _ = self.lstm(x)
            z, _ = self.gru(y)
            return z

    S, B = 10, 2
    path = os.path.join(root, "recurrent.onnx")
    torch.onnx.export(Net(), torch.randn(S, B, 16), path, opset_version=14,
                      input_names=["x"], output_names=["z"])
    m = onnx.load(path)
    # the reference: per direction, step and batch row (docs/cost-model.md "Recurrent")
    ref = {}
    for n in m.graph.node:
        if n.op_type == "LSTM":  # I 16, H 24, 2 directions, B given
            G, H, I, dirs = 4, 24, 16, 2
            per = 2 * G * H * (I + H) + 3 * G * H + 9 * H
            ref[n.name] = S * B * dirs * per
        elif n.op_type == "GRU":  # I 48, H 16
            G, H, I, dirs = 3, 16, 48, 1
            per = 2 * G * H * (I + H) + 3 * G * H + 8 * H
            ref[n.name] = S * B * dirs * per
    with open(os.path.join(root, "recurrent.ref.json"), "w") as f:
        json.dump({"layers": ref, "total": sum(ref.values()),
                   "note": "LSTM and GRU only; the rest are views and copies"}, f, indent=1,
                  sort_keys=True)
        f.write("\n")


def einsum(root):
    eqs = [("bmm", "bij,bjk->bik", [(4, 8, 16), (4, 16, 32)], 4 * 8 * 16 * 32 * 2),
           ("dot", "i,i->", [(64,), (64,)], 64 * 2),
           ("transpose", "ij->ji", [(8, 16)], 8 * 16),
           ("scores", "bhqd,bhkd->bhqk", [(1, 4, 32, 16), (1, 4, 32, 16)], 4 * 32 * 32 * 16 * 2),
           ("batched_ell", "...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 6)], 2 * 3 * 4 * 5 * 6 * 2),
           ("implicit", "ij,jk", [(4, 5), (5, 6)], 4 * 5 * 6 * 2),
           ("three", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)], 2 * 3 * 4 * 5 * 3)]
    nodes, inputs, outputs, ref = [], [], [], {}
    for name, eq, shapes, flops in eqs:
        ins = []
        for k, s in enumerate(shapes):
            ins.append("%s_in%d" % (name, k))
            inputs.append(vi(ins[-1], list(s)))
        nodes.append(helper.make_node("Einsum", ins, [name + "_out"], equation=eq, name=name))
        outputs.append(vi(name + "_out", None))
        ref[name] = flops
    outputs = [helper.make_tensor_value_info(o.name, F, None) for o in outputs]
    g = helper.make_graph(nodes, "einsum", inputs, outputs)
    save(root, "einsum", helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), ref)


def ort_transformer(root):
    """One BERT-style block as ONNX Runtime's transformer optimizer leaves it, plus the decoder
    contrib ops (GroupQueryAttention, RotaryEmbedding, MatMulNBits), batch 1, sequence 32, width
    64 (small: the file holds its zero weights)."""
    B, S, E, NH, FF = 1, 32, 64, 4, 128
    ms = "com.microsoft"
    inits = [init("ln_g", np.ones(E, np.float32)), init("ln_b", np.zeros(E, np.float32)),
             init("ln_bias", np.zeros(E, np.float32)),
             init("qkv_w", np.zeros((E, 3 * E), np.float32)),
             init("qkv_b", np.zeros(3 * E, np.float32)),
             init("o_w", np.zeros((E, E), np.float32)), init("o_b", np.zeros(E, np.float32)),
             init("up_w", np.zeros((E, FF), np.float32)), init("up_b", np.zeros(FF, np.float32)),
             init("down_w", np.zeros((FF, E), np.float32)),
             init("nb_w", np.zeros((E, E // 32, 16), np.uint8)),
             init("nb_s", np.zeros((E * (E // 32),), np.float32)),
             init("cos", np.zeros((S, E // NH // 2), np.float32)),
             init("sin", np.zeros((S, E // NH // 2), np.float32)),
             init("pos", np.zeros((B, S), np.int64)),
             init("seqlens", np.full((B,), S - 1, np.int32)),
             init("total", np.array(S, np.int32)),
             init("split_b", np.zeros(2 * FF, np.float32))]
    n = helper.make_node
    nodes = [
        n("SkipLayerNormalization", ["x", "skip", "ln_g", "ln_b", "ln_bias"], ["ln"],
          domain=ms, epsilon=1e-5, name="skip_ln"),
        n("Attention", ["ln", "qkv_w", "qkv_b"], ["att"], domain=ms, num_heads=NH, name="attn"),
        n("MatMul", ["att", "o_w"], ["o"], name="o_proj"),
        n("BiasAdd", ["o", "o_b", "ln"], ["res"], domain=ms, name="bias_add"),
        n("MatMul", ["res", "up_w"], ["up"], name="up_proj"),
        n("BiasGelu", ["up", "up_b"], ["act"], domain=ms, name="bias_gelu"),
        n("FastGelu", ["act"], ["act2"], domain=ms, name="fast_gelu"),
        n("FusedMatMul", ["act2", "down_w"], ["down"], domain=ms, alpha=1.0, name="down_fused"),
        n("SkipSimplifiedLayerNormalization", ["down", "res", "ln_g"], ["rms"], domain=ms,
          epsilon=1e-6, name="skip_rms"),
        n("MatMulNBits", ["rms", "nb_w", "nb_s"], ["q"], domain=ms, K=E, N=E, bits=4,
          block_size=32, name="q_nbits"),
        n("RotaryEmbedding", ["q", "pos", "cos", "sin"], ["q_rot"], domain=ms, name="rope"),
        n("GroupQueryAttention", ["q_rot", "k_in", "v_in", "", "", "seqlens", "total"],
          ["gqa", "present_k", "present_v"], domain=ms, num_heads=NH, kv_num_heads=2,
          name="gqa"),
        n("MultiHeadAttention", ["gqa", "mk", "mv"], ["mha"], domain=ms, num_heads=NH, name="mha"),
        n("QuickGelu", ["mha"], ["qg"], domain=ms, alpha=1.702, name="quick_gelu"),
        n("Gelu", ["up"], ["g2"], domain=ms, name="gelu"),
        n("BiasSplitGelu", ["up2x", "split_b"], ["bsg"], domain=ms, name="bias_split_gelu"),
    ]
    inputs = [vi("x", [B, S, E]), vi("skip", [B, S, E]), vi("k_in", [B, S, E // 2]),
              vi("v_in", [B, S, E // 2]), vi("mk", [B, 16, E]), vi("mv", [B, 16, E]),
              vi("up2x", [B, S, 2 * FF])]
    outputs = [vi("qg", [B, S, E]), vi("g2", [B, S, FF]), vi("bsg", [B, S, FF]),
               vi("present_k", None), vi("present_v", None)]
    outputs = [helper.make_tensor_value_info(o.name, F, None) for o in outputs]
    g = helper.make_graph(nodes, "ort_block", inputs, outputs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14),
                                                helper.make_opsetid(ms, 1)])
    BS = B * S
    hd = E // NH
    ref = {
        "skip_ln": BS * E * 9,  # skip + bias adds, LayerNormalization's 7
        "attn": 2 * BS * E * 3 * E + BS * 3 * E  # QKV projection and its bias
        + 2 * BS * S * E * 2 + 5 * B * NH * S * S,  # QK^T, A.V over 4 heads, softmax
        "o_proj": 2 * BS * E * E,
        "bias_add": BS * E * 2,
        "up_proj": 2 * BS * E * FF,
        "bias_gelu": BS * FF * 2,
        "fast_gelu": BS * FF,
        "down_fused": 2 * BS * FF * E,
        "skip_rms": BS * E * 5,
        "q_nbits": 2 * BS * E * E,
        "rope": BS * E * 3,
        # GQA: 4 query heads over 2 KV heads, head 16, keys = the 32 new positions
        "gqa": 2 * BS * S * E * 2 + 5 * B * NH * S * S,
        # MHA: keys and values of 16 positions
        "mha": 2 * BS * 16 * E * 2 + 5 * B * NH * S * 16,
        "quick_gelu": BS * E,
        "gelu": BS * FF,
        "bias_split_gelu": BS * FF * 4,
    }
    assert hd == 16
    save(root, "ort_transformer", model, ref)


def quantized(root):
    """A QDQ-quantized CNN (QuantizeLinear / DequantizeLinear around a Conv) and the integer ops:
    QLinearConv, QLinearMatMul, MatMulInteger, ConvInteger, DynamicQuantizeLinear."""
    u8, i8 = np.uint8, np.int8
    inits = [init("s", np.array(0.02, np.float32)), init("zp", np.array(128, u8)),
             init("w_q", np.zeros((16, 3, 3, 3), i8)), init("w_s", np.array(0.01, np.float32)),
             init("w_zp", np.array(0, i8)),
             init("w2", np.zeros((32, 16, 3, 3), u8)), init("w2_zp", np.array(0, u8)),
             init("fc_w", np.zeros((32 * 16 * 16, 10), u8)), init("fc_zp", np.array(0, u8)),
             init("w3", np.zeros((8, 32, 1, 1), u8)), init("b2", np.zeros(32, np.int32))]
    n = helper.make_node
    nodes = [
        n("QuantizeLinear", ["x", "s", "zp"], ["xq"], name="quant_in"),
        n("DequantizeLinear", ["xq", "s", "zp"], ["xd"], name="dequant_in"),
        n("DequantizeLinear", ["w_q", "w_s", "w_zp"], ["wd"], name="dequant_w"),
        n("Conv", ["xd", "wd"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        n("QuantizeLinear", ["c1", "s", "zp"], ["c1q"], name="quant_c1"),
        n("QLinearConv", ["c1q", "s", "zp", "w2", "s", "w2_zp", "s", "zp", "b2"], ["c2q"],
          pads=[1, 1, 1, 1], strides=[2, 2], name="qlinear_conv"),
        n("ConvInteger", ["c2q", "w3", "zp", "w2_zp"], ["c3"], name="conv_integer"),
        n("Flatten", ["c2q"], ["flat"], axis=1, name="flatten"),
        n("QLinearMatMul", ["flat", "s", "zp", "fc_w", "s", "fc_zp", "s", "zp"], ["fcq"],
          name="qlinear_matmul"),
        n("MatMulInteger", ["flat", "fc_w", "zp", "fc_zp"], ["fci"], name="matmul_integer"),
        n("DynamicQuantizeLinear", ["xf"], ["dq", "dq_s", "dq_zp"], name="dynamic_quant"),
    ]
    inputs = [vi("x", [1, 3, 32, 32]), vi("xf", [1, 64])]
    outputs = [helper.make_tensor_value_info(o, t, None) for o, t in
               (("c3", TensorProto.INT32), ("fcq", TensorProto.UINT8),
                ("fci", TensorProto.INT32), ("dq", TensorProto.UINT8))]
    g = helper.make_graph(nodes, "qcnn", inputs, outputs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    ref = {
        "quant_in": 2 * 3 * 32 * 32, "dequant_in": 2 * 3 * 32 * 32,
        "dequant_w": 2 * 16 * 3 * 3 * 3,
        "conv1": 2 * 16 * 32 * 32 * 3 * 9,
        "quant_c1": 2 * 16 * 32 * 32,
        "qlinear_conv": 2 * 32 * 16 * 16 * 16 * 9 + 32 * 16 * 16,  # + int32 bias
        "conv_integer": 2 * 8 * 16 * 16 * 32,
        "qlinear_matmul": 2 * 32 * 16 * 16 * 10,
        "matmul_integer": 2 * 32 * 16 * 16 * 10,
        "dynamic_quant": 4 * 64,
    }
    save(root, "quantized", model, ref)


def selection(root):
    """Selection, scans, gathers and scatters as torch.onnx exports them (opset 16): torch.topk ->
    TopK, torch.cumsum -> CumSum, Tensor.scatter / scatter_add -> ScatterElements (reduction add),
    Tensor.index_put -> ScatterND, torch.argmax -> ArgMax, torch.gather -> GatherElements; plus a
    Range of constants and a GatherND (onnx.helper), as torch.arange over a dynamic length and
    TensorFlow's exports leave them. Reference by the hand rules of docs/cost-model.md "Selection, scans
    and scatters", written out here; shapes checked by onnx's shape inference."""
    import torch
    torch.manual_seed(0)

    class Net(torch.nn.Module):
        def forward(self, x, mask, idx, upd):
            v, i = torch.topk(x, 5, dim=1)
            pos = torch.cumsum(mask, dim=1)
            y = x.scatter(1, i, v * 2)
            z = y.index_put((idx,), upd)
            w = y.scatter_add(1, i, v)
            am = torch.argmax(x, dim=2)
            ge = torch.gather(x, 1, i)
            return v, pos, z, w, am, ge

    B, N, C, K = 2, 50, 8, 5
    path = os.path.join(root, "selection.onnx")
    torch.onnx.export(Net(), (torch.randn(B, N, C), torch.ones(B, N), torch.tensor([0, 1]),
                              torch.randn(2, N, C)), path, opset_version=16,
                      input_names=["x", "mask", "idx", "upd"],
                      output_names=["v", "pos", "z", "w", "am", "ge"])
    m = onnx.load(path)
    # a Range of constants, 0 .. N step 1 (what torch.arange(x.shape[1]) becomes with a dynamic N)
    m.graph.initializer.extend([init("r_start", np.array(0, np.int64)),
                                init("r_limit", np.array(N, np.int64)),
                                init("r_delta", np.array(1, np.int64))])
    m.graph.node.append(helper.make_node("Range", ["r_start", "r_limit", "r_delta"], ["r"],
                                         name="/Range"))
    m.graph.output.append(vi("r", [N], TensorProto.INT64))
    # GatherND of (batch, row) pairs: 3 tuples of 2 indices pick rows of C (as TF exports do)
    m.graph.initializer.append(init("nd_idx", np.array([[0, 1], [1, 49], [0, 7]], np.int64)))
    m.graph.node.append(helper.make_node("GatherND", ["x", "nd_idx"], ["nd"], name="/GatherND"))
    m.graph.output.append(vi("nd", [3, C]))
    onnx.checker.check_model(m)
    inferred = onnx.shape_inference.infer_shapes(m)
    dims = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
            for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    assert dims["v"] == [B, K, C] and dims["pos"] == [B, N] and dims["z"] == [B, N, C], dims
    assert dims["am"] == [B, N] and dims["ge"] == [B, K, C] and dims["nd"] == [3, C], dims
    onnx.save(m, path)
    log2k = 0
    while (1 << log2k) < K:
        log2k += 1
    ref = {}
    for n in m.graph.node:
        if n.op_type == "TopK":  # a comparison per input element, then K*ceil(log2 K) per slice
            ref[n.name] = B * N * C + (B * K * C) * log2k
        elif n.op_type == "CumSum":  # one add per element of mask
            ref[n.name] = B * N
        elif n.op_type == "Mul":  # v * 2
            ref[n.name] = B * K * C
        elif n.op_type == "ScatterElements":  # add: one per update; none: a copy
            red = [a.s for a in n.attribute if a.name == "reduction"]
            ref[n.name] = B * K * C if red and red[0] == b"add" else 0
        elif n.op_type == "ArgMax":  # a comparison per input element
            ref[n.name] = B * N * C
        elif n.op_type in ("ScatterND", "Range", "GatherElements", "GatherND"):
            ref[n.name] = 0
    with open(os.path.join(root, "selection.ref.json"), "w") as f:
        json.dump({"layers": ref, "total": sum(ref.values())}, f, indent=1, sort_keys=True)
        f.write("\n")


def more_ops(root):
    """The rest of the standard ops a profile may meet, each on one small input, written with
    onnx.helper at opset 17: inverse and hyperbolic trigonometry, Round, Sign, Softsign, Shrink,
    ThresholdedRelu, Celu, Hardmax; LRN, MeanVarianceNormalization, LpNormalization; ReduceL1,
    ReduceLogSum, ReduceLogSumExp, GlobalLpPool; CastLike, Trilu, OneHot; the generators
    (EyeLike, RandomNormalLike, RandomNormal, HannWindow). Reference by the hand rules of
    docs/cost-model.md written out here; shapes checked by onnx's shape inference."""
    N, C, H, W = 1, 8, 6, 6
    E = N * C * H * W
    nodes, ref, outs = [], {}, []

    def node(op, ins, name, flops, out_shape, dtype=F, **attrs):
        nodes.append(helper.make_node(op, ins, [name + "_y"], name=name, **attrs))
        ref[name] = flops
        outs.append((name + "_y", out_shape, dtype))

    for op in ["Acos", "Asin", "Atan", "Tan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
               "Round", "Sign", "Softsign", "Celu", "Hardmax"]:
        node(op, ["x"], op.lower(), E, [N, C, H, W])  # one per element
    node("Shrink", ["x"], "shrink", E, [N, C, H, W], lambd=0.25)
    node("ThresholdedRelu", ["x"], "thresholded_relu", E, [N, C, H, W], alpha=0.5)
    node("LRN", ["x"], "lrn", E * (2 * 5 + 4), [N, C, H, W], size=5)  # 5 squares summed, 4 more
    node("MeanVarianceNormalization", ["x"], "mvn", E * 5, [N, C, H, W])
    node("LpNormalization", ["x"], "lp_norm", E * 3, [N, C, H, W], axis=1, p=2)
    node("ReduceL1", ["x"], "reduce_l1", E, [N, C], axes=[2, 3], keepdims=0)  # per input element
    node("ReduceLogSum", ["x"], "reduce_log_sum", E, [N, 1, 1, 1])
    node("ReduceLogSumExp", ["x"], "reduce_log_sum_exp", E, [N, C, 1, W], axes=[2])
    node("GlobalLpPool", ["x"], "global_lp_pool", E, [N, C, 1, 1])
    node("CastLike", ["x", "like"], "cast_like", 0, [N, C, H, W], TensorProto.DOUBLE)
    node("Trilu", ["x", "tri_k"], "trilu", 0, [N, C, H, W], upper=0)
    node("OneHot", ["hot_idx", "hot_depth", "hot_values"], "one_hot", 0, [4, 10], axis=-1)
    node("EyeLike", ["square"], "eye_like", 0, [W, W])
    node("RandomNormalLike", ["x"], "random_normal_like", 0, [N, C, H, W])
    node("RandomNormal", [], "random_normal", 0, [3, 4], shape=[3, 4])
    node("HannWindow", ["win_size"], "hann_window", 0, [16])
    node("ReverseSequence", ["x3", "seq_lens"], "reverse_sequence", 0, [4, 3, 5])
    node("BitShift", ["bits", "bits"], "bit_shift", 6, [6], TensorProto.UINT32, direction="LEFT")
    # spectral: a 1-s 16 kHz signal framed at 400 with a step of 160 (a speech front end):
    # 98 frames, each the window product (400) and a real FFT, 2.5 * 400 * ceil(log2 400) = 9000
    # onnx 1.12's inference counts STFT frames from the bins, not the frame length (99 here; the
    # bug onnx#4920 / onnxruntime#14316 describe), so the frames are declared symbolic and the
    # spec's 98 is checked through the FLOPs
    node("STFT", ["sig", "hop", "win400", "flen"], "stft", 98 * (400 + 9000),
         [1, "frames", 201, 2], onesided=1)
    # a complex DFT of 64 along axis 1 of [2, 64, 2]: 2 transforms of 5 * 64 * 6
    node("DFT", ["cplx"], "dft", 2 * 5 * 64 * 6, [2, 64, 2])
    node("MelWeightMatrix", ["mel_bins", "mel_len", "mel_rate", "mel_lo", "mel_hi"], "mel", 0,
         [201, 80])
    inits = [init("like", np.zeros([1], np.float64)), init("tri_k", np.array(1, np.int64)),
             init("hot_idx", np.array([0, 3, 9, -1], np.int64)),
             init("hot_depth", np.array(10, np.int64)),
             init("hot_values", np.array([0.0, 1.0], np.float32)),
             init("square", np.zeros([W, W], np.float32)),
             init("win_size", np.array(16, np.int64)),
             init("seq_lens", np.array([5, 3, 1], np.int64)),
             init("bits", np.arange(6, dtype=np.uint32)),
             init("hop", np.array(160, np.int64)), init("flen", np.array(400, np.int64)),
             init("win400", np.hanning(400).astype(np.float32)),
             init("mel_bins", np.array(80, np.int64)), init("mel_len", np.array(400, np.int64)),
             init("mel_rate", np.array(16000, np.int64)),
             init("mel_lo", np.array(0.0, np.float32)),
             init("mel_hi", np.array(8000.0, np.float32))]
    g = helper.make_graph(nodes, "more_ops", [vi("x", [N, C, H, W]), vi("x3", [4, 3, 5]),
                                              vi("sig", [1, 16000, 1]), vi("cplx", [2, 64, 2])],
                          [vi(n, s, t) for n, s, t in outs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    for v in inferred.graph.output:
        want = [s for n, s, _ in outs if n == v.name][0]
        got = [d.dim_value if d.HasField("dim_value") else d.dim_param
               for d in v.type.tensor_type.shape.dim]
        assert all(g == w for g, w in zip(got, want) if isinstance(w, int)), (v.name, got, want)
        assert len(got) == len(want), (v.name, got, want)
    save(root, "more_ops", m, ref)


GENERATORS = {"einsum": einsum, "ort_transformer": ort_transformer, "quantized": quantized,
              "recurrent": recurrent, "selection": selection, "more_ops": more_ops}


def main(root, names):
    for name in names or GENERATORS:
        GENERATORS[name](root)


if __name__ == "__main__":
    # gen_ops.py [DIR [NAME...]]: every model, or the ones named
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/onnx", sys.argv[2:])
