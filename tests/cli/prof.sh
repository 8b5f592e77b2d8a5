#!/bin/sh
# prof.sh — `analyze --from ncu|torch-trace` (issue 30 item 1): real Nsight Compute CSV shapes and
# PyTorch traces (tests/data/prof/README.md names their sources) give measured rows with launches
# summed and the L1/L2/DRAM intensities; the format is detected without --from; hostile and
# truncated files give one line naming the file and exit 2.
. "$(dirname "$0")/lib.sh"
D="$SRC/tests/data/prof"
H="--hw a100-sxm4-80gb"

# has FILE "text": the output holds the text.
has() {
    if grep -qF -- "$2" "$1"; then PASSES=$((PASSES + 1)); else
        echo "FAIL: output lacks '$2':"
        cat "$1"
        FAILS=$((FAILS + 1))
    fi
}

# ncu, long form: 2 * 8,589,934,592 FFMA = 17.2 GFLOP against 25.17 MB of DRAM; L1 1.61 GB.
expect 0 "" -- analyze $H --wide --from ncu "$D/ncu_long_sgemm.csv"
has "$TMP/out" "sgemm_128x64_nn  kernel  x1 L1 AI 10.7 L2 AI 42.7 DRAM AI 683  17.2G  25.2M"
has "$TMP/out" "1.1 ms"
# Detected without --from, same rows; JSON carries them.
expect 0 "" -- analyze $H --json "$D/ncu_long_sgemm.csv"
has "$TMP/out" '"name": "sgemm_128x64_nn"'
has "$TMP/out" '"flops": 17179869184'

# Real ncu outputs (A100, NERSC's metric set, no gpu__time_duration: time is sm__cycles_elapsed.avg
# over .avg.per_second per launch). Expected figures computed by hand from the CSV's own values:
# sgemm 32x32 x2: FFMA 2 x 4,194,304 x 2 launches + FADD/FMUL = 17,694,720 FLOP, 606,848 DRAM
# bytes, 9,583.22 / 998,252,314.81 + 9,687.43 / 1,002,424,040.35 s = 19.26 us; L1 AI 8.71.
expect 0 "" -- analyze $H --json "$D/ncu_bert_torch_a100.csv"
has "$TMP/out" '"name": "ampere_sgemm_32x32_sliced1x4_tn", "op": "kernel", "shape": "x2 L1 AI 8.71 L2 AI 4.45 DRAM AI 29.2", "index": 0, "flops": 17694720, "bytes": 606848'
has "$TMP/out" '"measured": {"time_s": 1.9264'
has "$TMP/out" '"flops": 17039360, "bytes": 82176'
# A tensor-core GEMM: 6,144 tensor-pipe instructions x 512 + 2 x 49,152 FFMA = 3,244,032... plus
# FADD/FMUL: 3,342,336 FLOP, 94% of it on the tensor pipe; 7.74 us from its cycles.
expect 0 "" -- analyze $H --json "$D/ncu_bert_flashattn_a100.csv"
has "$TMP/out" 'DRAM AI 8.04 tensor 94%", "index": 0, "flops": 3342336, "bytes": 415488'
has "$TMP/out" '"measured": {"time_s": 7.744'
# Tensor work against the tensor roof: FlashAttention's loop has 2,048 tensor instructions (x 512 =
# 1,048,576 FLOP) of 1,355,776, so its peak mixes fp16.tensor 312T and fp32 19.5T by share:
# 1,355,776 / (1,048,576 / 312e12 + 307,200 / 19.5e12) = 70.9T, above AI 21.93 x 2.039 TB/s =
# 44.71T: memory-bound at 44.71T, efficiency 44.71 / 70.9 = 63.0% (fp32 alone: compute, 19.5T).
has "$TMP/out" '"ai": 21.9296066252588, "attainable_flops_per_s": 44714467908902.69, "bound": "memory", "efficiency": 0.6304'
expect 0 "" -- analyze $H "$D/ncu_bert_flashattn_a100.csv" --plot "$TMP/real.svg"
for lv in L1 L2 DRAM; do has "$TMP/real.svg" ">$lv<"; done

# Repeated launches aggregate; --page raw wide form with a units row; thousands separators.
printf '"ID","Kernel Name","dram__bytes.sum","gpu__time_duration.sum","sm__sass_thread_inst_executed_op_dfma_pred_on.sum","sm__inst_executed_pipe_tensor.sum"\n"","","Mbyte","usecond","inst","inst"\n"0","k","1.5","10","1,000,000","0"\n"1","k","1.5","10","1,000,000","1,000"\n"2","j","0.5","2","0","0"\n' >"$TMP/wide.csv"
expect 0 "" -- analyze $H --wide --from ncu "$TMP/wide.csv"
has "$TMP/out" "k     kernel  x2 DRAM AI 1.5 tensor 11%  4.51M     3M"
has "$TMP/out" "20 us"
# Wide form timed by cycles (cycle / cycle/nsecond = 2,000 / 1.25 GHz = 1.6 us a launch), and a
# launch with gpu__time_duration keeps it (3 us), the cycles not added on top.
printf '"ID","Kernel Name","sm__cycles_elapsed.avg","sm__cycles_elapsed.avg.per_second","gpu__time_duration.sum","dram__bytes.sum"\n"","","cycle","cycle/nsecond","usecond","byte"\n"0","c","2,000","1.25","","100"\n"1","c","2,000","1.25","","100"\n"2","d","2,000","1.25","3","100"\n' >"$TMP/cyc.csv"
expect 0 "" -- analyze $H --json "$TMP/cyc.csv"
has "$TMP/out" '"measured": {"time_s": 3.2'
has "$TMP/out" '"measured": {"time_s": 3e-06'
# Long form: launches counted by ID, ==PROF== lines skipped, nsecond and Kbyte.
printf '==PROF== Connected to process 1\n"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","a","gpu__time_duration.sum","nsecond","1,500"\n"0","a","dram__bytes.sum","Kbyte","4"\n==PROF== Profiling "a" - 1\n"1","a","gpu__time_duration.sum","nsecond","500"\n"1","a","dram__bytes.sum","Kbyte","4"\n"1","a","sm__sass_thread_inst_executed_op_fadd_pred_on.sum","inst","8000"\n' >"$TMP/long.csv"
expect 0 "" -- analyze $H "$TMP/long.csv"
has "$TMP/out" "a     kernel  x2 DRAM AI 1     8k     8k"
has "$TMP/out" "2 us"

# PyTorch: a trace made here (CPU ops with flops) and an H100 trace excerpt (GPU kernels).
expect 0 "" -- analyze $H --from torch-trace "$D/torch_cpu_trace.json"
has "$TMP/out" "aten::addmm   op  x6 inputs AI 25.5  75.5M  2.96M"
has "$TMP/out" "aten::conv2d  op  x3 inputs AI 69.5  28.3M   407k"
# bmm's bytes are its two inputs, [8, 64, 32] and [8, 32, 64] float: 131,072 B a call, 3 calls.
expect 0 "" -- analyze $H --json --from torch-trace "$D/torch_cpu_trace.json"
has "$TMP/out" '"flops": 6291456, "bytes": 393216'
# A kernel takes its op's input bytes (Input Dims x Input type): addmm's [1000], [1, 2048],
# [2048, 1000] and [1, 1000] floats are 8,208,192 B; the convolution's input and weight 639,744 B.
expect 0 "" -- analyze $H --json "$D/torch_h100_excerpt.json"
has "$TMP/out" '"name": "void cutlass_addmm", "op": "kernel", "shape": "x1", "index": 0, "flops": 0, "bytes": 8208192'
has "$TMP/out" '"bytes": 639744'
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","dur":9,"args":{"flops":8,"Input Dims":[[2,-3]],"Input type":["float"]}}]}' >"$TMP/negdim.json"
expect 2 "Input Dims" -- analyze $H "$TMP/negdim.json"
expect 0 "" -- analyze $H "$D/torch_h100_excerpt.json"
has "$TMP/out" "void cutlass_addmm"
has "$TMP/out" "251 us"
# A kernel takes the FLOPs of the op that launched it (External id), shared between its kernels.
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","dur":9,"args":{"External id":7,"flops":2000000}},{"ph":"X","cat":"kernel","name":"gemm_k","dur":4,"args":{"External id":7}},{"ph":"X","cat":"kernel","name":"gemm_k","dur":6,"args":{"External id":7}}]}' >"$TMP/gpu.json"
expect 0 "" -- analyze $H "$TMP/gpu.json"
has "$TMP/out" "gemm_k  kernel  x2        2M"
has "$TMP/out" "10 us"

# The hierarchical chart: a series per level collected (L1, L2, DRAM), each kernel a point in each.
expect 0 "" -- analyze $H "$D/ncu_long_sgemm.csv" --plot "$TMP/h.svg"
for lv in L1 L2 DRAM; do has "$TMP/h.svg" ">$lv<"; done
expect 0 "" -- analyze $H "$D/torch_cpu_trace.json" --plot "$TMP/t.svg"
if grep -qF ">L2<" "$TMP/t.svg"; then
    echo "FAIL: a trace without bytes drew level series"
    FAILS=$((FAILS + 1))
fi

# Hostile and truncated files: one line naming the file, exit 2.
P="--peak-flops 1T --peak-bw 100G"
head -c 300 "$D/ncu_long_sgemm.csv" >"$TMP/cut.csv"
expect 2 "cut.csv: line 4: unterminated quote" -- analyze $P --from ncu "$TMP/cut.csv"
head -c 2000 "$D/torch_cpu_trace.json" >"$TMP/cut.json"
expect 2 "cut.json: " -- analyze $P --from torch-trace "$TMP/cut.json"
printf '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","a","dram__bytes.sum","furlong","4"\n' >"$TMP/unit.csv"
# Streamed traces still check the whole document: a missing final brace, text after it.
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","dur":1,"args":{"flops":5}}]' >"$TMP/nobrace.json"
expect 2 "nobrace.json: not valid JSON at line 1 column 81: ',' or '}' expected" -- analyze $P "$TMP/nobrace.json"
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","dur":1,"args":{"flops":5}}], "x": 1} junk' >"$TMP/junk.json"
expect 2 "junk.json: not valid JSON at line 1 column 91: text after the document" -- analyze $P "$TMP/junk.json"
printf '{"meta":{"a":[1,2]},"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","dur":1,"args":{"flops":5}}],"x":[1]}' >"$TMP/around.json"
expect 0 "" -- analyze $P "$TMP/around.json"
# ncu: a clock in an unknown unit is refused like any unit
printf '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","k","sm__cycles_elapsed.avg.per_second","cycle/fortnight","5"\n' >"$TMP/clk.csv"
expect 2 "clk.csv: line 2: unknown unit \"cycle/fortnight\"" -- analyze $P "$TMP/clk.csv"
expect 2 "unit.csv: line 2: unknown unit \"furlong\" for dram__bytes.sum" -- analyze $P "$TMP/unit.csv"
printf '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","a","dram__bytes.sum","byte","1e999"\n' >"$TMP/big.csv"
expect 2 "big.csv: line 2: value" -- analyze $P "$TMP/big.csv"
printf '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","a","dram__bytes.sum","byte","NaN"\n' >"$TMP/nan.csv"
expect 2 "nan.csv: line 2: value \"NaN\"" -- analyze $P "$TMP/nan.csv"
printf '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","a","other.metric","","4"\n' >"$TMP/none.csv"
expect 2 "none.csv: no kernel with a known metric" -- analyze $P "$TMP/none.csv"
printf '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","a"\n' >"$TMP/short.csv"
expect 2 "short.csv: line 2: 2 fields" -- analyze $P "$TMP/short.csv"
printf '"ID","Metric Name"\n' >"$TMP/noname.csv"
expect 2 "noname.csv: line 1: the header has no \"Kernel Name\" column" -- analyze $P --from ncu "$TMP/noname.csv"
printf '{"traceEvents": 3}' >"$TMP/notarr.json"
expect 2 "notarr.json: not a PyTorch trace" -- analyze $P --from torch-trace "$TMP/notarr.json"
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"x","dur":"5","args":{"flops":1}}]}' >"$TMP/dur.json"
expect 2 "dur.json: traceEvents[0]: \"dur\" is not a finite number" -- analyze $P "$TMP/dur.json"
printf '{"traceEvents":[%s1]}' "$(head -c 400 /dev/zero | tr '\0' '[')" >"$TMP/deep.json"
expect 2 "deep.json: " -- analyze $P --from torch-trace "$TMP/deep.json"
printf 'a\000b' >"$TMP/nul.csv"
expect 2 "nul.csv: NUL byte" -- analyze $P --from ncu "$TMP/nul.csv"
expect 2 "unknown profile format 'nvprof'" -- analyze $P --from nvprof "$TMP/nul.csv"
finish
