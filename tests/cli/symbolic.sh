#!/bin/sh
# symbolic.sh — no silent table of zeros (issue 12 item 4): a symbolic first axis becomes 1 with
# one warning; any other unknown input dimension stops the run with one line naming it and the
# flag that sets it (exit 2); a model with more than a tenth of its layers undefined says its
# totals are a lower bound and exits 2 unless --allow-undefined. Models: tests/data/onnx/
# (gen_symbolic.py). Unknown domains are named in the warning with their op count.
. "$(dirname "$0")/lib.sh"
D="$SRC/tests/data/onnx"

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds
check() {
    what=$1
    shift
    if "$@"; then
        PASSES=$((PASSES + 1))
    else
        echo "FAIL: $what"
        FAILS=$((FAILS + 1))
    fi
}
HW="--hw xeon-8480plus"

expect 0 "" -- profile $HW "$D/kws_symbolic_batch.onnx"
check "kws: the batch taken as 1, said once" grep -q "first dimension of input 'input' is unknown: taken as 1" "$TMP/err"
check "kws: every layer costed at batch 1" grep -q "input=1x49x10x1: 5 operations" "$TMP/out"
check "kws: no undefined layer" grep -q 'undefined 0 (0.0% of time)' "$TMP/out"
expect 0 "" -- profile $HW --batch 8 "$D/kws_symbolic_batch.onnx"
check "kws --batch 8: no warning" sh -c "! grep -q 'taken as 1' '$TMP/err'"

expect 2 "audio_frontend.onnx: input 'audio' has unknown dimension 'samples': give --dim samples=N or --input audio=1xN" -- profile $HW "$D/audio_frontend.onnx"
check "frontend: one line" test "$(wc -l <"$TMP/err")" -eq 1
expect 0 "" -- profile $HW --dim samples=16000 "$D/audio_frontend.onnx"
# the framing Conv: 40 filters x 98 frames x 400 taps x 2
check "frontend: 3.14M FLOPs from 40 x 98 x 400 x 2" grep -q "frames     Conv  1x40x98  3.14M" "$TMP/out"
expect 0 "" -- profile $HW --input audio=2x16000 "$D/audio_frontend.onnx"
check "frontend --input: batch 2" grep -q "audio=2x16000" "$TMP/out"

"$BIN" profile $HW "$D/unknown_ops.onnx" >"$TMP/out" 2>"$TMP/err"
check "a third undefined: exit 2" test $? -eq 2
check "the last line says why" sh -c "tail -1 '$TMP/err' | grep -qF 'unknown_ops.onnx: 1 of 3 layers have no cost (undefined): the totals are a lower bound (--allow-undefined accepts that)'"
check "unknown domain named with its count" grep -q "com.example:MysteryOp x1" "$TMP/err"
check "the totals say 'at least'" grep -q "FLOP in all at least" "$TMP/out"
expect 0 "" -- profile $HW --allow-undefined "$D/unknown_ops.onnx"

# external data (issue 12 item 6): weights are not needed to count, so a missing file or one too
# short is one warning naming a tensor and the file, and the profile runs
expect 0 "" -- profile $HW "$D/resnet18.onnx"
check "missing weights: one warning naming the file and a tensor" grep -q "external data file 'resnet18.weights' of 42 initializers (first 'fc.weight') is missing" "$TMP/err"
check "missing weights: one line" test "$(wc -l <"$TMP/err")" -eq 1
mkdir -p "$TMP/m" && cp "$D/resnet18.onnx" "$TMP/m/" && printf 'short' >"$TMP/m/resnet18.weights"
expect 0 "" -- profile $HW "$TMP/m/resnet18.onnx"
check "short weights file: the data past its end named" grep -q "lies past the end of its file" "$TMP/err"
check "the profile still ran" grep -q "3.64GFLOP in all" "$TMP/out"

# field exports (issue 26; tests/data/onnx/gen_field.py)
expect 2 "field_p2o_resize.onnx: input 'x' has unknown dimensions 'p2o.DynamicDimension.1', 'p2o.DynamicDimension.2': give --dim p2o.DynamicDimension.1=N,p2o.DynamicDimension.2=N or --input x=1x3xNxN" -- profile $HW "$D/field_p2o_resize.onnx"
expect 2 "field_p2o_resize.onnx: input 'x' has rank 4, --input gives 3" -- profile $HW --input x=1x3x16 "$D/field_p2o_resize.onnx"
expect 0 "" -- profile $HW --input x=1x3x16x16 "$D/field_p2o_resize.onnx"
# Resize's float scales [1,1,2,2] and empty roi from Constant nodes: the Conv after it at 32x32
check "p2o: Resize from Constant scales" grep -q "p2o.Resize.0  Resize  1x8x32x32" "$TMP/out"
check "p2o: the Conv after the Resize costed" grep -q "p2o.Conv.1    Conv    1x4x32x32  65.5k" "$TMP/out"
check "p2o: no undefined layer" grep -q 'undefined 0 (0.0% of time)' "$TMP/out"
# weights in Constant nodes: 8x3x3x3 + 8 + 4x8 = 256
check "p2o: Constant-node weights counted" grep -q "256 params, 1.02kB of weights" "$TMP/out"
expect 0 "" -- profile $HW "$D/field_tf_pad.onnx"
# pads = Concat(Split(constant)) = [0,0,1,1, 0,0,1,1]: 1x8x18x18, then the strided Conv 8x8
check "tf pad: pads folded through Split and Concat" grep -q "pad     Pad     1x8x18x18" "$TMP/out"
check "tf pad: Conv after the Pad" grep -q "conv    Conv    1x16x8x8    147k" "$TMP/out"
expect 0 "" -- profile $HW "$D/field_rnn_batch.onnx"
check "rnn: 'batch' on axis 1 taken as 1, said once" grep -q "the batch dimension of input 'x', 'h' (axis 1, 'batch') is unknown: taken as 1" "$TMP/err"
check "rnn: one line" test "$(wc -l <"$TMP/err")" -eq 1
check "rnn: the state at batch 1" grep -q "x=1x64 h=2x1x64" "$TMP/out"
# the undefined-layers warning: the first reason per op type, followed back to where shapes stopped
expect 0 "" -- profile $HW --allow-undefined "$D/field_resize_runtime.onnx"
check "undefined: reason per op type" grep -qF "op types: Resize x1: output shape unknown; Conv x1: input shape unknown (from Resize 'resize': scales and sizes not constant)" "$TMP/err"

# silero-vad style Ifs: the sample-rate switch decided by --value, the nested shape tests by shape
# inference. sr=16000: pads [0,4,0,4] built the torch way (Slice step -1, Transpose), Conv
# 8x1x8 stride 8 on 1x1x72 = 1x8x9, 2*8*8*9 = 1152 FLOP; the inner If on Not(Equal(Size(Shape),2))
# takes its then branch: MatMul of the parent branch's Gather (two scopes up) 1x1x8 by 8x4, 64.
expect 0 "" -- profile $HW --input input=1x64 --value sr=16000 --format json "$D/field_silero_if.onnx"
check "silero: then conv from reversed pads" grep -q '"name": "if_sr/then/then_conv", "op": "Conv", "shape": "1x8x9", "index": [0-9]*, "flops": 1152' "$TMP/out"
check "silero: nested If reads its parent's tensor" grep -q '"name": "if_sr/then/if_b/then/state_proj", "op": "MatMul", "shape": "1x1x4", "index": [0-9]*, "flops": 64' "$TMP/out"
check "silero: else branch dropped" sh -c "! grep -q else_conv '$TMP/out'"
check "silero: decided Ifs do not warn" test ! -s "$TMP/err"
# sr=8000: the else branch, Conv 8x1x4 stride 4 on 1x1x64 = 1x8x16, 1024 FLOP
expect 0 "" -- profile $HW --input input=1x64 --value sr=8000 --format json "$D/field_silero_if.onnx"
check "silero: sr=8000 takes else" grep -q '"name": "if_sr/else/else_conv", "op": "Conv", "shape": "1x8x16", "index": [0-9]*, "flops": 1024' "$TMP/out"
# without --value the larger branch, said once; the title shows the scalar
expect 0 "" -- profile $HW --input input=1x64 "$D/field_silero_if.onnx"
check "silero: unknown sr warns" grep -q "If 'if_sr': its condition is not known" "$TMP/err"
check "silero: title names the scalar" grep -q "input=1x64 state=2x1x8 sr=scalar" "$TMP/out"
# measured: the executor runs the branches taken (IfSelect a view of them), nothing else; a
# ReduceMean-free model, so every layer runs
expect 0 "" -- profile --hw "$SRC/tests/golden/data/machine.json" --measure --threads 1 --repeat 3 --input input=1x64 --value sr=16000 "$D/field_silero_if.onnx"
check "silero: every layer measured" grep -q "^measured: 13 of 13 layers on this CPU" "$TMP/out"
# --input given twice accumulates; --value refuses a non-scalar and a non-integer
expect 0 "" -- profile $HW --input input=1x64 --input state=2x1x8 --value sr=16000 "$D/field_silero_if.onnx"
check "repeated --input: both kept" grep -q "input=1x64 state=2x1x8 sr=16000" "$TMP/out"
expect 2 "--value input: input 'input' is not a scalar" -- profile $HW --value input=3 "$D/field_silero_if.onnx"
expect 2 "--value 'sr=16k': the value must be an integer" -- profile $HW --value sr=16k "$D/field_silero_if.onnx"
expect 2 "--value: the model has no input 'rate'" -- profile $HW --input input=1x64 --value rate=1 "$D/field_silero_if.onnx"

finish
