#!/bin/sh
# int8.sh — ONNX Runtime's dynamic int8 pattern under `profile --measure`: DynamicQuantizeLinear
# feeding ConvInteger / MatMulInteger its zero point at run time, u8 weights with per-tensor and
# per-channel zero points (tests/data/int8, made by make_int8_cases.py). Every layer runs: the
# summary says "N of N layers" and a whole-pass time, never a partial pass. (The values are
# checked by the unit tests, unit.exec_qint.*.) A layer it cannot run says why on its row.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/golden/data
for m in conv_pc conv_group conv_s8 conv_1d matmul_pc; do
    expect 0 "" -- profile "$SRC/tests/data/int8/$m.onnx" --hw "$D/machine.json" --measure --repeat 2 --threads 2
    grep -q "^measured: \([0-9]*\) of \1 layers on this CPU" "$TMP/out" ||
        { echo "FAIL: $m: not every layer measured: $(grep -A2 '^measured' "$TMP/out")"; FAILS=$((FAILS + 1)); }
    grep -q "partial pass\|not measured" "$TMP/out" &&
        { echo "FAIL: $m: a partial pass"; FAILS=$((FAILS + 1)); }
done
# A layer the executor cannot run (a 3-D ConvInteger): exit 2 without --allow-unmeasured, and
# its row says why in the table, the JSON and the CSV; the totals say how much ran.
M3=$SRC/tests/data/int8/conv_3d.onnx
"$BIN" profile "$M3" --hw "$D/machine.json" --measure --repeat 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 2 ] && tail -n 1 "$TMP/err" | grep -q "conv_3d.onnx: a partial pass: 1 of 2 layers, 50.0% of the FLOPs measured"; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: a partial pass: exit $rc, last line $(tail -n 1 "$TMP/err")"
    FAILS=$((FAILS + 1))
fi
for fmt in --wide --json --csv; do  # --wide: the narrow table may cut the shape column
    expect 0 "" -- profile "$M3" --hw "$D/machine.json" --measure --repeat 1 --allow-unmeasured $fmt
    grep -q "ConvInteger_1.*not measured: ConvInteger: only 1-D and 2-D" "$TMP/out" ||
        { echo "FAIL: no per-row reason in the $fmt output"; FAILS=$((FAILS + 1)); }
done
finish
