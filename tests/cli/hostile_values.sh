#!/bin/sh
# hostile_values.sh — values inside a well-formed file that lie (issue 26, "validation the hostile
# set still catches"): an ONNX initializer's external-data `offset` that is negative or not a
# number, or a `length` that disagrees with the tensor's dims and type, and a GGUF tensor name
# with an embedded NUL byte. Each is bad input: exit 2, one line naming the file and the tensor.
# The files are written here by python3 (standard library only: the protobuf is encoded by hand).
. "$(dirname "$0")/lib.sh"
need python3
check() { # check "what" command...: counts a pass when the command succeeds
    what=$1
    shift
    if "$@"; then PASSES=$((PASSES + 1)); else echo "FAIL: $what"; FAILS=$((FAILS + 1)); fi
}

HW="--peak-flops 1T --peak-bw 100G"

# onnx OUT OFFSET LENGTH: a model y = x + w, w float[4] stored in w.bin at OFFSET (LENGTH: the
# "length" entry, "-" for none).
onnx() {
    python3 - "$@" <<'PY'
import sys
out, off, length = sys.argv[1:4]

def varint(v):
    b = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        b.append(c | (0x80 if v else 0))
        if not v:
            return bytes(b)

def key(field, wire):
    return varint(field << 3 | wire)

def ln(field, data):
    data = data.encode() if isinstance(data, str) else data
    return key(field, 2) + varint(len(data)) + data

def vi(field, v):
    return key(field, 0) + varint(v)

def entry(k, v):
    return ln(13, ln(1, k) + ln(2, v))

def value_info(name):
    dim = ln(1, vi(1, 4))  # Dimension{dim_value 4}
    shape = ln(2, dim)  # TensorShapeProto{dim}
    tensor = ln(1, vi(1, 1) + shape)  # TypeProto.Tensor{elem_type FLOAT, shape}
    return ln(1, name) + ln(2, tensor)

init = vi(1, 4) + vi(2, 1) + ln(8, "w") + entry("location", "w.bin") + entry("offset", off)
if length != "-":
    init += entry("length", length)
init += vi(14, 1)  # data_location EXTERNAL
node = ln(1, "x") + ln(1, "w") + ln(2, "y") + ln(3, "add") + ln(4, "Add")
graph = ln(1, node) + ln(2, "g") + ln(5, init) + ln(11, value_info("x")) + ln(12, value_info("y"))
model = vi(1, 7) + ln(7, graph) + ln(8, vi(2, 13))
open(out, "wb").write(model)
PY
}

mkdir "$TMP/m"
printf '0123456789abcdef0123456789abcdef' >"$TMP/m/w.bin"
onnx "$TMP/m/ok.onnx" 16 16 || { echo "FAIL: could not write the ONNX files"; exit 1; }
expect 0 "" -- profile $HW "$TMP/m/ok.onnx"
check "the valid model is read" grep -q "Add" "$TMP/out"
onnx "$TMP/m/nolen.onnx" 0 -
expect 0 "" -- profile $HW "$TMP/m/nolen.onnx"

onnx "$TMP/m/neg.onnx" -16 16
expect 2 "neg.onnx: graph.initializer[0] 'w': external data offset \"-16\" in 'w.bin' is not a non-negative decimal number" -- profile $HW "$TMP/m/neg.onnx"
onnx "$TMP/m/nan.onnx" 1e3 16
expect 2 "nan.onnx: graph.initializer[0] 'w': external data offset \"1e3\" in 'w.bin' is not a non-negative decimal number" -- profile $HW "$TMP/m/nan.onnx"
onnx "$TMP/m/empty.onnx" "" 16
expect 2 "external data offset \"\" in 'w.bin' is not a non-negative decimal number" -- profile $HW "$TMP/m/empty.onnx"
onnx "$TMP/m/badlen.onnx" 0 x16
expect 2 "badlen.onnx: graph.initializer[0] 'w': external data length \"x16\" in 'w.bin' is not a non-negative decimal number" -- profile $HW "$TMP/m/badlen.onnx"
onnx "$TMP/m/len.onnx" 0 12
expect 2 "len.onnx: graph.initializer[0] 'w': external data length 12 in 'w.bin', its dims and type need 16 bytes" -- profile $HW "$TMP/m/len.onnx"
# without the weights file beside it: the entries are still checked (the file is never needed)
cp "$TMP/m/len.onnx" "$TMP/len_alone.onnx"
expect 2 "len_alone.onnx: graph.initializer[0] 'w': external data length 12" -- profile $HW "$TMP/len_alone.onnx"

# GGUF: a tensor name with a NUL byte inside it.
if python3 - "$SRC" "$TMP" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/fuzz")
from gen_corpus import gguf_bytes
kv = [("general.architecture", 8, "llama", None)]
open(sys.argv[2] + "/nul.gguf", "wb").write(
    gguf_bytes(kv, [(b"token_embd\0.weight", [64, 16], 0)])[0])
open(sys.argv[2] + "/ok.gguf", "wb").write(gguf_bytes(kv, [(b"token_embd.weight", [64, 16], 0)])[0])
PY
then
    expect 2 "nul.gguf: GGUF tensor 'token_embd\\x00.weight' at byte" -- llm --hw a100-sxm4-80gb "$TMP/nul.gguf"
    check "the NUL named as the problem" grep -q "name has a NUL byte" "$TMP/err"
    "$BIN" llm --hw a100-sxm4-80gb "$TMP/ok.gguf" >"$TMP/out" 2>"$TMP/err"
    check "the same file without the NUL is not refused for its name" sh -c "! grep -q 'NUL' '$TMP/err'"
else
    echo "FAIL: could not write the GGUF files (python3)"
    FAILS=$((FAILS + 1))
fi

finish
