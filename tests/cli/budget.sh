#!/bin/sh
# budget.sh — a model of a few dozen bytes cannot make --measure ask for more memory than this
# process may take: an Expand to 10^6 x 10^6 floats (4 TB) is refused before anything is
# allocated, and one to 4 GB under a 3 GB address-space limit (ulimit -v) names that limit; both
# exit 2 with one line naming the file, the need and the limit.
. "$(dirname "$0")/lib.sh"
M="--peak-flops 1T --peak-bw 100G"
echo 'CAg6TAoWCgF4CgFzEgF5GgNiaWciBkV4cGFuZBIBZyoPCAIQBzoGwIQ9wIQ9QgFzWhMKAXgSDgoMCAESCAoCCAEKAggBYgkKAXkSBAoCCAFCBAoAEA0=' | base64 -d >"$TMP/expand4t.onnx"
echo 'CAg6TAoWCgF4CgFzEgF5GgNiaWciBkV4cGFuZBIBZyoPCAIQBzoGoJwB0IYDQgFzWhMKAXgSDgoMCAESCAoCCAEKAggBYgkKAXkSBAoCCAFCBAoAEA0=' | base64 -d >"$TMP/expand4g.onnx"
# one line of diagnosis besides the progress line ("measuring: running the model ...")
refused() { # refused FILE LIMIT-WORDS: exit 2, one line naming the file, the need and the limit
    [ "$rc" -eq 2 ] && [ "$(grep -vc 'running the model' "$TMP/err")" -eq 1 ] &&
        grep -q "$1: measuring needs .* GB .*$2 allows" "$TMP/err" && PASSES=$((PASSES + 1)) ||
        { echo "FAIL: $1: exit $rc: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
}
"$BIN" profile $M --measure "$TMP/expand4t.onnx" >"$TMP/out" 2>"$TMP/err"
rc=$?
refused expand4t.onnx ""
# under a 3 GB address-space limit (not with ASan, which maps terabytes of shadow memory)
case "${RF_TEST_CFLAGS:-}" in
*sanitize=address*) ;;
*)
    (ulimit -v 3000000 && "$BIN" profile $M --measure "$TMP/expand4g.onnx") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    refused expand4g.onnx RLIMIT_AS
    ;;
esac
# The work budget: one 2048^3 MatMul is 17.2 GFLOP a pass; --max-flops 1G refuses it before
# running, naming the file; --repeat 1 is one pass in all (no warm-up).
echo 'CAg6XwoVCgF4CgF3EgF5GgJtbSIGTWF0TXVsEgFnWhUKAXgSEAoOCAESCgoDCIAQCgMIgBBaFQoBdxIQCg4IARIKCgMIgBAKAwiAEGIVCgF5EhAKDggBEgoKAwiAEAoDCIAQQgQKABAN' | base64 -d >"$TMP/mm.onnx"
"$BIN" profile $M --measure --max-flops 1G "$TMP/mm.onnx" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "mm.onnx: one pass of the model is 1.72e+10 FLOP, over the work budget of 1e+09" "$TMP/err" &&
    PASSES=$((PASSES + 1)) || { echo "FAIL: --max-flops: exit $rc: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
expect 0 '' -- profile $M --measure --repeat 1 --threads 1 "$TMP/mm.onnx"
grep -q "median of 1 timed passes after 0 warm-up" "$TMP/out" && PASSES=$((PASSES + 1)) ||
    { echo "FAIL: --repeat 1 is not one pass: $(grep -i 'timed pass' "$TMP/out")"; FAILS=$((FAILS + 1)); }
# llm --measure checks its KV cache and buffers the same way: 32 x 1M positions of the tiny Llama
# need ~70 GB, refused before anything is allocated, naming the file.
"$BIN" llm "$SRC/tests/data/gguf/tiny_llama_mixed.gguf" --hw "$SRC/tests/golden/data/machine.json" \
    --measure --batch 32 --context 1000000 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "tiny_llama_mixed.gguf: measuring needs .* GB (a KV cache of .* GB for 1000000 positions" "$TMP/err" &&
    PASSES=$((PASSES + 1)) || { echo "FAIL: llm --measure --batch 32 --context 1000000: exit $rc: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
# bad values of the new options: one line, exit 2
expect 2 "--max-flops" -- profile $M --measure --max-flops 1e9x "$TMP/mm.onnx"
expect 2 "--max-flops" -- profile $M --measure --max-flops -5 "$TMP/mm.onnx"
expect 2 "at most one PATTERN" -- ops conv gemm
finish
