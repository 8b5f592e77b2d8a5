#!/bin/sh
# exec-vs-ort.sh — the executor's whole forward pass (rf_exec_run through bench/exec_run.c)
# against ONNX Runtime's CPU execution provider (npm onnxruntime-node, bench/exec_ort.js) on the
# same model, same threads, in the same run: ResNet-18, MobileNetV2 (batch 1) and the transformer
# encoder fixture (tests/data/onnx; ORT gets a weights-complete copy made by exec_models.py).
# ROUNDS alternating rounds of RUNS timed passes each; prints the medians and exec/ORT (goal
# <= 1.3, issue 10). Fails loudly when something it needs is missing.
# Usage: sh bench/exec-vs-ort.sh [BUILD_DIR]   (THREADS=2 ROUNDS=3 RUNS=20 by default)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-3}
runs=${RUNS:-20}
py=${PYTHON:-/usr/bin/python3} # the Debian python3 that has python3-onnx (not a pyenv shim)
fail() { echo "exec-vs-ort: $*" >&2; exit 1; }
[ -f "$build/libroofline.a" ] || fail "no $build/libroofline.a: run 'make' first"
"$py" -c "import onnx, numpy" 2>/dev/null || fail "python3-onnx missing (apt-get install python3-onnx)"
command -v node >/dev/null || fail "node missing (apt-get install nodejs npm)"
if [ ! -d "$here/bench/.ort/node_modules/onnxruntime-node" ]; then
    mkdir -p "$here/bench/.ort"
    (cd "$here/bench/.ort" && npm install onnxruntime-node --ignore-scripts --no-audit --no-fund >&2) ||
        fail "npm install onnxruntime-node failed"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cc -O2 -I"$here/include" "$here/bench/exec_run.c" "$build/libroofline.a" \
    $(pkg-config --libs jansson libprotobuf-c liblz4 hwloc openblas) -ldnnl -lm -lpthread -ldl \
    -o "$tmp/exec_run" || fail "cannot build bench/exec_run.c"
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit 1; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "threads $threads, $rounds rounds of $runs passes, OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)}, load average $(cut -d" " -f1-3 /proc/loadavg)"
printf '%-28s %12s %12s %10s\n' model exec_ms ort_ms exec/ort
for m in resnet18 mobilenet_v2 transformer_encoder_small; do
    src="$here/tests/data/onnx/$m.onnx"
    [ -f "$src" ] || fail "fixture $src missing"
    shapes=$("$py" "$here/bench/exec_models.py" complete "$src" "$tmp/$m.onnx") ||
        fail "cannot complete $m's weights"
    : >"$tmp/ex" && : >"$tmp/ort"
    r=0
    while [ $r -lt "$rounds" ]; do
        "$tmp/exec_run" "$tmp/$m.onnx" --threads "$threads" --repeat "$runs" --quiet |
            sed -n 's/^wall_median_s=\([^ ]*\).*/\1/p' >>"$tmp/ex" || fail "exec_run failed on $m"
        node "$here/bench/exec_ort.js" "$tmp/$m.onnx" "$shapes" "$threads" "$runs" |
            sed -n 's/^ort_median_s=\([^ ]*\).*/\1/p' >>"$tmp/ort" || fail "ORT failed on $m"
        r=$((r + 1))
    done
    ex=$(median <"$tmp/ex") || fail "no executor time for $m"
    ort=$(median <"$tmp/ort") || fail "no ORT time for $m"
    awk -v m="$m" -v e="$ex" -v o="$ort" 'BEGIN {printf "%-28s %12.2f %12.2f %10.2f\n", m, e * 1e3, o * 1e3, e / o}'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
