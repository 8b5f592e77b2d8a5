#!/bin/sh
# measure.sh — `profile --measure` runs the model on this CPU and every layer's row carries its
# measured time: the table's measured columns, the JSON's "measured" objects (read back by plot),
# the executor's summary line, and the usage errors of its options (issue 10). No timing
# assertions: only that the figures are there, finite and positive.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/golden/data
M=$SRC/tests/data/onnx/tiny_cnn.onnx
expect 0 "" -- profile "$M" --hw "$D/machine.json" --measure --repeat 3
for w in "measured" "achieved" "util." "whole pass"; do
    grep -qF "$w" "$TMP/out" || { echo "FAIL: the measured table lacks '$w'"; FAILS=$((FAILS + 1)); }
done
expect 0 "" -- profile "$M" --hw "$D/machine.json" --measure --repeat 2 --threads 1 --json
cp "$TMP/out" "$TMP/r.json"
n=$(grep -c '"measured": {"time_s": [0-9]' "$TMP/r.json")
[ "$n" -ge 5 ] || { echo "FAIL: $n measured rows in the JSON"; FAILS=$((FAILS + 1)); }
expect 0 "" -- plot "$TMP/r.json" -o "$TMP/m.svg"
grep -q 'data-measured' "$TMP/m.svg" || { echo "FAIL: no measured marker in the chart"; FAILS=$((FAILS + 1)); }
# Other processes on every CPU while the passes are timed: one warning line on stderr, a "busy"
# line under the totals and the share in the JSON. (A quiet run cannot be asserted here: other
# tests run beside this one.)
n=$(nproc 2>/dev/null || echo 2)
spin=""
i=0
while [ "$i" -lt "$n" ]; do
    timeout 60 sh -c 'while :; do :; done' & # ends on its own if this script is killed
    spin="$spin $!"
    i=$((i + 1))
done
expect 0 "measuring was disturbed: other processes used" -- profile "$M" --hw "$D/machine.json" --measure --repeat 3000
grep -q "^busy     other processes used [0-9]*% of the CPU time" "$TMP/out" || { echo "FAIL: no busy line under load"; FAILS=$((FAILS + 1)); }
expect 0 "measuring was disturbed" -- profile "$M" --hw "$D/machine.json" --measure --repeat 3000 --json
grep -q '"busy_other": 0\.[1-9]' "$TMP/out" || { echo "FAIL: no busy_other over 0.1 in the JSON"; FAILS=$((FAILS + 1)); }
kill $spin 2>/dev/null
# Constants computed from weights (a Slice, Transpose, Concat of initializers feeding an LSTM and a
# MatMul) are folded: computed once at load, their rows saying so, the title counting them, and
# the pass whole (exit 0 without --allow-unmeasured).
F=$SRC/tests/data/onnx/field_fold.onnx
expect 0 "" -- profile "$F" --hw "$D/machine.json" --measure --repeat 2 --threads 1
grep -q "(8 of 10 layers folded: constants, computed once at load in .* not in the pass)" "$TMP/out" ||
    { echo "FAIL: the title does not count the folded layers"; FAILS=$((FAILS + 1)); }
n=$(grep -c "folded: a constant" "$TMP/out")
[ "$n" -ge 10 ] || { echo "FAIL: $n folded rows (8 layers and the LSTM's 2 reorders)"; FAILS=$((FAILS + 1)); }
grep -q "^wall .* for the whole pass" "$TMP/out" || { echo "FAIL: a folded pass is not whole"; FAILS=$((FAILS + 1)); }
expect 0 "" -- profile "$F" --hw "$D/machine.json" --measure --repeat 2 --threads 1 --json
grep -q '"shape": "8x4 folded: a constant, computed once at load ([0-9.]* [mun]*s)"' "$TMP/out" ||
    { echo "FAIL: no folded row in the JSON"; FAILS=$((FAILS + 1)); }
# A hostile OneHot depth (2^62): the cost is undefined, and --measure refuses the tensor in one
# line that names the file, exit 2 (never an allocation attempt).
H=$SRC/tests/data/onnx/hostile_onehot_depth.onnx
"$BIN" profile "$H" --hw "$D/machine.json" --measure --allow-undefined >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 2 ] && tail -n 1 "$TMP/err" | grep -q "^roofline: .*hostile_onehot_depth.onnx: tensor 'y' has too many elements"; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: hostile OneHot under --measure: exit $rc: $(cat "$TMP/err")"
    FAILS=$((FAILS + 1))
fi
expect 2 "--repeat" -- profile "$M" --hw "$D/machine.json" --measure --repeat 0
expect 2 "--threads" -- profile "$M" --hw "$D/machine.json" --measure --threads x
# llm: rates given on the command line, and measured on this CPU, against the ceilings
G=$SRC/tests/data/gguf/tiny_llama_mixed.gguf
expect 0 "" -- llm "$G" --hw "$D/machine.json" --measured-tps 1000 --measured-ttft 0.01
grep -q "decode                1k tokens/s" "$TMP/out" || { echo "FAIL: llm --measured-tps"; cat "$TMP/out" | tail -5; FAILS=$((FAILS + 1)); }
expect 0 "" -- llm "$G" --hw "$D/machine.json" --measure --threads 1 --json
grep -q '"measured": {"source": "measured on this CPU' "$TMP/out" || { echo "FAIL: llm --measure --json"; FAILS=$((FAILS + 1)); }
# the decode's binding roof, measured with it: the step's weight products alone against DRAM
# (issue 28); one bytes figure: roof x products_s = the step's weight bytes
grep -q '"decode_roof": {"bound": "\(kernel\|memory\|kernel and memory\)", "kernel_type": "[A-Z0-9_]*", "threads": 1, "roof_bytes_per_s": [0-9]' "$TMP/out" ||
    { echo "FAIL: llm --measure --json: no decode_roof"; FAILS=$((FAILS + 1)); }
python3 - "$TMP/out" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
m = json.load(open(sys.argv[1]))["measured"]
d = m["decode_roof"]
ok = abs(d["roof_bytes_per_s"] * d["products_s"] / m["step_weight_bytes"] - 1) < 1e-6
ok = ok and abs(d["decode_of_roof"] - m["weight_bytes_per_s"] / d["roof_bytes_per_s"]) < 1e-6
ok = ok and d["products_min_s"] <= d["products_median_s"] <= d["products_max_s"]
ok = ok and abs(d["products_in_step_s"] + d["other_s"] - d["step_s"]) < 1e-9 * d["step_s"] + 1e-12
if not ok:
    print("FAIL: llm --measure --json: decode_roof figures disagree:", d)
sys.exit(0 if ok else 1)
PY
expect 0 "" -- llm "$G" --hw "$D/machine.json" --measure --threads 1
grep -q "roof                  decode is bound by " "$TMP/out" ||
    { echo "FAIL: llm --measure: no binding roof"; FAILS=$((FAILS + 1)); }
# skipped measuring is never silent: one line naming the file, exit 2 unless --allow-unmeasured
unmeasured() { # unmeasured CODE "last stderr line starts with" -- llm args...
    code=$1 start=$2
    shift 3
    "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    last=$(tail -n 1 "$TMP/err")
    case "$rc:$last" in
    "$code:$start"*) PASSES=$((PASSES + 1)) ;;
    *) echo "FAIL: roofline $*: exit $rc (expected $code), last line: $last"; FAILS=$((FAILS + 1)) ;;
    esac
}
/usr/bin/python3 - "$G" "$TMP/blocks.gguf" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = d.find(b'llama.block_count') + len(b'llama.block_count') + 4  # after the u32 type
n, = struct.unpack('<I', d[off:off + 4])
open(sys.argv[2], 'wb').write(d[:off] + struct.pack('<I', n + 5) + d[off + 4:])  # more blocks
PY
unmeasured 2 "roofline: $TMP/blocks.gguf: not measured: no layer graph" -- \
    llm "$TMP/blocks.gguf" --hw "$D/machine.json" --measure
grep -q "its weights" "$TMP/out" || { echo "FAIL: no weights report"; FAILS=$((FAILS + 1)); }
unmeasured 0 "roofline: $TMP/blocks.gguf: not measured" -- \
    llm "$TMP/blocks.gguf" --hw "$D/machine.json" --measure --allow-unmeasured
A=$SRC/tests/data/apr/dev_f32.apr
unmeasured 2 "roofline: $A: not measured: only GGUF files are run, not APR files" -- \
    llm "$A" --hw "$D/machine.json" --measure
unmeasured 0 "roofline: $A: not measured" -- llm "$A" --hw "$D/machine.json" --measure \
    --allow-unmeasured
grep -q "decode" "$TMP/out" || { echo "FAIL: no estimates with --allow-unmeasured"; FAILS=$((FAILS + 1)); }
# the LLM pass's refusals name the file, not "model:"
unmeasured 2 "roofline: $G: a KV cache of 4000000 positions" -- \
    llm "$G" --hw "$D/machine.json" --measure --context 4000000 --batch 64
expect 2 "--measured-tps" -- llm "$G" --hw "$D/machine.json" --measured-tps -3
expect 2 "--measured-ttft" -- llm "$G" --hw "$D/machine.json" --measured-ttft nan
finish
