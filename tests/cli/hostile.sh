#!/bin/sh
# hostile.sh — files that are not regular files (issue 11 item 4): a FIFO or a symlink to
# /dev/zero as the operations list, the machine file, a result, a split GGUF shard, a SafeTensors
# shard or config.json is refused at once — exit 2, one line naming it — never read until memory
# runs out, never waited on. Every run is under `timeout 10`; a hang fails the test (exit 124).
# Also: a sparse GGUF claiming (size-24)/24 tensors is bad input (exit 2), not an allocation.
. "$(dirname "$0")/lib.sh"

command -v mkfifo >/dev/null && command -v timeout >/dev/null || {
    echo "SKIP: mkfifo or timeout missing"
    exit 77
}
[ -c /dev/zero ] || {
    echo "SKIP: no /dev/zero"
    exit 77
}

# hexpect CODE "fragment" -- args: like expect, under timeout 10.
hexpect() {
    code=$1
    frag=$2
    shift 3
    timeout 10 "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ "$rc" -eq 124 ]; then
        echo "FAIL: roofline $*: hung (killed after 10 s)"
        FAILS=$((FAILS + 1))
        return
    fi
    if [ "$rc" -ne "$code" ]; then
        echo "FAIL: roofline $*: exit $rc, expected $code; stderr: $(head -c 300 "$TMP/err")"
        FAILS=$((FAILS + 1))
    elif ! grep -qF -- "$frag" "$TMP/err"; then
        echo "FAIL: roofline $*: stderr lacks '$frag': $(head -c 300 "$TMP/err")"
        FAILS=$((FAILS + 1))
    elif [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
        echo "FAIL: roofline $*: expected one line on stderr:"
        cat "$TMP/err"
        FAILS=$((FAILS + 1))
    else
        PASSES=$((PASSES + 1))
    fi
}

P="--peak-flops 1T --peak-bw 100G"
mkfifo "$TMP/fifo.csv" "$TMP/fifo.json"
ln -s /dev/zero "$TMP/zero.csv"
ln -s /dev/zero "$TMP/zero.json"

# The operations list, the machine file, a saved result.
hexpect 2 "fifo.csv: is a FIFO, not a regular file" -- analyze $P "$TMP/fifo.csv"
hexpect 2 "zero.csv: is a character device, not a regular file" -- analyze $P "$TMP/zero.csv"
printf 'name,flops,bytes\na,1,2\n' >"$TMP/ok.csv"
hexpect 2 "fifo.json: is a FIFO" -- analyze --hw "$TMP/fifo.json" "$TMP/ok.csv"
hexpect 2 "zero.json: is a character device" -- analyze --hw "$TMP/zero.json" "$TMP/ok.csv"
hexpect 2 "fifo.json: is a FIFO" -- plot "$TMP/fifo.json" -o "$TMP/chart.svg"

# A split GGUF whose second shard is a FIFO, then /dev/zero (the name is derived from the first).
if python3 - "$SRC" "$TMP/m-00001-of-00002.gguf" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/fuzz")
from gen_corpus import gguf_bytes
kv = [("general.architecture", 8, "llama", None), ("split.no", 2, 0, None),
      ("split.count", 2, 2, None), ("split.tensors.count", 5, 2, None)]
open(sys.argv[2], "wb").write(gguf_bytes(kv, [("token_embd.weight", [64, 16], 0)])[0])
PY
then
    mkfifo "$TMP/m-00002-of-00002.gguf"
    hexpect 2 "m-00002-of-00002.gguf: is a FIFO" -- llm --hw a100-sxm4-80gb "$TMP/m-00001-of-00002.gguf"
    rm "$TMP/m-00002-of-00002.gguf"
    ln -s /dev/zero "$TMP/m-00002-of-00002.gguf"
    hexpect 2 "m-00002-of-00002.gguf: is a character device" -- llm --hw a100-sxm4-80gb "$TMP/m-00001-of-00002.gguf"
else
    echo "FAIL: could not write the split GGUF (python3)"
    FAILS=$((FAILS + 1))
fi

# A SafeTensors checkpoint folder whose second shard, then whose config.json, is not a file.
mkdir "$TMP/st"
if python3 - "$SRC" "$TMP/st" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[1] + "/fuzz")
from gen_corpus import safetensors_bytes
d = sys.argv[2]
open(d + "/model-00001-of-00002.safetensors", "wb").write(
    safetensors_bytes([("model.embed_tokens.weight", "F32", [16, 8], 512)]))
json.dump({"weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors",
                          "lm_head.weight": "model-00002-of-00002.safetensors"}},
          open(d + "/model.safetensors.index.json", "w"))
json.dump({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1,
           "num_attention_heads": 2, "intermediate_size": 16, "vocab_size": 16},
          open(d + "/config.json", "w"))
PY
then
    mkfifo "$TMP/st/model-00002-of-00002.safetensors"
    hexpect 2 "model-00002-of-00002.safetensors: is a FIFO" -- llm --hw a100-sxm4-80gb "$TMP/st"
    rm "$TMP/st/model-00002-of-00002.safetensors"
    ln -s /dev/zero "$TMP/st/model-00002-of-00002.safetensors"
    hexpect 2 "model-00002-of-00002.safetensors: is a character device" -- llm --hw a100-sxm4-80gb "$TMP/st"
    rm "$TMP/st/model-00002-of-00002.safetensors" "$TMP/st/model.safetensors.index.json"
    mv "$TMP/st/model-00001-of-00002.safetensors" "$TMP/st/model.safetensors"
    rm "$TMP/st/config.json"
    mkfifo "$TMP/st/config.json"
    hexpect 2 "config.json: is a FIFO" -- llm --hw a100-sxm4-80gb "$TMP/st/model.safetensors"
else
    echo "FAIL: could not write the SafeTensors folder (python3)"
    FAILS=$((FAILS + 1))
fi

# A sparse 100 GB GGUF (a hole: no disk used) claiming (size-24)/24 tensors.
if python3 -c "
import struct, sys
n = 100 * 10**9
f = open(sys.argv[1], 'wb'); f.write(b'GGUF' + struct.pack('<IQQ', 3, (n - 24) // 24, 0)); f.truncate(n)
" "$TMP/sparse.gguf" 2>/dev/null; then
    hexpect 2 "sparse.gguf: GGUF tensor count 4166666665 at byte 8 is implausible" -- llm --hw a100-sxm4-80gb "$TMP/sparse.gguf"
    rm -f "$TMP/sparse.gguf"
else
    echo "note: no sparse files here; the implausible-count case is skipped"
fi

# A result of millions of tiny rows (issue 11 item 3): the rows are read one at a time, so under a
# 300 MB data limit a 32 MB file is refused for what it is (no machine), not for memory (jansson's
# whole tree took ~1 GB, and 3.2 GB for 100 MB).
{
    printf '{"schema":1,"kind":"analysis","rows":['
    yes '[0],' | head -n 8000000 | tr -d '\n'
    printf '[0]]}'
} >"$TMP/rows.json"
(
    case "${RF_TEST_CFLAGS:-}" in *sanitize*) exit 0 ;; esac # ASan's shadow needs the address space
    ulimit -d 300000 2>/dev/null || exit 0
    hexpect 2 "rows.json: top level: missing 'machine'" -- plot "$TMP/rows.json" -o "$TMP/r.svg"
    exit "$FAILS"
) || FAILS=$((FAILS + 1))
rm -f "$TMP/rows.json"

# A path with an escape byte is named once, escaped (the loader names it; the profile's own check
# that the message already names the file compares the escaped form).
esc=$(printf 'a\033b.onnx')
expect 2 'a\x1bb.onnx: no such file' -- profile "$TMP/$esc" --hw a100-sxm4-80gb
n=$(grep -o 'a\\x1bb\.onnx' "$TMP/err" | wc -l)
[ "$n" -eq 1 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: the escaped path appears $n times: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
if grep -q "$(printf '\033')" "$TMP/err"; then
    echo "FAIL: a raw escape byte reached stderr"
    FAILS=$((FAILS + 1))
fi

finish
