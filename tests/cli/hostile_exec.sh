#!/bin/sh
# hostile_exec.sh — the executor validates before it allocates (issue 25, part 1). Crafted ONNX
# files of a few hundred bytes (tests/data/tools/gen_hostile_exec.py, one per finding of the
# outside security round) run through `profile --measure`: each ends with exit 0 and its layer
# "not measured" with the reason named (a declared shape against the computed one, operands that
# do not agree, an empty operand, an attribute out of range), never a crash, a hang or a read or
# write past a buffer (the sanitizer build runs this same script under ASan+UBSan). Every run is
# under `timeout 60`; RF_RUNNER runs each under a checker (make valgrind).
. "$(dirname "$0")/lib.sh"
need python3 timeout
M=$SRC/tests/golden/data/machine.json
python3 "$SRC/tests/data/tools/gen_hostile_exec.py" "$TMP" || {
    echo "FAIL: could not write the hostile models (python3)"
    exit 1
}

# notm CASE "fragment of the not-measured reason": exit 0, the layer not measured for the reason
# named, stderr free of sanitizer reports.
notm() {
    f=$TMP/$1.onnx
    # RF_RUNNER: a wrapper (make valgrind: valgrind --error-exitcode=99), given more time
    timeout "${RF_RUNNER_TIMEOUT:-60}" ${RF_RUNNER:-} "$BIN" profile "$f" --hw "$M" --measure \
        --repeat 1 --allow-unmeasured >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: $1: exit $rc, expected 0; stderr: $(head -c 600 "$TMP/err")"
        FAILS=$((FAILS + 1))
    elif ! grep -q "not measured: 1 .* layer: .*$2" "$TMP/out"; then
        echo "FAIL: $1: no 'not measured: ... $2' line:"
        grep "not measured\|^measured" "$TMP/out"
        FAILS=$((FAILS + 1))
    elif grep -q "runtime error\|Sanitizer" "$TMP/err"; then
        echo "FAIL: $1: sanitizer report:"
        head -20 "$TMP/err"
        FAILS=$((FAILS + 1))
    else
        PASSES=$((PASSES + 1))
    fi
}

# A partial pass (issue 26): without --allow-unmeasured it is exit 2 with one line naming the file,
# the coverage and the first layer not run; the table says "partial" and prints no whole-pass time;
# the JSON has no totals.measured.wall_s.
partial() { # partial CASE "reason": the pass of CASE is partial for that reason
    f=$TMP/$1.onnx
    timeout 60 "$BIN" profile "$f" --hw "$M" --measure --repeat 1 >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    last=$(grep -v "running the model" "$TMP/err")
    case "$rc:$last" in
    "2:roofline: $f: a partial pass: "*" layers, "*"% of the FLOPs measured; "*" not run, first "*": $2"*"(--allow-unmeasured accepts that)")
        PASSES=$((PASSES + 1)) ;;
    *) echo "FAIL: $1 partial: exit $rc: $last"; FAILS=$((FAILS + 1)) ;;
    esac
    grep -q "^measured: a partial pass: .* of .* layers, .*% of the FLOPs measured" "$TMP/out" &&
        grep -q "no whole-pass time" "$TMP/out" && ! grep -q "whole pass\|^wall " "$TMP/out" &&
        PASSES=$((PASSES + 1)) || { echo "FAIL: $1: the table does not say partial:"; cat "$TMP/out"; FAILS=$((FAILS + 1)); }
    timeout 60 "$BIN" profile "$f" --hw "$M" --measure --repeat 1 --allow-unmeasured --json >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    [ "$rc" -eq 0 ] && ! grep -q '"wall_s"' "$TMP/out" &&
        grep -q '"title": ".*(partial pass: [0-9]* of [0-9]* layers, .*% of the FLOPs measured)"' "$TMP/out" &&
        PASSES=$((PASSES + 1)) || { echo "FAIL: $1: --json of a partial pass: exit $rc"; FAILS=$((FAILS + 1)); }
}
partial gemm_b_rows "Gemm operands that do not agree"

# 1. value-dependent outputs declared smaller than the op writes
notm topk_k_input "output 'i': declared shape 1x1, computed 1x3"
notm onehot_depth_input "output 'y': declared shape 1x3, computed 4x3"
# 2. Slice: axes from a graph input with a negative step; a step of INT64_MIN
notm slice_axes_input_negstep "declared output reads outside x"
notm slice_step_min "declared output reads outside x"
# 3. Split sizes past the axis (given, and equal parts rounded up); Expand from a graph input
notm split_past_axis "Split parts that add up past the axis (4)"
notm split_uneven "Split parts that add up past the axis (5)"
notm expand_shape_input "does not broadcast to"
# 4. MatMulNBits block_size 2^62 (N*nb*(bs/2) wrapped to 0)
notm matmulnbits_bs_2p62 "shapes do not agree with K, N and block_size"
# 5. empty axes: cubic Resize, RotaryEmbedding cache, MultiHeadAttention keys
notm resize_cubic_empty "is empty (a zero-sized dimension)"
notm rotary_zero_cache "input 'cos' is empty"
notm mha_zero_keys "input 'k' is empty"
# 6. zero-sized dimensions never reach oneDNN
notm matmul_m0 "output 'y' is empty"
notm gemm_m0 "output 'y' is empty"
notm matmulinteger_m0 "output 'y' is empty"
notm lstm_batch0 "output 'Y' is empty"
notm lstm_input0 "input 'X' is empty"
# 7. operand shapes that do not agree
notm gemm_b_rows "Gemm operands that do not agree: A 2x4096, B 1x1"
notm conv_bias_len "Conv whose weights, bias or output do not agree"
notm convt_bias_len "ConvTranspose whose bias or output batch does not agree"
notm prelu_slope "PRelu inputs whose shapes do not broadcast"
for c in lstm_R_bad lstm_B_bad lstm_h0_bad gru_R_bad; do
    notm "$c" "whose R, B, initial_h/c or hidden_size do not agree"
done
# 8. float -> int64 out of range: HardSigmoid's beta refused; a Gather index of INT64_MAX (2^63
# as a float) wraps without a conversion out of range and the layer runs
notm hardsigmoid_beta "HardSigmoid with beta 1e+30 out of range"
timeout 60 "$BIN" profile "$TMP/gather_idx_huge.onnx" --hw "$M" --measure --repeat 1 >"$TMP/out" 2>"$TMP/err" </dev/null
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^measured: 1 of 1 layers" "$TMP/out" && ! grep -q "runtime error\|Sanitizer" "$TMP/err"; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: gather_idx_huge: exit $rc: $(head -c 600 "$TMP/err")"
    FAILS=$((FAILS + 1))
fi
finish
