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

finish
