#!/usr/bin/env python3
"""gen_corpus.py - seed corpora for fuzz_gguf and fuzz_safetensors (Python standard library only).

Writes small valid GGUF files (v2 and v3, little- and big-endian, every metadata value type,
nested arrays, every ggml type with its block size, alignment 64, empty tensors) and SafeTensors
files (every dtype, metadata, empty and scalar tensors), plus truncated and mutated copies of
them (counts of 2**63, lengths past the end, overflowing dims, unknown type ids, overlapping and
misaligned offsets, headers longer than the file).  Also usable as a module: gguf_bytes() and
safetensors_bytes() build images for bench/gguf-open.sh.

    python3 fuzz/gen_corpus.py fuzz/corpus
"""
import json
import os
import struct
import sys

# ggml type id -> (elements per block, bytes per block); reference/formats.md 5a
GGML = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
        9: (32, 36), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176),
        14: (256, 210), 15: (256, 292), 16: (256, 66), 17: (256, 74), 18: (256, 98),
        19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82), 23: (256, 136), 24: (1, 1),
        25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
        34: (256, 54), 35: (256, 66), 39: (32, 17), 40: (64, 36), 41: (128, 18), 42: (64, 18)}
SCALAR = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "B", 10: "Q", 11: "q", 12: "d"}


class W:
    def __init__(self, be=False, version=3):
        self.e = ">" if be else "<"
        self.version = version
        self.b = bytearray()

    def put(self, fmt, *v):
        self.b += struct.pack(self.e + fmt, *v)

    def string(self, s):
        s = s.encode() if isinstance(s, str) else s
        self.put("Q", len(s))
        self.b += s

    def value(self, t, v, sub=None):
        if t == 8:
            self.string(v)
        elif t == 9:
            et, items = sub
            self.put("I", et)
            self.put("Q", len(items))
            for it in items:
                if et == 9:
                    self.value(9, None, it)
                else:
                    self.value(et, it)
        else:
            self.put(SCALAR[t], v)


def tensor_bytes(dims, t):
    blk, size = GGML[t]
    n = 1
    for d in dims:
        n *= d
    return n // blk * size


def gguf_bytes(kvs, tensors, align=32, be=False, version=3, data=True):
    """kvs: [(key, type, value, sub)], tensors: [(name, dims ne0-first, type)].  Returns
    (header bytes, total file size); the data section is appended as zeros when data is True."""
    w = W(be, version)
    w.b += b"GGUF"
    w.put("I", version)
    w.put("Q", len(tensors))
    w.put("Q", len(kvs))
    for key, t, v, sub in kvs:
        w.string(key)
        w.put("I", t)
        w.value(t, v, sub)
    off = 0
    for name, dims, t in tensors:
        w.string(name)
        w.put("I", len(dims))
        for d in dims:
            w.put("Q", d)
        w.put("I", t)
        w.put("Q", off)
        off += (tensor_bytes(dims, t) + align - 1) // align * align
    w.b += b"\0" * ((align - len(w.b) % align) % align)
    total = len(w.b) + off
    if data:
        w.b += b"\0" * off
    return bytes(w.b), total


def small_gguf(be=False, version=3, align=32):
    kvs = [("general.architecture", 8, "llama", None),
           ("general.alignment", 4, align, None),
           ("llama.block_count", 4, 1, None),
           ("llama.embedding_length", 4, 64, None),
           ("x.u8", 0, 7, None), ("x.i8", 1, -7, None), ("x.u16", 2, 700, None),
           ("x.i16", 3, -700, None), ("x.i32", 5, -70000, None), ("x.f32", 6, 0.5, None),
           ("x.bool", 7, 1, None), ("x.u64", 10, 1 << 40, None), ("x.i64", 11, -(1 << 40), None),
           ("x.f64", 12, 0.25, None),
           ("tokenizer.ggml.tokens", 9, None, (8, ["<unk>", "a", "bc"])),
           ("x.nested", 9, None, (9, [(3, [1, 2]), (3, [3])]))]
    tensors = [("token_embd.weight", [64, 16], 1), ("blk.0.attn_q.weight", [256, 4], 12),
               ("blk.0.attn_norm.weight", [64], 0), ("empty", [0, 3], 0)]
    return gguf_bytes(kvs, tensors, align, be, version)[0]


def all_types_gguf():
    tensors = [("t%d" % t, [GGML[t][0] * 2, 2], t) for t in sorted(GGML)]
    return gguf_bytes([("general.architecture", 8, "x", None)], tensors)[0]


def safetensors_bytes(entries, meta=None):
    """entries: [(name, dtype, shape, nbytes)] laid out in order."""
    h, off = {}, 0
    for name, dt, shape, nb in entries:
        h[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + nb]}
        off += nb
    if meta is not None:
        h["__metadata__"] = meta
    js = json.dumps(h, separators=(",", ":")).encode()
    js += b" " * ((8 - len(js) % 8) % 8)
    return struct.pack("<Q", len(js)) + js + b"\0" * off


def st_seeds():
    dts = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2, "F16": 2,
           "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "F64": 8, "I64": 8, "U64": 8}
    yield "all_dtypes.safetensors", safetensors_bytes(
        [("t_" + d, d, [2, 3], 6 * s) for d, s in dts.items()] + [("f4", "F4", [4], 2)],
        {"format": "pt"})
    yield "empty_and_scalar.safetensors", safetensors_bytes(
        [("e", "F32", [0, 4], 0), ("s", "F16", [], 2)])
    yield "gpt2_like.safetensors", safetensors_bytes(
        [("wte.weight", "F32", [10, 8], 320), ("h.0.attn.c_attn.weight", "F32", [8, 24], 768)])
    yield "config_gpt2.json", json.dumps({"model_type": "gpt2", "n_embd": 8, "n_layer": 1,
                                          "n_head": 2, "vocab_size": 10}).encode()
    yield "config_llama.json", json.dumps({"model_type": "llama", "hidden_size": 64,
                                           "num_key_value_heads": 2, "tie_word_embeddings": True,
                                           "num_local_experts": 4}).encode()


def mutations(b, kind):
    """Truncated and mutated copies of a valid image."""
    out = {}
    for cut in sorted({0, 4, 8, 12, 20, 24, len(b) // 3, len(b) // 2, len(b) - 1}):
        if 0 <= cut < len(b):
            out["trunc_%d" % cut] = b[:cut]
    if kind == "gguf":
        out["count_2_63"] = b[:8] + struct.pack("<Q", 1 << 63) + b[16:]
        out["kv_count_2_63"] = b[:16] + struct.pack("<Q", 1 << 63) + b[24:]
        out["key_len_huge"] = b[:24] + struct.pack("<Q", 1 << 62) + b[32:]
        out["version_1"] = b[:4] + struct.pack("<I", 1) + b[8:]
    else:
        out["header_len_huge"] = struct.pack("<Q", 1 << 40) + b[8:]
        out["header_len_file"] = struct.pack("<Q", len(b)) + b[8:]
    return out


def main(root):
    gdir, sdir = os.path.join(root, "gguf"), os.path.join(root, "safetensors")
    os.makedirs(gdir, exist_ok=True)
    os.makedirs(sdir, exist_ok=True)
    seeds = {"small_v3_le.gguf": small_gguf(), "small_v3_be.gguf": small_gguf(be=True),
             "small_v2.gguf": small_gguf(version=2), "align64.gguf": small_gguf(align=64),
             "all_types.gguf": all_types_gguf()}
    # hostile shapes: overflowing dims, unknown type, overlap (two tensors at offset 0)
    ovf, _ = gguf_bytes([], [("w", [1 << 32, 1 << 32], 0)], data=False)
    seeds["bad_dims_overflow.gguf"] = ovf
    seeds["bad_type_4.gguf"] = gguf_bytes([], [("w", [8], 0)])[0].replace(
        struct.pack("<IQ", 0, 0), struct.pack("<IQ", 4, 0), 1)
    for name, b in list(seeds.items()):
        with open(os.path.join(gdir, name), "wb") as f:
            f.write(b)
    for name, m in mutations(seeds["small_v3_le.gguf"], "gguf").items():
        with open(os.path.join(gdir, "mut_" + name + ".gguf"), "wb") as f:
            f.write(m)
    st = dict(st_seeds())
    for name, b in st.items():
        with open(os.path.join(sdir, name), "wb") as f:
            f.write(b)
    for name, m in mutations(st["all_dtypes.safetensors"], "st").items():
        with open(os.path.join(sdir, "mut_" + name + ".safetensors"), "wb") as f:
            f.write(m)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus"))
