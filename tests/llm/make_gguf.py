#!/usr/bin/env python3
# make_gguf.py — GGUF files for the LLM tests and the closing note, header written by
# fuzz/gen_corpus.py's gguf_bytes: `llama7b OUT [f16|q4_k]` a SPARSE Llama-2-7B-shaped file (32
# layers, dim 4096, ffn 11008, vocab 32000, 32 heads; the data is a hole made by truncate, so
# 13.5 GB cost no disk), `tiny OUT` a small mixed-quantization llama with GQA written in full (the
# golden case's model, ~440 kB of zeros). Standard library only. Usage: python3 make_gguf.py KIND OUT [TYPE]
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "fuzz"))
from gen_corpus import gguf_bytes  # noqa: E402

F32, F16, Q4_0, Q8_0, Q4_K, Q6_K = 0, 1, 2, 8, 12, 14


def llama(name, E, F, V, L, H, Hkv, mat, per_block=None, ctx=4096):
    kv = [("general.architecture", 8, "llama", None), ("general.name", 8, name, None),
          ("llama.context_length", 4, ctx, None), ("llama.embedding_length", 4, E, None),
          ("llama.block_count", 4, L, None), ("llama.feed_forward_length", 4, F, None),
          ("llama.rope.dimension_count", 4, E // H, None),
          ("llama.attention.head_count", 4, H, None),
          ("llama.attention.head_count_kv", 4, Hkv, None),
          ("llama.attention.layer_norm_rms_epsilon", 6, 1e-5, None)]
    KV = Hkv * (E // H)
    t = [("token_embd.weight", [E, V], mat)]
    for i in range(L):
        b = "blk.%d." % i
        q, v, d = per_block(i) if per_block else (mat, mat, mat)
        t += [(b + "attn_norm.weight", [E], F32), (b + "attn_q.weight", [E, E], q),
              (b + "attn_k.weight", [E, KV], q), (b + "attn_v.weight", [E, KV], v),
              (b + "attn_output.weight", [E, E], mat), (b + "ffn_norm.weight", [E], F32),
              (b + "ffn_gate.weight", [E, F], mat), (b + "ffn_up.weight", [E, F], mat),
              (b + "ffn_down.weight", [F, E], d)]
    t += [("output_norm.weight", [E], F32), ("output.weight", [E, V], mat)]
    return kv, t


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == "llama7b":
        mat = {"f16": F16, "q4_k": Q4_K}[sys.argv[3] if len(sys.argv) > 3 else "f16"]
        kv, t = llama("Llama-2-7B shape (sparse)", 4096, 11008, 32000, 32, 32, 32, mat)
        head, total = gguf_bytes(kv, t, data=False)
        with open(out, "wb") as f:
            f.write(head)
            f.truncate(total)
    elif kind == "tiny":
        # block 1 quantized differently from block 0: one set of layers per block
        kv, t = llama("tiny mixed llama", 256, 256, 64, 2, 4, 2, Q8_0,
                      lambda i: (Q4_0, Q6_K, Q4_K) if i == 0 else (Q8_0, Q8_0, Q6_K), ctx=512)
        head, total = gguf_bytes(kv, t, data=True)
        with open(out, "wb") as f:
            f.write(head)
    else:
        sys.exit("make_gguf.py: unknown kind '%s' (llama7b, tiny)" % kind)


if __name__ == "__main__":
    main()
