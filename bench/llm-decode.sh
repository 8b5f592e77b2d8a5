#!/bin/sh
# llm-decode.sh — LLM decode against the DRAM roof measured in the same run (issue 10 goal: a
# 1B-class Q4_K model decodes at >= 70% of the bandwidth ceiling). Makes a Llama-3.2-1B-shaped
# GGUF with every matrix Q4_K and random data (bench/make_llama1b.py, ~700 MB in $TMPDIR, deleted
# after), then alternates RUNS times: `roofline peaks --quick --json --no-cache` (the DRAM
# ceiling) and bench/llm_decode.c (rf_exec_llm_run: decode steps at context CONTEXT, the step's
# weight bytes over its median time). Prints each run, the medians, and achieved / ceiling.
# Waits up to QUIET_WAIT s (120) for a 1-minute load under QUIET_LOAD (the CPU count) and says so
# when the machine stayed busy: the ratio is then not the hardware's.
# Usage: sh bench/llm-decode.sh [BUILD_DIR]   env: RUNS=5 THREADS=0 (every core) CONTEXT=128
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
bin=${RF_BIN:-$build/roofline}
runs=${RUNS:-5}
threads=${THREADS:-0}
context=${CONTEXT:-128}
fail() { echo "llm-decode: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "no roofline binary at $bin (build first: make)"
[ -f "$build/libroofline.a" ] || fail "no $build/libroofline.a (build first: make)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llm-decode.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
avail=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
[ "$avail" -gt 1000000 ] || fail "needs 1 GB free in ${TMPDIR:-/tmp} (has ${avail} KiB)"
cc -O2 -I"$here/include" "$here/bench/llm_decode.c" "$build/libroofline.a" -lopenblas -lhwloc -llz4 -ldnnl -ldl \
    -lprotobuf-c -ljansson -lpthread -lm -o "$tmp/llm_decode" || fail "cannot build llm_decode.c"
python3 "$here/bench/make_llama1b.py" "$tmp/llama1b.gguf" || fail "cannot write the model"
echo "model: $(du -h --apparent-size "$tmp/llama1b.gguf" | cut -f1) Llama-1B shape, Q4_K, random data; decode at context $context"
dram() { # DRAM ceiling in byte/s from the machine file on stdin
    python3 -c 'import json, sys
d = json.load(sys.stdin)
print(max(c["value"] for c in d["ceilings"] if c["name"] == "DRAM"))'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
quiet_load=${QUIET_LOAD:-$(nproc)}
waited=0
while awk -v q="$quiet_load" '{ exit !($1 >= q) }' /proc/loadavg && [ "$waited" -lt "${QUIET_WAIT:-120}" ]; do
    sleep 10
    waited=$((waited + 10))
done
load0=$(cut -d' ' -f1 /proc/loadavg)
: >"$tmp/bw"
: >"$tmp/dec"
i=0
while [ $i -lt "$runs" ]; do
    i=$((i + 1))
    "$bin" peaks --quick --json --no-cache --threads "${THREADS:-$(nproc)}" 2>/dev/null >"$tmp/m.json" ||
        fail "roofline peaks failed"
    bw=$(dram <"$tmp/m.json") || fail "no DRAM ceiling in the peaks output"
    line=$("$tmp/llm_decode" "$tmp/llama1b.gguf" "$threads" "$context" 4) || fail "llm_decode failed"
    dec=$(echo "$line" | awk '{ for (i = 1; i < NF; i++) if ($i == "bytes_per_s") print $(i + 1) }')
    echo "$bw" >>"$tmp/bw"
    echo "$dec" >>"$tmp/dec"
    echo "run $i: DRAM ceiling $(awk -v b="$bw" 'BEGIN { printf "%.2f", b / 1e9 }') GB/s; $line"
done
bw=$(median <"$tmp/bw")
dec=$(median <"$tmp/dec")
pct=$(awk -v a="$dec" -v b="$bw" 'BEGIN { printf "%.1f", 100 * a / b }')
printf 'median of %s runs: decode %.2f GB/s of weights, DRAM ceiling %.2f GB/s: %s%% (goal >= 70%%)\n' \
    "$runs" "$(awk -v a="$dec" 'BEGIN { print a / 1e9 }')" "$(awk -v a="$bw" 'BEGIN { print a / 1e9 }')" "$pct"
load1=$(cut -d' ' -f1 /proc/loadavg)
echo "machine: 1-minute load $load0 at the start, $load1 at the end, $(nproc) CPUs"
if awk -v a="$load0" -v b="$load1" -v q="$quiet_load" 'BEGIN { exit !(a >= q || b >= q) }'; then
    echo "NOT QUIET: other processes shared the CPUs; both figures are below the hardware's and the ratio is not the goal's"
fi
