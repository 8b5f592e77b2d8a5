#!/bin/sh
# onnx-vs-python.sh — `roofline profile` on ResNet-50 with inline weights (~100 MB) against
# `python3 -c "import onnx; onnx.load(...)"` alone on the same file, measured in the same run:
# medians of 5 runs of each, and peak RSS. Goal (issue 3): >= 5x faster, less memory.
# Needs Debian's python3-onnx and python3-numpy (installed if missing, as root). After `make`.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${RF_BIN:-$here/build/roofline}
py=/usr/bin/python3
if ! $py -c 'import onnx, numpy' 2>/dev/null; then
    [ "$(id -u)" -eq 0 ] && apt-get install -y -q python3-onnx python3-numpy >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$py "$here/bench/make_resnet50.py" "$tmp/resnet50.onnx"
echo "input: ResNet-50, inline FP32 weights, $(wc -c <"$tmp/resnet50.onnx") bytes"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timeit() { s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'; }
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }

load="import onnx; onnx.load('$tmp/resnet50.onnx')"
for i in 1 2 3 4 5; do timeit $py -c "$load"; done | median >"$tmp/py"
for i in 1 2 3 4 5; do timeit "$bin" profile "$tmp/resnet50.onnx" --hw a100-sxm4-80gb; done | median >"$tmp/rf"
py_rss=$(rss $py -c "$load")
rf_rss=$(rss "$bin" profile "$tmp/resnet50.onnx" --hw a100-sxm4-80gb)
"$bin" profile "$tmp/resnet50.onnx" --hw a100-sxm4-80gb --top 1 | grep -E 'params|FLOP' | head -n 4
awk -v p="$(cat "$tmp/py")" -v r="$(cat "$tmp/rf")" -v pm="$py_rss" -v rm="$rf_rss" 'BEGIN {
    printf "anchor python3 onnx.load:  %.3f s  peak RSS %d KiB\n", p, pm
    printf "roofline profile:          %.3f s  peak RSS %d KiB\n", r, rm
    printf "speed-up %.1fx (goal >= 5x), memory %.2fx of the anchor (goal < 1)\n", p / r, rm / pm }'
