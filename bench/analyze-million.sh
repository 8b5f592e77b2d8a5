#!/bin/sh
# analyze-million.sh [ROWS] — how long `roofline analyze` takes on a generated N-row CSV (default
# one million), against an anchor measured in the same run on the same file: awk summing the two
# numeric columns (the least any streaming reader must do). Medians of 5 runs of each; prints the
# ratio and the peak RSS. Usage: sh bench/analyze-million.sh [ROWS]   (after `make`)
set -eu
rows=${1:-1000000}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${RF_BIN:-$here/build/roofline}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v n="$rows" 'BEGIN { print "name,flops,bytes";
    for (i = 1; i <= n; i++) printf "layer.%d.matmul,%d,%d\n", i, (i * 7919) % 100000000 + 1, (i * 104729) % 1000000 + 64 }' >"$tmp/ops.csv"
echo "input: $rows rows, $(wc -c <"$tmp/ops.csv") bytes"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timeit() { # prints seconds of one run of "$@" (stdout discarded)
    s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

for i in 1 2 3 4 5; do timeit awk -F, 'NR > 1 { f += $2; b += $3 } END { print f, b }' "$tmp/ops.csv"; done | median >"$tmp/anchor"
for i in 1 2 3 4 5; do timeit "$bin" analyze --peak-flops 1T --peak-bw 100G --top 20 "$tmp/ops.csv"; done | median >"$tmp/top"
for i in 1 2 3 4 5; do timeit "$bin" analyze --peak-flops 1T --peak-bw 100G --csv "$tmp/ops.csv"; done | median >"$tmp/all"
rss_top=$(/usr/bin/time -f %M "$bin" analyze --peak-flops 1T --peak-bw 100G --top 20 "$tmp/ops.csv" 2>&1 >/dev/null | tail -n 1)
rss_all=$(/usr/bin/time -f %M "$bin" analyze --peak-flops 1T --peak-bw 100G --csv "$tmp/ops.csv" 2>&1 >/dev/null | tail -n 1)
a=$(cat "$tmp/anchor"); t=$(cat "$tmp/top"); l=$(cat "$tmp/all")
printf 'anchor awk sum:                   %.3f s\n' "$a"
printf 'roofline analyze --top 20:        %.3f s  (%sx the anchor)  peak RSS %d KiB\n' "$t" "$(ratio "$t" "$a")" "$rss_top"
printf 'roofline analyze --csv (all rows): %.3f s  (%sx the anchor)  peak RSS %d KiB\n' "$l" "$(ratio "$l" "$a")" "$rss_all"
