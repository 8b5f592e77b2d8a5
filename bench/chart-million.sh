#!/bin/sh
# chart-million.sh [ROWS] — the chart of a big input: `roofline analyze --plot -` (SVG on standard
# output, the report left out) and `--plot FILE.html` on a generated N-row CSV (default one
# million), against an anchor measured in the same run on the same file: awk summing the two
# numeric columns. Interleaved runs, medians of 5; prints each ratio and peak RSS, and fails loudly
# when the chart is refused or does not hold the density. `--advice 0` keeps the advice (timed by
# analyze-million.sh) out of the chart's figure; the HTML line also prints the text report of
# every row to a discarded stdout (the analyze pipeline's cost, not the chart's: compare the SVG
# line). Usage: sh bench/chart-million.sh [ROWS]
set -eu
rows=${1:-1000000}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${RF_BIN:-$here/build/roofline}
[ -x "$bin" ] || { echo "chart-million: no roofline binary at $bin (run make, or set RF_BIN)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v n="$rows" 'BEGIN { print "name,flops,bytes"; s = 12345;
    for (i = 1; i <= n; i++) { s = (s * 1103515245 + 12345) % 2147483648;
        printf "block%d/layer%d/matmul,%d,%d\n", i / 100, i % 100, s % 100000000 + 1, (s * 7) % 1000000 + 64 } }' >"$tmp/ops.csv"
echo "input: $rows rows, $(wc -c <"$tmp/ops.csv") bytes; load: $(uptime | sed 's/.*load average: //')"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timeit() { s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
hw="--peak-flops 1T --peak-bw 100G"
for i in 1 2 3 4 5; do # interleaved: each round runs the anchor and both charts
    timeit awk -F, 'NR > 1 { f += $2; b += $3 } END { print f, b }' "$tmp/ops.csv" >>"$tmp/anchor"
    # shellcheck disable=SC2086
    timeit "$bin" analyze $hw --advice 0 "$tmp/ops.csv" --plot - >>"$tmp/svg"
    # shellcheck disable=SC2086
    timeit "$bin" analyze $hw --advice 0 "$tmp/ops.csv" --plot "$tmp/c.html" >>"$tmp/html"
done
# shellcheck disable=SC2086
"$bin" analyze $hw --advice 0 "$tmp/ops.csv" --plot "$tmp/c.svg" >/dev/null
grep -q "class=\"density" "$tmp/c.svg" || { echo "chart-million: FAIL: the chart holds no density" >&2; exit 1; }
# shellcheck disable=SC2086
rss_svg=$(/usr/bin/time -f %M "$bin" analyze $hw --advice 0 "$tmp/ops.csv" --plot - 2>&1 >/dev/null | tail -n 1)
a=$(median <"$tmp/anchor"); sv=$(median <"$tmp/svg"); ht=$(median <"$tmp/html")
printf 'anchor awk sum:                         %.3f s\n' "$a"
printf 'analyze --plot - (SVG only):            %.3f s  (%sx the anchor)  peak RSS %d KiB  %d bytes\n' \
    "$sv" "$(ratio "$sv" "$a")" "$rss_svg" "$(wc -c <"$tmp/c.svg")"
printf 'analyze --plot c.html (+ text report): %.3f s  (%sx the anchor)  %d bytes\n' \
    "$ht" "$(ratio "$ht" "$a")" "$(wc -c <"$tmp/c.html")"
