#!/bin/sh
# gguf-open.sh — opening a 7B GGUF costs its header, not its 4 GB: makes a sparse Llama-2-7B-shaped
# GGUF (32 layers, dim 4096, ffn 11008, vocab 32000 with a 32000-token tokenizer, Q4_K weights,
# F32 norms; header written by fuzz/gen_corpus.py, data a hole made by `truncate -s`), then times
# (a) the library's rf_gguf_read_file (bench/gguf_open.c) and (b) `roofline profile` on it, against an
# anchor measured in the same run: python3 reading the same header with the standard library
# (struct walk of every key/value and tensor info). Medians of 7 runs; peak RSS by /usr/bin/time.
# Targets (issue 3): under 50 ms and 32 MB. Usage: sh bench/gguf-open.sh [BUILD_DIR]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
bin=${RF_BIN:-$build/roofline}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/llama7b.gguf" "$here/fuzz" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[2])
from gen_corpus import gguf_bytes
E, F, V, L = 4096, 11008, 32000, 32
Q4K, F32 = 12, 0
kv = [("general.architecture", 8, "llama", None), ("general.name", 8, "Llama-2-7B (sparse)", None),
      ("general.file_type", 4, 15, None), ("llama.context_length", 4, 4096, None),
      ("llama.embedding_length", 4, E, None), ("llama.block_count", 4, L, None),
      ("llama.feed_forward_length", 4, F, None), ("llama.rope.dimension_count", 4, 128, None),
      ("llama.attention.head_count", 4, 32, None), ("llama.attention.head_count_kv", 4, 32, None),
      ("llama.attention.layer_norm_rms_epsilon", 6, 1e-5, None),
      ("tokenizer.ggml.model", 8, "llama", None),
      ("tokenizer.ggml.tokens", 9, None, (8, ["tok%d" % i for i in range(V)])),
      ("tokenizer.ggml.scores", 9, None, (6, [0.0] * V)),
      ("tokenizer.ggml.token_type", 9, None, (5, [1] * V))]
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
with open(sys.argv[1], "wb") as f:
    f.write(head)
    f.truncate(total)
PY
cat >"$tmp/anchor.py" <<'PY'
import struct, sys
S = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
with open(sys.argv[1], "rb") as f:
    b = f.read(1 << 21)
p = 24
nt, nkv = struct.unpack_from("<QQ", b, 8)
def val(t):
    global p
    if t == 8:
        n, = struct.unpack_from("<Q", b, p); p += 8 + n
    elif t == 9:
        et, n = struct.unpack_from("<IQ", b, p); p += 12
        if et in S: p += S[et] * n
        else:
            for _ in range(n): val(et)
    else: p += S[t]
for _ in range(nkv):
    n, = struct.unpack_from("<Q", b, p); p += 8 + n
    t, = struct.unpack_from("<I", b, p); p += 4; val(t)
params = 0
for _ in range(nt):
    n, = struct.unpack_from("<Q", b, p); p += 8 + n
    nd, = struct.unpack_from("<I", b, p); p += 4
    dims = struct.unpack_from("<%dQ" % nd, b, p); p += 8 * nd + 12
    e = 1
    for d in dims: e *= d
    params += e
print(nt, params)
PY
# bench/gguf_open.c, built by CMake (RF_BENCH) against the build tree's library
cmake -S "$here" -B "$build" -DRF_BENCH=ON >/dev/null
cmake --build "$build" --target bench_gguf_open >/dev/null
cp "$build/bench/gguf_open" "$tmp/gguf_open"
echo "file: $(du -h --apparent-size "$tmp/llama7b.gguf" | cut -f1) apparent, $(du -h "$tmp/llama7b.gguf" | cut -f1) on disk"
echo "python anchor: $(python3 "$tmp/anchor.py" "$tmp/llama7b.gguf")"
echo "rf_gguf_read_file:  $("$tmp/gguf_open" "$tmp/llama7b.gguf")"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timeit() { s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g", a / b }'; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
runs="1 2 3 4 5 6 7"
a=$(for i in $runs; do timeit python3 "$tmp/anchor.py" "$tmp/llama7b.gguf"; done | median)
o=$(for i in $runs; do timeit "$tmp/gguf_open" "$tmp/llama7b.gguf"; done | median)
printf 'anchor python3 header walk: %8.1f ms  peak RSS %s KiB\n' "$(ratio "$a" 1000)" "$(rss python3 "$tmp/anchor.py" "$tmp/llama7b.gguf")"
printf 'rf_gguf_read_file:               %8.1f ms  (%sx the anchor)  peak RSS %s KiB\n' "$(ratio "$o" 1000)" "$(ratio "$o" "$a")" "$(rss "$tmp/gguf_open" "$tmp/llama7b.gguf")"
if "$bin" profile --peak-flops 1T --peak-bw 100G "$tmp/llama7b.gguf" >/dev/null 2>"$tmp/err"; then
    p=$(for i in $runs; do timeit "$bin" profile --peak-flops 1T --peak-bw 100G "$tmp/llama7b.gguf"; done | median)
    printf 'roofline profile:           %8.1f ms  (%sx the anchor)  peak RSS %s KiB\n' "$(ratio "$p" 1000)" "$(ratio "$p" "$a")" "$(rss "$bin" profile --peak-flops 1T --peak-bw 100G "$tmp/llama7b.gguf")"
else
    echo "roofline profile: not available on GGUF in this build ($(head -c 200 "$tmp/err"))"
fi
