#!/bin/sh
# llm.sh BIN SRC — `roofline llm`: bad options and bad files (exit 2, one line naming the file or
# option), then a sparse Llama-2-7B-shaped GGUF made by tests/llm/make_gguf.py: 6,738,415,616
# params, 13.2 GFLOP of matmuls per decoded token + 4 L d ctx, 0.5 MiB of F16 KV per token, and
# about 150 tokens/s on an A100-80GB (2039 GB/s) by the simple ceiling; JSON that parses.
. "$(dirname "$0")/lib.sh"
need python3
D=$SRC/tests/golden/data
M=$D/tiny_llama_q.gguf
expect 2 "a model file is needed" -- llm --hw "$D/machine.json"
expect 2 "--kv-bits" -- llm --hw "$D/machine.json" --kv-bits 7 "$M"
expect 2 "--act-bits" -- llm --hw "$D/machine.json" --act-bits x "$M"
expect 2 "--weights" -- llm --hw "$D/machine.json" --weights q9_z "$M"
expect 2 "--batch" -- llm --hw "$D/machine.json" --batch 0 "$M"
expect 2 "--context" -- llm --hw "$D/machine.json" --context -3 "$M"
# no machine named: this one, measured (the cache, or a quick run now), and said on stderr
"$BIN" llm "$M" >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ] || ! grep -q "no --hw given: using this machine" "$TMP/err" ||
    ! grep -q "measured" "$TMP/out"; then
    echo "FAIL: llm without --hw: $(cat "$TMP/err")"
    FAILS=$((FAILS + 1))
else
    PASSES=$((PASSES + 1))
fi
expect 2 "nonexistent.gguf" -- llm --hw "$D/machine.json" "$TMP/nonexistent.gguf"
expect 2 "not a GGUF or SafeTensors model" -- llm --hw "$D/machine.json" "$D/ops.csv"
head -c 4000 "$M" >"$TMP/truncated.gguf"
expect 2 "truncated.gguf" -- llm --hw "$D/machine.json" "$TMP/truncated.gguf"
mkdir -p "$TMP/empty_ckpt"
expect 2 "config.json" -- llm --hw "$D/machine.json" "$TMP/empty_ckpt"
expect 0 "" -- llm --hw "$D/machine.json" --json "$M"
python3 -m json.tool "$TMP/out" >/dev/null || { echo "FAIL: --json does not parse"; FAILS=$((FAILS + 1)); }
expect 0 "" -- llm --hw "$D/machine.json" --csv "$M"
head -1 "$TMP/out" | grep -q "^phase,layer,op,repeat,flops" || { echo "FAIL: csv header"; FAILS=$((FAILS + 1)); }

# the 7B check (sparse: 13.5 GB of holes)
if python3 "$SRC/tests/llm/make_gguf.py" llama7b "$TMP/llama7b.gguf" f16; then
    expect 0 "" -- llm --hw a100-sxm4-80gb --compute fp16.tensor --context 4096 --json "$TMP/llama7b.gguf"
    python3 - "$TMP/out" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
d = json.load(open(sys.argv[1]))
ok = True
def check(what, got, want, rel=0.0):
    global ok
    if abs(got - want) > rel * abs(want):
        print("FAIL: 7B %s: %r, expected %r" % (what, got, want)); ok = False
check("params", d["params"], 6738415616)
mm = 2 * (6738415616 - 4096 * 32000 - 65 * 4096)
check("decode matmul FLOPs", d["decode"]["matmul_flops"], mm + 4 * 32 * 4096 * 4096)
check("matmul FLOPs per token", mm, 13.2e9, 0.002)
check("KV bytes per token", d["ceilings"]["kv_bytes_per_token"], 524288)
check("bandwidth ceiling", d["ceilings"]["bw_tokens_per_s"], 150, 0.01)
if d["ceilings"]["simple_bound"] != "memory": print("FAIL: 7B bound"); ok = False
sys.exit(0 if ok else 1)
PY
    PASSES=$((PASSES + 1))
else
    echo "FAIL: cannot make the sparse 7B GGUF"
    FAILS=$((FAILS + 1))
fi
# every bad-input message starts with the path the user gave (issue 11, item 7)
cp "$SRC/tests/data/safetensors/gpt2_tiny/model.safetensors" "$TMP/lone.safetensors"
# without its config.json a SafeTensors file gets a weights report (issue 12 item 7), and the
# warning starts with the path
expect 0 "" -- llm --hw "$D/machine.json" "$TMP/lone.safetensors"
case "$(cat "$TMP/err")" in "roofline: warning: $TMP/lone.safetensors: "*) PASSES=$((PASSES + 1)) ;;
*) echo "FAIL: the message does not start with the path: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)) ;; esac
grep -q "a SafeTensors file without its" "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: no weights report"; FAILS=$((FAILS + 1)); }
/usr/bin/python3 - "$SRC/tests/data/gguf/tiny_llama_mixed.gguf" "$TMP/badkey.gguf" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = d.find(b'llama.block_count') + len(b'llama.block_count')
open(sys.argv[2], 'wb').write(d[:off] + struct.pack('<I', 8) + d[off + 4:])  # u32 -> string
PY
expect 2 "llama.block_count" -- llm --hw "$D/machine.json" "$TMP/badkey.gguf"
case "$(cat "$TMP/err")" in "roofline: $TMP/badkey.gguf: "*) PASSES=$((PASSES + 1)) ;;
*) echo "FAIL: the message does not start with the path: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)) ;; esac
finish
