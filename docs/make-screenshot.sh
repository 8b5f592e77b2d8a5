#!/bin/sh
# make-screenshot.sh — re-makes the chart the README shows: ResNet-18 (the built-in demo: batch 1,
# 224x224, fp32, profiled layer by layer from its ONNX graph) on the NVIDIA A100 SXM4 80GB of the
# datasheet database, drawn as SVG by `roofline demo --plot` and photographed by headless
# Chromium. Writes docs/roofline-resnet18.svg and docs/roofline-resnet18.png.
# Usage: sh docs/make-screenshot.sh [path/to/roofline]   (default: roofline in build/ or PATH)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
    if [ -x "$here/../build/roofline" ]; then bin=$here/../build/roofline; else bin=roofline; fi
fi
chromium=/usr/bin/chromium
[ -x "$chromium" ] || { echo "make-screenshot: $chromium not found (scripts/install-deps)" >&2; exit 1; }
cd "$here"
"$bin" demo --hw a100-sxm4-80gb --plot roofline-resnet18.svg >/dev/null
w=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)".*/\1/p' roofline-resnet18.svg)
h=$(sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' roofline-resnet18.svg)
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$profile" --window-size="$w,$h" --force-device-scale-factor=1 \
    --screenshot="$here/roofline-resnet18.png" "file://$here/roofline-resnet18.svg" 2>/dev/null
echo "wrote $here/roofline-resnet18.svg and $here/roofline-resnet18.png (${w}x${h})"
