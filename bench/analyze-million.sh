#!/bin/sh
# analyze-million.sh [ROWS] [RUNS] — `roofline analyze` on a generated operations list of ROWS rows
# (default one million) against an anchor measured in the same run on the same file: awk summing
# the two numeric columns (the least any streaming reader must do). Times the default table,
# --format json, --csv, --plot out.svg and --plot out.html; RUNS (default 5) interleaved rounds of
# every command, medians of wall time, the largest peak RSS (/usr/bin/time). Prints each ratio to
# the anchor with PASS/FAIL against the goals of issue 27: <= 10x the anchor, <= 400 MB. A command
# that fails counts as FAIL with its message. Exit 0 all pass, 1 a goal missed, 2 cannot run.
# Usage: sh bench/analyze-million.sh [ROWS] [RUNS]   (after `make`; RF_BIN=path overrides)
set -u
rows=${1:-1000000}
runs=${2:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${RF_BIN:-$here/build/roofline}
goal_ratio=10
goal_kib=$((400 * 1024))
die() {
    echo "analyze-million: cannot run: $*" >&2
    exit 2
}
[ -x "$bin" ] || die "no roofline binary at $bin (build first, or set RF_BIN)"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package 'time')"
command -v awk >/dev/null || die "awk is missing"
tmp=$(mktemp -d) || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
awk -v n="$rows" 'BEGIN { print "name,flops,bytes";
    for (i = 1; i <= n; i++) printf "layer.%d.matmul,%d,%d\n", i, (i * 7919) % 100000000 + 1, (i * 104729) % 1000000 + 64 }' \
    >"$tmp/ops.csv" || die "could not write the input"
echo "input: $rows rows, $(wc -c <"$tmp/ops.csv") bytes; $runs interleaved rounds; load: $(uptime | sed 's/.*load/load/')"

M="--peak-flops 1T --peak-bw 100G"
# name|command (word-split on purpose; the file names have no spaces)
modes="anchor|awk -F, NR>1{f+=\$2;b+=\$3}END{print(f,b)} $tmp/ops.csv
default|$bin analyze $M $tmp/ops.csv
json|$bin analyze $M --format json $tmp/ops.csv
csv|$bin analyze $M --csv $tmp/ops.csv
plot-svg|$bin analyze $M --plot $tmp/out.svg $tmp/ops.csv
plot-html|$bin analyze $M --plot $tmp/out.html $tmp/ops.csv"

# one run: appends "seconds rss_kib rc" to $tmp/NAME.runs, the first stderr line to $tmp/NAME.err
run_one() {
    name=$1
    shift
    s=$(date +%s.%N)
    /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>"$tmp/err.$name"
    rc=$?
    e=$(date +%s.%N)
    rss=$(tail -n 1 "$tmp/rss" 2>/dev/null)
    case $rss in '' | *[!0-9]*) rss=0 ;; esac
    [ "$rc" -ne 0 ] && grep -v 'exited with non-zero status' "$tmp/err.$name" | head -n 1 >"$tmp/$name.err"
    echo "$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f", e - s }') $rss $rc" >>"$tmp/$name.runs"
}

i=0
while [ "$i" -lt "$runs" ]; do
    echo "$modes" | while IFS='|' read -r name cmd; do
        # shellcheck disable=SC2086
        set -f
        set -- $cmd
        set +f
        run_one "$name" "$@"
    done
    i=$((i + 1))
done

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }'; }
anchor=$(cut -d' ' -f1 "$tmp/anchor.runs" | median)
awk -v a="$anchor" 'BEGIN { exit !(a > 0) }' || die "the anchor did not run"
[ "$(cut -d' ' -f3 "$tmp/anchor.runs" | sort -u)" = 0 ] || die "awk failed: $(cat "$tmp/err.anchor")"
printf '%-10s %9s %8s %10s  %s\n' "command" "median s" "x awk" "peak RSS" "goal (<= ${goal_ratio}x awk, <= 400 MB)"
printf '%-10s %9.3f %8s %7d MB\n' "awk sum" "$anchor" "1.00" "$(($(cut -d' ' -f2 "$tmp/anchor.runs" | sort -n | tail -n 1) / 1024))"
fails=0
for name in default json csv plot-svg plot-html; do
    t=$(cut -d' ' -f1 "$tmp/$name.runs" | median)
    rss=$(cut -d' ' -f2 "$tmp/$name.runs" | sort -n | tail -n 1)
    bad_rc=$(awk '$3 != 0' "$tmp/$name.runs" | wc -l)
    ratio=$(awk -v a="$t" -v b="$anchor" 'BEGIN { printf "%.2f", a / b }')
    if [ "$bad_rc" -gt 0 ]; then
        verdict="FAIL: exit $(awk '$3 != 0 { print $3; exit }' "$tmp/$name.runs") in $bad_rc of $runs runs: $(cat "$tmp/$name.err" 2>/dev/null)"
    elif awk -v r="$ratio" -v g="$goal_ratio" 'BEGIN { exit !(r > g) }'; then
        verdict="FAIL: over ${goal_ratio}x the anchor"
    elif [ "$rss" -gt "$goal_kib" ]; then
        verdict="FAIL: peak RSS over 400 MB"
    else
        verdict=PASS
    fi
    case $verdict in FAIL*) fails=$((fails + 1)) ;; esac
    printf '%-10s %9.3f %8s %7d MB  %s\n' "$name" "$t" "$ratio" "$((rss / 1024))" "$verdict"
done
[ "$fails" -eq 0 ] || {
    echo "analyze-million: $fails of 5 commands miss a goal"
    exit 1
}
echo "analyze-million: every command meets its goals"
