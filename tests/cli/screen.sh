#!/bin/sh
# screen.sh BIN SRC — the demo fits one screen (issue 29): at most 45 lines and no line over 120
# columns at any terminal width, ASCII or UTF-8, estimated or measured; --all gives the full
# report; profile lists the 20 slowest layers of a long model (every one with --all, --json and
# --csv); `profile --measure` puts a progress line on stderr every two seconds, never on stdout.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/golden/data
M=$D/machine.json
R=$SRC/tests/data/onnx/resnet18.onnx
check() { # check WHAT CMD...: CMD must succeed
    what=$1
    shift
    if "$@"; then PASSES=$((PASSES + 1)); else
        echo "FAIL: $what"
        FAILS=$((FAILS + 1))
    fi
}
# fits FILE: at most 45 lines, none wider than 120 columns (display columns in a UTF-8 locale)
fits() {
    n=$(wc -l <"$1")
    w=$(LC_ALL=C.UTF-8 wc -L <"$1")
    [ "$n" -le 45 ] && [ "$w" -le 120 ] && return 0
    echo "  $n lines, $w columns wide:" && head -5 "$1"
    return 1
}

for cols in 80 100 120 200 400; do # (under 80 the table itself is wider than the terminal)
    for loc in C C.UTF-8; do
        for hw in "" "--hw $M"; do
            # shellcheck disable=SC2086
            COLUMNS=$cols LC_ALL=$loc "$BIN" demo $hw >"$TMP/out" 2>"$TMP/err"
            check "demo $hw at $cols columns ($loc): exit $?" [ $? -eq 0 ]
            check "demo $hw at $cols columns ($loc) fits one screen" fits "$TMP/out"
        done
    done
done
# the screen names what it left out and how to get it
"$BIN" demo --hw "$M" >"$TMP/out" 2>"$TMP/err"
check "demo: the rest in one line" grep -q '^\.\.\. 40 more operations, .* (--all lists them)$' "$TMP/out"
check "demo: the closing hint" grep -q '^more: --all (the full report), --json or --csv' "$TMP/out"
check "demo: no slowest list, no Bottlenecks" sh -c "! grep -q '^slowest\|^Bottlenecks' '$TMP/out'"
check "demo: two suggestions" sh -c "[ \$(grep -c '^  [0-9]\. \[' '$TMP/out') -eq 2 ]"
# --all: the full report, every layer
expect 0 "" -- demo --hw "$M" --all
check "demo --all: 48 rows" sh -c "[ \$(grep -c '^ *[0-9][0-9]*  /' '$TMP/out') -eq 48 ]"
check "demo --all: Bottlenecks and slowest" sh -c "grep -q '^Bottlenecks' '$TMP/out' && grep -q '^slowest 5 layers' '$TMP/out'"
# measured points under their roofs: still one screen (up to 120 columns); a short run
COLUMNS=120 "$BIN" demo --hw "$M" --measure --repeat 1 --threads 1 >"$TMP/out" 2>"$TMP/err"
check "demo --measure: exit $?" [ $? -eq 0 ]
check "demo --measure fits 55 lines" sh -c "[ \$(wc -l <'$TMP/out') -le 55 ] && [ \$(LC_ALL=C.UTF-8 wc -L <'$TMP/out') -le 120 ]"
check "demo --measure --repeat 1: no progress line" sh -c "! grep -q 'measuring: .* pass' '$TMP/err'"

# profile: a long model lists its 20 slowest; --all, --json and --csv every layer
expect 0 "" -- profile --hw "$M" "$R"
check "profile: 20 rows" sh -c "[ \$(grep -c '^ *[0-9][0-9]*  /' '$TMP/out') -eq 20 ]"
check "profile: the rest line" grep -q '^\.\.\. 28 more operations' "$TMP/out"
expect 0 "" -- profile --hw "$M" --top 0 "$R"
check "profile --top 0: 48 rows" sh -c "[ \$(grep -c '^ *[0-9][0-9]*  /' '$TMP/out') -eq 48 ]"
expect 0 "" -- profile --hw "$M" --all "$R"
check "profile --all: 48 rows in model order" sh -c "grep -q '^ 1  /conv1/Conv' '$TMP/out' && grep -q '^ 2  /relu/Relu' '$TMP/out' && [ \$(grep -c '^ *[0-9][0-9]*  /' '$TMP/out') -eq 48 ]"
expect 0 "" -- profile --hw "$M" --csv "$R"
check "profile --csv: 48 rows" sh -c "[ \$(wc -l <'$TMP/out') -eq 49 ]"
expect 0 "" -- profile --hw "$M" --json "$R"
check "profile --json: 48 rows" sh -c "[ \$(grep -c '\"name\": \"/' '$TMP/out') -ge 48 ]"

# progress: a measuring run past two seconds gets "measuring: ... pass k of n" lines on stderr
# (as llm --measure); 150 passes of ResNet-18 on one thread take 5 s or more on any machine
"$BIN" profile --hw "$M" --measure --threads 1 --repeat 150 "$R" >"$TMP/out" 2>"$TMP/err"
check "profile --measure --repeat 150: exit $?" [ $? -eq 0 ]
check "profile --measure: a progress line" grep -q '^roofline: measuring: .* s  timed, pass [0-9]* of 150$' "$TMP/err"
check "profile --measure: no progress on stdout" sh -c "! grep -q 'measuring: ' '$TMP/out'"
finish
