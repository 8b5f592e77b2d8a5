#!/bin/sh
# advice_first.sh BIN SRC — issue 29's advice examples, each with the first suggestion it must
# give: lower TP when decode is communication-bound, dispatch overhead for a measured pass spent
# between its layers, TF32 on an A100, no INT8 for an FFT or a Q8_0 model, measured ceilings named
# (or why they are missing), distillation only when it saves a HIGH share, a measured rate above
# its ceiling flagged first, and the refined decode ceiling above the simple one explained.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/golden/data

# first ARGS...: the first numbered suggestion of `roofline ARGS` into $TMP/first (one line)
first() {
    "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" || { echo "FAIL: roofline $*: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
    sed -n '/^What would move it/,$p' "$TMP/out" | awk '/^  1\. /{p=1} /^  2\. /{p=0} p' | tr -s ' \n' ' ' >"$TMP/first"
}
# want "fragment" "what": the first suggestion holds the fragment
want() {
    if grep -qF -- "$1" "$TMP/first"; then PASSES=$((PASSES + 1)); else
        echo "FAIL: $2: first suggestion lacks '$1': $(cat "$TMP/first")"
        FAILS=$((FAILS + 1))
    fi
}
# absent "fragment" "what": no suggestion of the whole advice holds it
absent() {
    if sed -n '/^What would move it/,$p' "$TMP/out" | tr -s ' \n' ' ' | grep -qF -- "$1"; then
        echo "FAIL: $2: the advice holds '$1':"
        sed -n '/^What would move it/,$p' "$TMP/out"
        FAILS=$((FAILS + 1))
    else PASSES=$((PASSES + 1)); fi
}

# 1. --tp 8 over PCIe: decode is communication-bound, TP 1 decodes fastest: lower TP, with figures
first llm --hw h100-sxm5 --tp 8 --interconnect pcie4-x16 "$D/tiny_llama_q.gguf"
want "[HIGH] lower tensor parallelism: TP 1 instead of 8" "TP 8"
want "of it latency (4 allreduces x 14 messages x 1 us)" "TP 8 figures"
want "TP scan (tokens/s): TP 1" "TP 8 scan"
# ... and a link whose latency dominates at the best TP already: a faster link
first llm --hw h100-sxm5 --tp 2 --interconnect pcie4-x16 --net-latency 1e-4 "$D/tiny_llama_q.gguf"
want "lower tensor parallelism: TP 1 instead of 2" "TP 2, slow link"

# 2. a measured pass 89% dispatch overhead (3.6 ms wall, 400 us in the layers)
printf 'name,flops,bytes,time\nconv,2e8,4e6,2e-4\nrelu,1e6,8e6,1e-4\nfc,2e6,4e6,1e-4\n' >"$TMP/disp.csv"
first analyze --hw xeon-8480plus "$TMP/disp.csv" --wall 3.6e-3
want "[HIGH] cut the dispatch overhead: 3.2 ms of the 3.6 ms pass (89%)" "dispatch"
want "a graph runtime" "dispatch remedies"
# under half the pass: ranked by its saving, not forced first
first analyze --hw xeon-8480plus "$TMP/disp.csv" --wall 5e-4
want "INT8" "a small dispatch share"

# 3. TF32 on an A100 for an FP32 operations list: kept model numbers rank first
first analyze --hw a100-sxm4-80gb "$D/ops.csv"
want "[HIGH] matrix math at TF32 (weights and activations stay FP32)" "TF32 on an A100"
want "Compute on tf32.tensor at 156 TFLOP/s" "TF32 ceiling"
first analyze --hw xeon-8480plus "$D/ops.csv"
absent "TF32" "no TF32 ceiling on a Xeon"

# 4. no lower precision for an FFT in an HPC list; no INT8 for a model already Q8_0
printf 'name,flops,bytes\nfft_3d_forward,5e10,4e9\nstencil_27pt,2.7e10,1e9\ndgemm_panel,4e11,3e8\n' >"$TMP/hpc.csv"
first analyze --hw a100-sxm4-80gb "$TMP/hpc.csv"
absent "fft_3d_forward" "an FFT"
gunzip -c "$SRC/tests/data/gguf/tinystories15m_q8_0.gguf.gz" >"$TMP/ts.gguf"
first llm --hw xeon-8480plus "$TMP/ts.gguf" --advice 9
absent "at INT8" "a Q8_0 model"
want "[HIGH]" "a Q8_0 model's first suggestion"

# 5. measured ceilings: a full peaks file names int8/bf16; a quick one says it left them out
first analyze --hw "$SRC/tests/chart/peaks_full.json" "$D/ops.csv"
want "Compute on int8.vnni.avx512 at 1.36 TFLOP/s" "int8 of a full peaks file"
absent "no ceiling at that precision" "a full peaks file"
printf '{"schema":1,"name":"measured","description":"quick","kind":"cpu","provenance":"measured","source":"roofline peaks --quick, test","default_compute":"fp32","default_bandwidth":"DRAM","ceilings":[{"name":"fp32","kind":"compute","value":1e11,"unit":"FLOP/s"},{"name":"DRAM","kind":"bandwidth","value":1e10,"unit":"B/s"}]}\n' >"$TMP/quick.json"
printf 'name,flops,bytes\nA,1e9,1e9\nB,1e10,1e8\n' >"$TMP/mem.csv"
first analyze --hw "$TMP/quick.json" "$TMP/mem.csv"
absent "no ceiling at that precision" "a quick peaks file"
want "'roofline peaks --quick' leaves that precision out" "a quick peaks file"

# 6. distillation only when it saves a HIGH share: not in the demo (7.9%)
first demo --advice 10
absent "distil" "the demo"

# 7. a --measured-tps above the ceiling: flagged first, with the likely reasons, and in the report
first llm --hw xeon-8480plus "$TMP/ts.gguf" --measured-tps 20000
want "[CHECK] check the measurement: 20k tokens/s is above its ceiling" "measured-tps above"
want "speculative decoding" "measured-tps reasons"
grep -q '^  ! above the ceiling' "$TMP/out" && PASSES=$((PASSES + 1)) ||
    { echo "FAIL: the measured section does not flag the rate"; FAILS=$((FAILS + 1)); }
first llm --hw xeon-8480plus "$TMP/ts.gguf" --measured-tps 10000
absent "CHECK" "measured-tps below"

# 8. the refined decode ceiling above the simple one, explained in one sentence
"$BIN" llm --hw xeon-8480plus "$TMP/ts.gguf" --advice 0 >"$TMP/out" 2>&1
grep -A2 '^  decode  ' "$TMP/out" | tr -s ' \n' ' ' | grep -qF "above the simple ceiling: a step reads 16.2MB of weights, not the model's 25.9MB" &&
    PASSES=$((PASSES + 1)) || { echo "FAIL: refined above simple: $(grep -A2 '^  decode  ' "$TMP/out")"; FAILS=$((FAILS + 1)); }
"$BIN" llm --hw xeon-8480plus "$D/tiny_llama_q.gguf" --advice 0 >"$TMP/out" 2>&1
! grep -q "above the simple ceiling" "$TMP/out" && PASSES=$((PASSES + 1)) ||
    { echo "FAIL: refined below simple explained anyway"; FAILS=$((FAILS + 1)); }
finish
