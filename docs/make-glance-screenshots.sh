#!/bin/sh
# make-glance-screenshots.sh — the five chart kinds of issue 29, drawn as SVG by the CLI and
# photographed at 1x by headless Chromium into docs/glance-*.png:
#   model       the built-in ResNet-18 on the A100 datasheet (`demo --plot`)
#   measured    an operations list with measured times (filled dots, open rings for estimates)
#   two-series  ResNet-18 at 224x224 against 512x512 (`demo --compare --plot`)
#   peaks       every ceiling of a full `peaks` run (tests/chart/peaks_full.json, served from a
#               private cache so nothing is measured but a 3 s quick run that names the cache file)
#   llm         TinyStories-15M Q8_0 prefill and decode with rates measured on this CPU
# Usage: sh docs/make-glance-screenshots.sh [path/to/roofline]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/..
bin=${1:-}
if [ -z "$bin" ]; then
    if [ -x "$src/build/roofline" ]; then bin=$src/build/roofline; else bin=roofline; fi
fi
chromium=/usr/bin/chromium
[ -x "$chromium" ] || { echo "make-glance-screenshots: $chromium not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" # titles name the inputs by their path in the repository
g=tests/golden/data
shot() { # SVG PNG: photograph the SVG at its own size, scale 1
    w=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)".*/\1/p' "$1" | head -n 1)
    h=$(sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' "$1" | head -n 1)
    "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$tmp/profile" --window-size="$w,$h" \
        --force-device-scale-factor=1 --screenshot="$2" "file://$1" 2>/dev/null
    echo "$2: ${w}x${h}, $(wc -c <"$2") bytes"
}
"$bin" demo --hw a100-sxm4-80gb --advice 0 --plot "$tmp/model.svg" >/dev/null
shot "$tmp/model.svg" "$here/glance-model.png"
"$bin" analyze --hw "$g/machine_caps.json" "$g/ops_measured.csv" --advice 0 \
    --plot "$tmp/measured.svg" >/dev/null 2>&1
shot "$tmp/measured.svg" "$here/glance-measured.png"
"$bin" demo --hw a100-sxm4-80gb --advice 0 --compare input=1x3x512x512 \
    --plot "$tmp/two.svg" >/dev/null
shot "$tmp/two.svg" "$here/glance-two-series.png"
# the peaks chart: a full peaks file where `peaks` looks for this machine's cache
XDG_CACHE_HOME=$tmp/cache "$bin" peaks --quick >/dev/null 2>&1
quick=$(ls "$tmp"/cache/roofline/peaks-quick-*.json | head -n 1)
cp "$src/tests/chart/peaks_full.json" "$(echo "$quick" | sed 's/peaks-quick-/peaks-full-/')"
XDG_CACHE_HOME=$tmp/cache "$bin" peaks --plot "$tmp/peaks.svg" >/dev/null 2>&1
shot "$tmp/peaks.svg" "$here/glance-peaks.png"
gunzip -c "$src/tests/data/gguf/tinystories15m_q8_0.gguf.gz" >"$tmp/ts.gguf"
"$bin" llm --hw measured --measure --advice 0 "$tmp/ts.gguf" --plot "$tmp/llm.svg" >/dev/null
shot "$tmp/llm.svg" "$here/glance-llm.png"
