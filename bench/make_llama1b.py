#!/usr/bin/env python3
# make_llama1b.py — a Llama-3.2-1B-shaped GGUF (16 layers, dim 2048, 32 heads, 8 KV heads, ffn
# 8192, vocab 128256, output tied to the token embedding) with every matrix Q4_K and the norms
# F32, written in full (~700 MB) for bench/llm-decode.sh. Header by fuzz/gen_corpus.py's
# gguf_bytes; data random bytes with sane F16 block scales (values never change the kernels'
# time, but NaN/denormal scales would be unlike a real file), a 1 MiB random pattern repeated.
# Standard library only. Usage: python3 make_llama1b.py OUT
import os
import random
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "fuzz"))
from gen_corpus import gguf_bytes, tensor_bytes  # noqa: E402

F32, Q4_K = 0, 12
E, F, V, L, H, HKV = 2048, 8192, 128256, 16, 32, 8
KV = HKV * (E // H)
kv = [("general.architecture", 8, "llama", None), ("general.name", 8, "Llama-1B shape (random)", None),
      ("llama.context_length", 4, 131072, None), ("llama.embedding_length", 4, E, None),
      ("llama.block_count", 4, L, None), ("llama.feed_forward_length", 4, F, None),
      ("llama.rope.dimension_count", 4, E // H, None), ("llama.attention.head_count", 4, H, None),
      ("llama.attention.head_count_kv", 4, HKV, None),
      ("llama.attention.layer_norm_rms_epsilon", 6, 1e-5, None)]
t = [("token_embd.weight", [E, V], Q4_K)]
for i in range(L):
    b = "blk.%d." % i
    t += [(b + "attn_norm.weight", [E], F32), (b + "attn_q.weight", [E, E], Q4_K),
          (b + "attn_k.weight", [E, KV], Q4_K), (b + "attn_v.weight", [E, KV], Q4_K),
          (b + "attn_output.weight", [E, E], Q4_K), (b + "ffn_norm.weight", [E], F32),
          (b + "ffn_gate.weight", [E, F], Q4_K), (b + "ffn_up.weight", [E, F], Q4_K),
          (b + "ffn_down.weight", [F, E], Q4_K)]
t += [("output_norm.weight", [E], F32)]
head, total = gguf_bytes(kv, t, data=False)

rng = random.Random(1)
blocks = bytearray(os.urandom(144 * 7282))  # ~1 MiB of Q4_K blocks
for i in range(7282):  # d, dmin in [2^-14, 2^-13): weights ~ 0.01, activations stay O(1)
    struct.pack_into("<HH", blocks, 144 * i, 0x0400 + rng.randrange(0x400), 0x0400 + rng.randrange(0x400))
ones = struct.pack("<f", 1.0) * 4096
with open(sys.argv[1], "wb") as f:
    f.write(head)
    for name, dims, ty in t:
        n = tensor_bytes(dims, ty)
        pat = ones if ty == F32 else bytes(blocks)
        left = n
        while left:
            k = min(left, len(pat))
            f.write(pat[:k])
            left -= k
        f.write(b"\0" * ((32 - n % 32) % 32))
    assert f.tell() == total, (f.tell(), total)
