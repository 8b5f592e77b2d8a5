#!/bin/sh
# apr-vs-gguf.sh — profiling an APR file costs what profiling the same model in GGUF costs: makes a
# sparse Llama-2-7B-shaped model twice (32 layers, dim 4096, ffn 11008, vocab 32000, Q4_K matrices,
# F32 norms; the shapes of bench/gguf-open.sh's GGUF, each with a 32000-token vocabulary in its
# metadata), as GGUF (header by fuzz/gen_corpus.py) and as APR v2 in realizar's converter layout
# (GGUF tensor names, dtype byte 12, packed data, no footer; reference/apr-format.md section 7),
# data a `truncate -s` hole in both, and times `roofline profile` on each: the GGUF run is the
# anchor measured in the same run. Medians of 7 runs; peak RSS by /usr/bin/time.
# Targets (issue 18): APR at most 1.2x the GGUF time, under 20 MB of RSS.
# Usage: sh bench/apr-vs-gguf.sh [BUILD_DIR]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
bin=${RF_BIN:-$build/roofline}
[ -x "$bin" ] || { echo "apr-vs-gguf: no roofline binary at $bin (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "apr-vs-gguf: /usr/bin/time is needed (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" "$here/fuzz" <<'PY'
import json, struct, sys
sys.path.insert(0, sys.argv[2])
from gen_corpus import gguf_bytes
out = sys.argv[1]
E, F, V, L, H = 4096, 11008, 32000, 32, 32
Q4K, F32 = 12, 0
toks = ["tok%d" % i for i in range(V)]
kv = [("general.architecture", 8, "llama", None), ("general.name", 8, "Llama-2-7B (sparse)", None),
      ("llama.context_length", 4, 4096, None), ("llama.embedding_length", 4, E, None),
      ("llama.block_count", 4, L, None), ("llama.feed_forward_length", 4, F, None),
      ("llama.attention.head_count", 4, H, None), ("llama.attention.head_count_kv", 4, H, None),
      ("tokenizer.ggml.model", 8, "llama", None), ("tokenizer.ggml.tokens", 9, None, (8, toks))]
t = [("token_embd.weight", [E, V], Q4K)]
for i in range(L):
    b = "blk.%d." % i
    t += [(b + "attn_norm.weight", [E], F32), (b + "attn_q.weight", [E, E], Q4K),
          (b + "attn_k.weight", [E, E], Q4K), (b + "attn_v.weight", [E, E], Q4K),
          (b + "attn_output.weight", [E, E], Q4K), (b + "ffn_norm.weight", [E], F32),
          (b + "ffn_gate.weight", [E, F], Q4K), (b + "ffn_up.weight", [E, F], Q4K),
          (b + "ffn_down.weight", [F, E], Q4K)]
t += [("output_norm.weight", [E], F32), ("output.weight", [E, V], Q4K)]
head, total = gguf_bytes(kv, t, data=False)
with open(out + "/llama7b.gguf", "wb") as f:
    f.write(head)
    f.truncate(total)
# the same tensors as APR v2, realizar's converter layout
meta = json.dumps({"architecture": "llama", "hidden_size": E, "num_hidden_layers": L,
                   "num_attention_heads": H, "num_key_value_heads": H, "vocab_size": V,
                   "intermediate_size": F, "max_position_embeddings": 4096,
                   "model_type": "transformer_lm_q4k", "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
                   "tokenizer.vocabulary": toks}, separators=(",", ":")).encode()
index, off = b"", 0
for name, dims, ty in sorted(t):
    n = 1
    for d in dims:
        n *= d
    size = n * 4 if ty == F32 else n // 256 * 144
    rows = list(reversed(dims))  # GGUF ne -> rows first
    nb = name.encode()
    index += struct.pack("<H", len(nb)) + nb + bytes([ty, len(rows)])
    index += b"".join(struct.pack("<Q", d) for d in rows) + struct.pack("<QQ", off, size)
    off += size
pad = lambda b: b + b"\0" * (-len(b) % 64)  # noqa: E731
io = 64 + len(pad(meta))
do = io + len(pad(index))
import zlib
h = b"APR\0" + bytes([2, 0]) + struct.pack("<HIQIQQ", 0x20, len(t), 64, len(meta), io, do)
h += b"\0" * 24
h = h[:40] + struct.pack("<I", zlib.crc32(h[:40] + h[44:64])) + h[44:]
with open(out + "/llama7b.apr", "wb") as f:
    f.write(h + pad(meta) + pad(index))
    f.truncate(do + off)
PY
echo "GGUF: $(du -h --apparent-size "$tmp/llama7b.gguf" | cut -f1) apparent, $(du -h "$tmp/llama7b.gguf" | cut -f1) on disk"
echo "APR:  $(du -h --apparent-size "$tmp/llama7b.apr" | cut -f1) apparent, $(du -h "$tmp/llama7b.apr" | cut -f1) on disk"
args="profile --peak-flops 1T --peak-bw 100G"
for f in gguf apr; do
    if ! "$bin" $args "$tmp/llama7b.$f" >"$tmp/$f.out" 2>"$tmp/err"; then
        echo "apr-vs-gguf: roofline profile failed on the $f file: $(head -c 300 "$tmp/err")" >&2
        exit 1
    fi
    grep "^model:" "$tmp/$f.out"
done

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timeit() { s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g", a / b }'; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
runs="1 2 3 4 5 6 7"
# interleaved, so that a busy moment of the shared machine hits both alike
: >"$tmp/tg"
: >"$tmp/ta"
for i in $runs; do
    timeit "$bin" $args "$tmp/llama7b.gguf" >>"$tmp/tg"
    timeit "$bin" $args "$tmp/llama7b.apr" >>"$tmp/ta"
done
g=$(median <"$tmp/tg")
a=$(median <"$tmp/ta")
rg=$(rss "$bin" $args "$tmp/llama7b.gguf")
ra=$(rss "$bin" $args "$tmp/llama7b.apr")
printf 'roofline profile, GGUF (anchor): %8.1f ms  peak RSS %s KiB\n' "$(ratio "$g" 1000)" "$rg"
printf 'roofline profile, APR:           %8.1f ms  peak RSS %s KiB\n' "$(ratio "$a" 1000)" "$ra"
printf 'ratio APR / GGUF: %s (goal <= 1.2); APR RSS %s MB (goal < 20)\n' "$(ratio "$a" "$g")" \
    "$(ratio "$ra" 1024)"
