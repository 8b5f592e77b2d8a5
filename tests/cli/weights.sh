#!/bin/sh
# weights.sh — weights without a known architecture (issue 12 item 7): a GGUF of a family roofline
# does not build (tests/data/gguf/unknown_arch.gguf, made by fuzz/gen_corpus_llm.py: 12 F32
# tensors, 856 params, 3,424 bytes) and a SafeTensors file without its config.json get a weights
# report — params, bytes by type, bits per weight, tensors grouped by name, and the memory-bound
# token rate of reading them once per token — from `llm` and `profile`, exit 0.
. "$(dirname "$0")/lib.sh"

check() {
    what=$1
    shift
    if "$@"; then PASSES=$((PASSES + 1)); else
        echo "FAIL: $what"
        FAILS=$((FAILS + 1))
    fi
}

G="$SRC/tests/data/gguf/unknown_arch.gguf"
for cmd in llm profile; do
    expect 0 "" -- $cmd --hw a100-sxm4-80gb "$G"
    check "$cmd: the report, not an analysis" sh -c "tr '\\n' ' ' <'$TMP/out' | tr -s ' ' | grep -q \"architecture 'mystery' is not one roofline builds\""
    check "$cmd: 856 params, 32 bits a weight" grep -q "weights  12 tensors, 856 params, 3.42kB, 32.000 bits per weight" "$TMP/out"
    check "$cmd: blocks grouped" grep -q "blk\.\*\.attn_q\.weight" "$TMP/out"
done
# 2.039 TB/s / 3,424 B = 595,502,336 tokens/s
expect 0 "" -- llm --hw a100-sxm4-80gb --json "$G"
check "json: bytes and the ceiling" grep -q '"params": 856, "bytes": 3424' "$TMP/out"
check "json: tokens/s = bandwidth / bytes" grep -q '"bw_tokens_per_s": 595502336' "$TMP/out"

mkdir -p "$TMP/st" && cp "$SRC/tests/data/safetensors/gpt2_tiny/model.safetensors" "$TMP/st/"
expect 0 "" -- llm --hw a100-sxm4-80gb "$TMP/st/model.safetensors"
check "safetensors without config.json: said so" grep -q "a SafeTensors file without its" "$TMP/out"
check "safetensors: the fixture's 541,184 params" grep -q "541k params" "$TMP/out"

# CSV, as the neighbours have it: a total row (the ceiling), a row per type, a row per group
for cmd in llm profile; do
    expect 0 "" -- $cmd --hw a100-sxm4-80gb --csv "$G"
    check "$cmd csv: header" grep -qx "row,name,tensors,params,bytes,bits_per_weight,type,bw_tokens_per_s" "$TMP/out"
    check "$cmd csv: total" grep -q "^total,.*unknown_arch.gguf,12,856,3424,32,,595502336" "$TMP/out"
    check "$cmd csv: a group" grep -qx "group,blk.\*.attn_q.weight,1,64,256,32,F32," "$TMP/out"
    check "$cmd csv: 1 + 1 + 1 + 12 lines" sh -c "[ \$(wc -l <'$TMP/out') -eq 15 ]"
    check "$cmd: one warning" sh -c "[ \$(wc -l <'$TMP/err') -eq 1 ]"
done

# Many tensors: the report and the compute-roof pick are linear in the tensors (they were
# quadratic: 73 s for 200,000 distinct names, 61 s for a llama with 100,000 extra tensors).
if command -v timeout >/dev/null && command -v python3 >/dev/null; then
    python3 - "$SRC" "$TMP" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "fuzz"))
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "llm"))
from gen_corpus import gguf_bytes
from make_gguf import llama, F32
t = [("w%d" % i, [32, 1], F32) for i in range(150000)]
open(os.path.join(sys.argv[2], "many.gguf"), "wb").write(
    gguf_bytes([("general.architecture", 8, "mystery", None)], t)[0])
kv, t = llama("tiny + junk", 64, 128, 64, 2, 4, 4, F32, ctx=128)
t += [("junk%d" % i, [32, 1], F32) for i in range(100000)]
open(os.path.join(sys.argv[2], "junk.gguf"), "wb").write(gguf_bytes(kv, t)[0])
PY
    for f in many junk; do
        timeout 15 "$BIN" llm --hw a100-sxm4-80gb "$TMP/$f.gguf" >"$TMP/out" 2>"$TMP/err"
        check "$f.gguf: done within 15 s (exit $?)" grep -q "tokens/s" "$TMP/out"
    done
fi

finish
