# lib.sh — helpers for the CLI tests: run the installed binary, check the exit code and that stderr
# is exactly one line containing the expected words. Sourced by tests/cli/*.sh.
BIN=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
PASSES=0
export LC_ALL=C COLUMNS=80 NO_COLOR=1

# expect CODE "fragment of stderr" -- args...
# Runs BIN args, checks the exit code, that stderr is one line, and that it holds the fragment.
expect() {
    code=$1
    frag=$2
    shift 3
    "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -ne "$code" ]; then
        echo "FAIL: roofline $*: exit $rc, expected $code; stderr: $(cat "$TMP/err")"
        FAILS=$((FAILS + 1))
    elif [ -n "$frag" ] && ! grep -qF -- "$frag" "$TMP/err"; then
        echo "FAIL: roofline $*: stderr lacks '$frag': $(cat "$TMP/err")"
        FAILS=$((FAILS + 1))
    elif [ "$code" -ne 0 ] && [ "$lines" -ne 1 ]; then
        echo "FAIL: roofline $*: expected one line on stderr, got $lines:"
        cat "$TMP/err"
        FAILS=$((FAILS + 1))
    else
        PASSES=$((PASSES + 1))
    fi
}

# bad NAME CONTENT-PRINTF-FORMAT "fragment": writes $TMP/NAME with printf and expects exit 2 with
# one line on stderr naming the file and holding the fragment.
bad() {
    name=$1
    printf "$2" >"$TMP/$name"
    expect 2 "$3" -- analyze --peak-flops 1T --peak-bw 100G "$TMP/$name"
    if ! grep -qF "$name" "$TMP/err"; then
        echo "FAIL: message for $name does not name the file: $(cat "$TMP/err")"
        FAILS=$((FAILS + 1))
    fi
}

# need CMD...: exit 77 (ctest reports the test as skipped, never passed) when a command the test
# cannot do without is missing; scripts/install-deps installs them all.
need() {
    for c in "$@"; do
        if ! command -v "$c" >/dev/null 2>&1; then
            echo "SKIPPED: $c is not installed (scripts/install-deps installs it)"
            exit 77
        fi
    done
}

finish() {
    echo "$PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
