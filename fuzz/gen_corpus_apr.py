#!/usr/bin/env python3
# gen_corpus_apr.py — the seed corpus of fuzz_apr (fuzz/corpus/apr/): small APR files of every
# layout of reference/apr-format.md — v2 by aprender (padded, footer) and by realizar (packed, GGML
# dtype ids, no footer), "APR2", the LZ4 flag, APR1, its raw and LZ4 wrappers (one literal-only
# LZ4 block, valid for any decoder), APRN — plus the shared fixtures' small ones copied by hand.
# Standard library only. Usage: python3 gen_corpus_apr.py OUT_DIR
import json
import os
import struct
import sys
import zlib


def pad(b, a=64):
    return b + b"\0" * (-len(b) % a)


def v2(meta, tensors, flags=0x0400, footer=True, padded=True, magic=b"APR\0"):
    """tensors: (name, dtype byte, dims rows first, stored size)."""
    m = json.dumps(meta, separators=(",", ":")).encode()
    tensors = sorted(tensors)
    index, off = b"", 0
    for name, dt, dims, size in tensors:
        n = name.encode()
        index += struct.pack("<H", len(n)) + n + bytes([dt, len(dims)])
        index += b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<QQ", off, size)
        off += size
        if padded:
            off += -off % 64
    io = 64 + len(pad(m))
    do = io + len(pad(index))
    head = magic + bytes([2, 0]) + struct.pack("<HIQIQQ", flags, len(tensors), 64, len(m), io, do)
    head += b"\0" * 24
    crc = zlib.crc32(head[:40] + head[44:64])
    head = head[:40] + struct.pack("<I", crc) + head[44:]
    out = head + pad(m) + pad(index) + b"\0" * off
    return out + struct.pack("<I", zlib.crc32(out)) if footer else out


def llama(mat, size, E=32, H=2, KV=1, F=64, V=16, names="hf"):
    D = E // H
    t = []
    hf = names == "hf"

    def add(n, dims):
        ne = dims[0] * (dims[1] if len(dims) > 1 else 1)
        if len(dims) == 1:
            t.append((n, 0, dims, 4 * ne))
        else:  # size of (elements, rows, cols)
            t.append((n, mat, dims, size(ne, dims[0], dims[1])))
    add("model.embed_tokens.weight" if hf else "token_embd.weight", [V, E])
    p = "model.layers.0." if hf else "blk.0."
    for hn, gn, dims in [("input_layernorm", "attn_norm", [E]), ("self_attn.q_proj", "attn_q", [H * D, E]),
                         ("self_attn.k_proj", "attn_k", [KV * D, E]), ("self_attn.v_proj", "attn_v", [KV * D, E]),
                         ("self_attn.o_proj", "attn_output", [E, H * D]),
                         ("post_attention_layernorm", "ffn_norm", [E]), ("mlp.gate_proj", "ffn_gate", [F, E]),
                         ("mlp.up_proj", "ffn_up", [F, E]), ("mlp.down_proj", "ffn_down", [E, F])]:
        add(p + (hn if hf else gn) + ".weight", dims)
    add("model.norm.weight" if hf else "output_norm.weight", [E])
    add("lm_head.weight" if hf else "output.weight", [V, E])
    return t


META = {"architecture": "llama", "hidden_size": 32, "num_layers": 1, "num_heads": 2,
        "num_kv_heads": 1, "vocab_size": 16, "intermediate_size": 64}
RMETA = {"architecture": "llama", "hidden_size": 32, "num_hidden_layers": 1,
         "num_attention_heads": 2, "num_key_value_heads": 1, "model_type": "transformer_lm_q4k"}


def apr1(meta, tensors):
    m = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()
    idx, off = [], 0
    for name, _, dims, size in tensors:
        idx.append({"name": name, "dtype": "F32", "shape": dims, "offset": off, "size": size})
        off += size
    i = json.dumps(idx, separators=(",", ":")).encode()
    out = b"APR1" + struct.pack("<I", len(m)) + m + struct.pack("<II", len(tensors), len(i)) + i
    out += b"\0" * off
    return out + struct.pack("<I", zlib.crc32(out))


def lz4_literals(data):
    """One LZ4 block holding `data` as literals only."""
    n = len(data)
    tok = min(n, 15) << 4
    ext = b""
    if n >= 15:
        r = n - 15
        ext = b"\xff" * (r // 255) + bytes([r % 255])
    return bytes([tok]) + ext + data


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    f32 = lambda n, r, c: 4 * n  # noqa: E731
    files = {
        "v2_aprender_f32.apr": v2(META, llama(0, f32)),
        "v2_aprender_q8.apr": v2(META, llama(9, lambda n, r, c: 4 + n)),
        "v2_aprender_q4.apr": v2(META, llama(8, lambda n, r, c: (n + 31) // 32 * 18)),
        "v2_f16_apr2.apr": v2(META, llama(1, lambda n, r, c: 2 * n), magic=b"APR2"),
        "v2_bf16_lz4flag.apr": v2(META, llama(30, lambda n, r, c: 2 * n), flags=0x0401),
        "v2_realizar_q8_0.apr": v2(RMETA, llama(8, lambda n, r, c: (n + 31) // 32 * 34, names="gguf"),
                                   flags=0x20, footer=False, padded=False),
        "v2_realizar_q4k_rows.apr": v2(RMETA, llama(12, lambda n, r, c: r * ((c + 255) // 256) * 144, names="gguf"),
                                       flags=0x20, footer=False, padded=False),
        "v2_entrenar.apr": v2({"model_config": json.dumps(META), "format": "entrenar-checkpoint"},
                              llama(0, f32)),
        "aprn_logistic.apr": b"APRN\1\0\2\0" + b"\0" * 24,
    }
    a1 = apr1(META, llama(0, f32))
    files["apr1.apr"] = a1
    files["apr1_wrapped.apr"] = b"APR\0\0" + struct.pack("<I", len(a1)) + a1
    files["apr1_lz4.apr"] = (b"APR\0\1" + struct.pack("<I", len(a1)) + struct.pack("<I", len(a1))
                             + lz4_literals(a1))
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
