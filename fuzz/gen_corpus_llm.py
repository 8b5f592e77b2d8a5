#!/usr/bin/env python3
"""gen_corpus_llm.py - seeds for fuzz_llm: tiny GGUF transformers (llama with GQA, a fused-QKV
GPT-2 style block, a gated MoE, Q8_0 weights, an unknown architecture) whose hyper-parameters
the fuzzer mutates (block counts, head counts, context lengths, dims near 2**63). Uses
gen_corpus.gguf_bytes (Python standard library only).

    python3 fuzz/gen_corpus_llm.py fuzz/corpus/llm
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_corpus import gguf_bytes  # noqa: E402


def llama(arch="llama", e=8, ff=16, heads=2, kv=1, vocab=16, blocks=2, wt=0, moe=0):
    d = e // heads
    kvs = [("general.architecture", 8, arch, None),
           (arch + ".block_count", 4, blocks, None),
           (arch + ".embedding_length", 4, e, None),
           (arch + ".feed_forward_length", 4, ff, None),
           (arch + ".attention.head_count", 4, heads, None),
           (arch + ".attention.head_count_kv", 4, kv, None),
           (arch + ".context_length", 4, 256, None),
           (arch + ".rope.dimension_count", 4, d, None)]
    if moe:
        kvs += [(arch + ".expert_count", 4, moe, None), (arch + ".expert_used_count", 4, 2, None)]
    ts = [("token_embd.weight", [e, vocab], wt), ("output_norm.weight", [e], 0),
          ("output.weight", [e, vocab], wt)]
    for b in range(blocks):
        p = "blk.%d." % b
        ts += [(p + "attn_norm.weight", [e], 0), (p + "attn_q.weight", [e, e], wt),
               (p + "attn_k.weight", [e, kv * d], wt), (p + "attn_v.weight", [e, kv * d], wt),
               (p + "attn_output.weight", [e, e], wt), (p + "ffn_norm.weight", [e], 0)]
        if moe:
            ts += [(p + "ffn_gate_inp.weight", [e, moe], 0),
                   (p + "ffn_gate_exps.weight", [e, ff, moe], wt),
                   (p + "ffn_up_exps.weight", [e, ff, moe], wt),
                   (p + "ffn_down_exps.weight", [ff, e, moe], wt)]
        else:
            ts += [(p + "ffn_gate.weight", [e, ff], wt), (p + "ffn_up.weight", [e, ff], wt),
                   (p + "ffn_down.weight", [ff, e], wt)]
    return gguf_bytes(kvs, ts)[0]


def gpt2(e=8, vocab=16, blocks=1):
    kvs = [("general.architecture", 8, "gpt2", None), ("gpt2.block_count", 4, blocks, None),
           ("gpt2.embedding_length", 4, e, None), ("gpt2.feed_forward_length", 4, 4 * e, None),
           ("gpt2.attention.head_count", 4, 4, None), ("gpt2.context_length", 4, 128, None)]
    ts = [("token_embd.weight", [e, vocab], 0), ("position_embd.weight", [e, 16], 0),
          ("output_norm.weight", [e], 0), ("output_norm.bias", [e], 0)]
    for b in range(blocks):
        p = "blk.%d." % b
        ts += [(p + "attn_norm.weight", [e], 0), (p + "attn_qkv.weight", [e, 3 * e], 0),
               (p + "attn_qkv.bias", [3 * e], 0), (p + "attn_output.weight", [e, e], 0),
               (p + "ffn_up.weight", [e, 4 * e], 0), (p + "ffn_down.weight", [4 * e, e], 0)]
    return gguf_bytes(kvs, ts)[0]


def main(root):
    os.makedirs(root, exist_ok=True)
    seeds = {"llama_gqa.gguf": llama(), "llama_q8_0.gguf": llama(wt=8, e=32, ff=32),
             "moe.gguf": llama(arch="qwen2moe", moe=4, blocks=1),
             "gpt2.gguf": gpt2(), "unknown_arch.gguf": llama(arch="mystery", blocks=1)}
    for name, data in seeds.items():
        with open(os.path.join(root, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fuzz/corpus/llm")
