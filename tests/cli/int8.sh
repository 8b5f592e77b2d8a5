#!/bin/sh
# int8.sh — ONNX Runtime's dynamic int8 pattern under `profile --measure`: DynamicQuantizeLinear
# feeding ConvInteger / MatMulInteger its zero point at run time, u8 weights with per-tensor and
# per-channel zero points (tests/data/int8, made by make_int8_cases.py). Every layer runs: the
# summary says "N of N layers" and a whole-pass time, never a partial pass. (The values are
# checked by the unit tests, unit.exec_qint.*.)
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/golden/data
for m in conv_pc conv_group conv_s8 conv_1d matmul_pc; do
    expect 0 "" -- profile "$SRC/tests/data/int8/$m.onnx" --hw "$D/machine.json" --measure --repeat 2 --threads 2
    grep -q "^measured: \([0-9]*\) of \1 layers on this CPU" "$TMP/out" ||
        { echo "FAIL: $m: not every layer measured: $(grep -A2 '^measured' "$TMP/out")"; FAILS=$((FAILS + 1)); }
    grep -q "partial pass\|not measured" "$TMP/out" &&
        { echo "FAIL: $m: a partial pass"; FAILS=$((FAILS + 1)); }
done
finish
