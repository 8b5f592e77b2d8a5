#!/bin/sh
# svg_xml.sh BIN SRC OUT — draws charts with the installed binary and checks them with
# check_svg.py: valid XML, one marker per plottable row (two with a measured time), each at its
# data-ai / data-attainable (measured: data-achieved) on the decade axes. Inputs: the golden
# machine and ops list (also with measured times), and ResNet-18 on an A100.
# Skipped (77) without python3.
set -u
BIN=$1
SRC=$2
OUT=$3/chart-tests
mkdir -p "$OUT"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "SKIPPED: python3 is not installed (scripts/install-deps installs it)"
    exit 77
fi
fails=0
run() { # name hw ops
    "$BIN" analyze --hw "$2" "$3" --plot "$OUT/$1.svg" >/dev/null 2>&1 || {
        echo "FAIL: analyze --plot $1.svg"; fails=$((fails + 1)); return; }
    "$BIN" analyze --hw "$2" "$3" --json >"$OUT/$1.json" 2>/dev/null
    "$PY" "$SRC/tests/chart/check_svg.py" "$OUT/$1.svg" "$OUT/$1.json" || fails=$((fails + 1))
}
run golden "$SRC/tests/golden/data/machine.json" "$SRC/tests/golden/data/ops.csv"
run golden_simple "$SRC/tests/golden/data/simple.json" "$SRC/tests/golden/data/ops.json"
run resnet18 a100-sxm4-80gb "$SRC/docs/resnet18_ops.csv"
# measured times: a filled marker per measured row at its achieved FLOP/s, joined to its estimate
run measured "$SRC/tests/golden/data/machine_caps.json" "$SRC/tests/golden/data/ops_measured.csv"
# two results on shared axes: one machine's DRAM roof and its L1 roof
"$BIN" analyze --hw "$SRC/tests/golden/data/machine.json" --memory L1 \
    "$SRC/tests/golden/data/ops.csv" --json >"$OUT/golden_l1.json" 2>/dev/null
"$BIN" plot "$OUT/golden.json" "$OUT/golden_l1.json" -o "$OUT/two.svg" &&
    "$PY" "$SRC/tests/chart/check_svg.py" "$OUT/two.svg" "$OUT/golden.json" "$OUT/golden_l1.json" ||
    fails=$((fails + 1))
# a chart drawn from a saved result is the chart drawn by analyze
"$BIN" plot "$OUT/resnet18.json" --hw a100-sxm4-80gb -o "$OUT/resnet18_replot.svg" &&
    cmp -s "$OUT/resnet18.svg" "$OUT/resnet18_replot.svg" ||
    { echo "FAIL: plot of the saved result differs from analyze --plot"; fails=$((fails + 1)); }
echo "$fails failed"
[ "$fails" -eq 0 ]
