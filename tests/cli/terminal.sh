#!/bin/sh
# terminal.sh — names read from files never reach the terminal raw: control bytes in an operation
# name, a machine name or a JSON key come out as '?' in reports and as \xNN in messages, so a file
# can neither clear the screen nor forge a line (issue 11, "Clean terminal output").
. "$(dirname "$0")/lib.sh"

esc=$(printf '\033')
check_clean() { # FILE what
    if LC_ALL=C grep -q "[$(printf '\001-\010\013-\037\177')]" "$1"; then
        echo "FAIL: $2: control bytes reached the output:"; od -c "$1" | head -5
        FAILS=$((FAILS + 1))
    else
        PASSES=$((PASSES + 1))
    fi
}

printf 'name,flops,bytes\n"a\033[2Jb\rforged line",100,10\nok,5,5\n' >"$TMP/ops.csv"
for fmt in table csv; do
    "$BIN" analyze "$TMP/ops.csv" --peak-flops 1T --peak-bw 100G --format $fmt --chart \
        >"$TMP/out" 2>"$TMP/err"
    check_clean "$TMP/out" "analyze --format $fmt"
    check_clean "$TMP/err" "analyze --format $fmt (stderr)"
done
"$BIN" analyze "$TMP/ops.csv" --peak-flops 1T --peak-bw 100G --json >"$TMP/out" 2>&1
check_clean "$TMP/out" "analyze --json"

# A machine file whose name and an unknown key hold control bytes: the message shows them escaped.
printf '{"name": "m\\u001fx", "peak_flops": 1e12, "peak_bandwidth": 1e11, "k\\u001by": 1}' >"$TMP/m.json"
expect 2 'unknown key' -- analyze "$TMP/ops.csv" --hw "$TMP/m.json"
check_clean "$TMP/err" "machine-file error"
printf '{"name": "m\\u001fx", "peak_flops": 1e12, "peak_bandwidth": 1e11}' >"$TMP/m2.json"
"$BIN" hw show "$TMP/m2.json" >"$TMP/out" 2>"$TMP/err"
check_clean "$TMP/out" "hw show"
"$BIN" analyze "$TMP/ops.csv" --hw "$TMP/m2.json" --chart >"$TMP/out" 2>"$TMP/err"
check_clean "$TMP/out" "analyze on a machine with a control byte in its name"
finish
