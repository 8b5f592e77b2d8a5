#!/bin/sh
# exec-roofs.sh — the executor's kernels as a share of this machine's roofs, all measured in the
# same run: the fp32 FMA roof and the DRAM roof from `roofline peaks --quick --json --no-cache`;
# ResNet-18's 3x3 convolutions at batch 1 and 8 and a 1024^3 MatMul against the FMA roof (goal
# >= 75%), Relu and Add on DRAM-sized tensors (N floats each) against the DRAM roof (goal >= 80%)
# (issue 10). FLOPs and bytes are the cost model's; times are the executor's per-layer medians.
# Usage: sh bench/exec-roofs.sh [BUILD_DIR]   (THREADS=2 RUNS=20 N=16777216 by default)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
threads=${THREADS:-$(nproc)}
runs=${RUNS:-20}
n=${N:-16777216}
py=${PYTHON:-/usr/bin/python3} # the Debian python3 that has python3-onnx (not a pyenv shim)
fail() { echo "exec-roofs: $*" >&2; exit 1; }
[ -x "$build/roofline" ] && [ -f "$build/libroofline.a" ] || fail "no build in $build: run 'make'"
"$py" -c "import onnx, numpy" 2>/dev/null || fail "python3-onnx missing (apt-get install python3-onnx)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cc -O2 -I"$here/include" "$here/bench/exec_run.c" "$build/libroofline.a" \
    $(pkg-config --libs jansson libprotobuf-c liblz4 hwloc openblas) -ldnnl -lm -lpthread -ldl \
    -o "$tmp/exec_run" || fail "cannot build bench/exec_run.c"
echo "threads $threads, $runs passes, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/roofline" peaks --quick --json --no-cache --threads "$threads" >"$tmp/peaks.json" 2>"$tmp/peaks.err" ||
    fail "roofline peaks failed: $(cat "$tmp/peaks.err")"
roofs=$("$py" - "$tmp/peaks.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
fma = [c for c in m["ceilings"] if c["kind"] == "compute" and c["name"].startswith("fp32.fma")]
dram = [c for c in m["ceilings"] if c["kind"] != "compute" and c["name"].upper() == "DRAM"]
if not fma or not dram:
    sys.exit("no fp32 FMA or DRAM ceiling in the peaks output")
f, d = max(fma, key=lambda c: c["value"]), dram[0]
print(f["value"], d["value"], f["name"], f.get("note", "").replace(" ", "_"), d.get("note", "").replace(" ", "_"))
PY
) || fail "cannot read the roofs"
set -- $roofs
fma=$1 dram=$2
echo "roofs (measured now): $3 $(awk -v v="$fma" 'BEGIN{printf "%.1f GFLOP/s", v/1e9}') [$4]; DRAM $(awk -v v="$dram" 'BEGIN{printf "%.1f GB/s", v/1e9}') [$5]"
"$tmp/exec_run" "$here/tests/data/onnx/resnet18.onnx" --threads "$threads" --repeat "$runs" --tsv >"$tmp/b1.tsv"
"$tmp/exec_run" "$here/tests/data/onnx/resnet18.onnx" --threads "$threads" --repeat "$runs" --batch 8 --tsv >"$tmp/b8.tsv"
"$py" "$here/bench/exec_models.py" matmul 1024 "$tmp/mm.onnx"
"$py" "$here/bench/exec_models.py" eltwise "$n" "$tmp/elt.onnx"
"$tmp/exec_run" "$tmp/mm.onnx" --threads "$threads" --repeat "$runs" --tsv >"$tmp/mm.tsv"
"$tmp/exec_run" "$tmp/elt.onnx" --threads "$threads" --repeat "$runs" --tsv >"$tmp/elt.tsv"
printf '%-34s %12s %14s %9s %7s\n' case time_ms achieved "of roof" goal
share() { # file filter(awk) roof unit goal label: sum of flops (unit F) or bytes (B) over sum of times
    awk -F'\t' -v roof="$3" -v unit="$4" -v goal="$5" -v label="$6" "$2"' {
        t += $4; w += (unit == "F" ? $5 : $6); k++ }
        END { if (!k) { print "exec-roofs: no layer for " label > "/dev/stderr"; exit 1 }
              a = w / t; printf "%-34s %12.3f %11.1f %s %8.1f%% %6s%%\n", label, t * 1e3, a / 1e9,
                     unit == "F" ? "GF/s" : "GB/s", 100 * a / roof, goal }' "$1"
}
conv3='NF == 7 && $2 == "Conv" && $7 ~ /x3x3$/'
share "$tmp/b1.tsv" "$conv3" "$fma" F 75 "ResNet-18 3x3 convs, batch 1"
share "$tmp/b8.tsv" "$conv3" "$fma" F 75 "ResNet-18 3x3 convs, batch 8"
share "$tmp/mm.tsv" 'NF == 7 && $2 == "MatMul"' "$fma" F 75 "MatMul 1024^3"
share "$tmp/elt.tsv" 'NF == 7 && $2 == "Relu"' "$dram" B 80 "Relu, $n floats"
share "$tmp/elt.tsv" 'NF == 7 && $2 == "Add"' "$dram" B 80 "Add, $n floats"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
