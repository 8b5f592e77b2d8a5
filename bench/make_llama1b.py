#!/usr/bin/env python3
# make_llama1b.py — a Llama-3.2-1B-shaped GGUF (16 layers, dim 2048, 32 heads, 8 KV heads, ffn
# 8192, vocab 128256) with every matrix in one weight type and the norms F32, written in full
# (~700 MB for Q4_K, 2.5 GB for F16) for bench/llm-decode.sh and bench/llm-vs-llamacpp.sh. The
# output head is tied to the token embedding unless --untied adds `output.weight` (same type).
# Carries a minimal `llama` (SentencePiece) vocabulary of n_vocab tokens (<unk>, <s>, </s>, the
# 256 byte tokens, then placeholders) so llama.cpp loads the file too. Header by
# fuzz/gen_corpus.py's gguf_bytes; data random bytes with sane F16 block scales (values never
# change the kernels' time, but NaN/denormal scales would be unlike a real file), a ~1 MiB random
# pattern repeated. Standard library only.
# Usage: python3 make_llama1b.py OUT [TYPE] [--untied]
#   TYPE: F32 F16 BF16 Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K Q4_K Q5_K Q6_K (default Q4_K)
import os
import random
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "fuzz"))
from gen_corpus import GGML, gguf_bytes, tensor_bytes  # noqa: E402

# ggml type id and the byte offsets of the F16 scales in its block (reference/formats.md 5a)
TYPES = {"F32": (0, []), "F16": (1, []), "Q4_0": (2, [0]), "Q4_1": (3, [0, 2]),
         "Q5_0": (6, [0]), "Q5_1": (7, [0, 2]), "Q8_0": (8, [0]), "Q2_K": (10, [80, 82]),
         "Q3_K": (11, [108]), "Q4_K": (12, [0, 2]), "Q5_K": (13, [0, 2]), "Q6_K": (14, [208]),
         "BF16": (30, [])}
F32 = 0

args = [a for a in sys.argv[1:] if not a.startswith("--")]
untied = "--untied" in sys.argv[1:]
if not args or len(args) > 2 or (len(args) == 2 and args[1] not in TYPES):
    sys.exit("usage: make_llama1b.py OUT [%s] [--untied]" % "|".join(TYPES))
WT, scale_offs = TYPES[args[1] if len(args) == 2 else "Q4_K"]

E, F, V, L, H, HKV = 2048, 8192, 128256, 16, 32, 8
KV = HKV * (E // H)
tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
tokens += ["t%d" % i for i in range(V - len(tokens))]
ttype = [2, 3, 3] + [6] * 256 + [1] * (V - 259)  # unknown, control, byte, normal
kv = [("general.architecture", 8, "llama", None), ("general.name", 8, "Llama-1B shape (random)", None),
      ("llama.context_length", 4, 131072, None), ("llama.embedding_length", 4, E, None),
      ("llama.block_count", 4, L, None), ("llama.feed_forward_length", 4, F, None),
      ("llama.rope.dimension_count", 4, E // H, None), ("llama.attention.head_count", 4, H, None),
      ("llama.attention.head_count_kv", 4, HKV, None),
      ("llama.attention.layer_norm_rms_epsilon", 6, 1e-5, None),
      ("llama.vocab_size", 4, V, None),
      ("tokenizer.ggml.model", 8, "llama", None),
      ("tokenizer.ggml.tokens", 9, None, (8, tokens)),
      ("tokenizer.ggml.scores", 9, None, (6, [-float(i) for i in range(V)])),
      ("tokenizer.ggml.token_type", 9, None, (5, ttype)),
      ("tokenizer.ggml.bos_token_id", 4, 1, None), ("tokenizer.ggml.eos_token_id", 4, 2, None),
      ("tokenizer.ggml.unknown_token_id", 4, 0, None)]
t = [("token_embd.weight", [E, V], WT)]
for i in range(L):
    b = "blk.%d." % i
    t += [(b + "attn_norm.weight", [E], F32), (b + "attn_q.weight", [E, E], WT),
          (b + "attn_k.weight", [E, KV], WT), (b + "attn_v.weight", [E, KV], WT),
          (b + "attn_output.weight", [E, E], WT), (b + "ffn_norm.weight", [E], F32),
          (b + "ffn_gate.weight", [E, F], WT), (b + "ffn_up.weight", [E, F], WT),
          (b + "ffn_down.weight", [F, E], WT)]
t += [("output_norm.weight", [E], F32)]
if untied:
    t += [("output.weight", [E, V], WT)]
head, total = gguf_bytes(kv, t, data=False)

rng = random.Random(1)
blk, bsize = GGML[WT]
nblk = (1 << 20) // bsize
pat = bytearray(os.urandom(bsize * nblk))
if WT in (1, 30):  # F16 / BF16: every element |w| in [2^-8, 2^-6), random sign
    for i in range(0, len(pat), 2):
        e = rng.randrange(2)
        h = (0x8000 if rng.random() < 0.5 else 0) | ((7 + e) << 10) | rng.randrange(0x400)
        if WT == 30:  # the same value as bfloat16: exponent bias 127, 7 mantissa bits
            h = (h & 0x8000) | ((119 + e) << 7) | (h & 0x7F)
        struct.pack_into("<H", pat, i, h)
elif WT == 0:
    for i in range(0, len(pat), 4):
        struct.pack_into("<f", pat, i, rng.uniform(-0.02, 0.02))
for i in range(nblk):  # F16 scales in [2^-14, 2^-13): weights ~ 0.01, activations stay O(1)
    for o in scale_offs:
        struct.pack_into("<H", pat, bsize * i + o, 0x0400 + rng.randrange(0x400))
pat = bytes(pat)
ones = struct.pack("<f", 1.0) * 4096
with open(args[0], "wb") as f:
    f.write(head)
    for name, dims, ty in t:
        n = tensor_bytes(dims, ty)
        p = ones if ty == F32 and len(dims) == 1 else pat
        left = n
        while left:
            k = min(left, len(p))
            f.write(p[:k])
            left -= k
        f.write(b"\0" * ((32 - n % 32) % 32))
    assert f.tell() == total, (f.tell(), total)
