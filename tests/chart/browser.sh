#!/bin/sh
# browser.sh BIN SRC BUILD — the interactive HTML chart in headless Chromium (browser_test.py):
# ResNet-18 on an A100, two series on shared axes, measured points, a full peaks machine and an
# LLM's prefill, decode and measured rates. Screenshots stay in
# BUILD/chart-tests/screenshots/ for a person to look at. Skipped (77) without /usr/bin/chromium.
set -u
BIN=$1
SRC=$2
OUT=$3/chart-tests
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if [ ! -x /usr/bin/chromium ]; then
    echo "SKIPPED: /usr/bin/chromium is not installed (scripts/install-deps installs Debian's chromium)"
    exit 77
fi
mkdir -p "$OUT"
fails=0
"$BIN" analyze --hw a100-sxm4-80gb "$SRC/docs/resnet18_ops.csv" --plot "$OUT/resnet18.html" \
    >/dev/null || fails=$((fails + 1))
"$PY" "$SRC/tests/chart/browser_test.py" "$OUT/resnet18.html" "$OUT/screenshots/resnet18" ||
    fails=$((fails + 1))
g=$SRC/tests/golden/data
"$BIN" analyze --hw "$g/machine.json" "$g/ops.csv" --json >"$OUT/s1.json" 2>/dev/null
"$BIN" analyze --hw "$g/machine.json" --memory L2 "$g/ops.csv" --json >"$OUT/s2.json" 2>/dev/null
"$BIN" plot "$OUT/s1.json" "$OUT/s2.json" --hw "$g/machine.json" -o "$OUT/two.html" ||
    fails=$((fails + 1))
"$PY" "$SRC/tests/chart/browser_test.py" "$OUT/two.html" "$OUT/screenshots/two-series" ||
    fails=$((fails + 1))
# measured times: filled measurements, hollow estimates, the tooltip says which is which
"$BIN" analyze --hw "$g/machine_caps.json" "$g/ops_measured.csv" --plot "$OUT/measured.html" \
    >/dev/null 2>&1 || fails=$((fails + 1))
"$PY" "$SRC/tests/chart/browser_test.py" "$OUT/measured.html" "$OUT/screenshots/measured" ||
    fails=$((fails + 1))
# a third roof: network-bound points (diamonds) at their FLOPs per network byte, the tooltip says so
printf 'name,flops,bytes,net_bytes\nlocal,1e12,1e9,0\nelementwise,1e8,4e9,0\nallreduce,8.4e6,6.7e7,2.9e8\n' \
    >"$OUT/net.csv"
"$BIN" analyze --hw "$g/machine_network.json" "$OUT/net.csv" --advice 0 --plot "$OUT/network.html" \
    >/dev/null 2>&1 || fails=$((fails + 1))
"$PY" "$SRC/tests/chart/browser_test.py" "$OUT/network.html" "$OUT/screenshots/network" ||
    fails=$((fails + 1))
# issue 29: a long title wraps; a full peaks machine draws the roofs that matter, the rest behind
# a toggle (glance_checks in browser_test.py)
mkdir -p "$OUT/a_long_folder_of_models/resnet18_variant_with_input_shape"
long=$OUT/a_long_folder_of_models/resnet18_variant_with_input_shape/ops_measured_batch1_input=1x3x48x320.csv
cp "$g/ops_measured.csv" "$long"
"$BIN" analyze --hw "$g/machine_caps.json" "$long" --plot "$OUT/long.html" >/dev/null 2>&1 ||
    fails=$((fails + 1))
"$PY" "$SRC/tests/chart/browser_test.py" "$OUT/long.html" "$OUT/screenshots/long-title" ||
    fails=$((fails + 1))
"$BIN" analyze --hw "$SRC/tests/chart/peaks_full.json" "$g/ops.csv" --plot "$OUT/peaks.html" \
    >/dev/null 2>&1 || fails=$((fails + 1))
"$PY" "$SRC/tests/chart/browser_test.py" "$OUT/peaks.html" "$OUT/screenshots/peaks" ||
    fails=$((fails + 1))
# the LLM chart: prefill and decode as two series, the measured rates a third whose estimates
# stay open rings on their roof (a compute-bound one was drawn hatched, like a measurement)
"$BIN" llm --hw xeon-8480plus "$g/tiny_llama_q.gguf" --measured-tps 150000 --measured-ttft 2e-4 \
    --advice 0 --plot "$OUT/llm.html" >/dev/null 2>&1 || fails=$((fails + 1))
"$PY" "$SRC/tests/chart/browser_test.py" "$OUT/llm.html" "$OUT/screenshots/llm" ||
    fails=$((fails + 1))
echo "$fails failed"
[ "$fails" -eq 0 ]
