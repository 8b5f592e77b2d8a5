#!/bin/sh
# layers.sh — scripts/check-layers sees calls, not only includes: the library as built passes; an
# object planted in src/core that calls rf_exec_result_free through the public roofline/exec.h
# (which the include check allows) fails it with the call named, and so does one keeping a
# mutable static; with CHECK_EXEC_CYCLES=1 two planted files of src/exec that call each other are
# reported as a cycle.
#   sh layers.sh SOURCE_DIR BINARY_DIR C_COMPILER
set -u
src=$1 bin=$2 cc=$3
command -v nm >/dev/null 2>&1 || { echo "skip: nm not found (binutils)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME COMMAND...: run, report
    name=$1
    shift
    if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fail=1; fi
}

BUILD=$bin sh "$src/scripts/check-layers" >"$tmp/clean" 2>&1
check "the library as built passes" test $? -eq 0
cat "$tmp/clean"

cat >"$tmp/planted.c" <<'C'
#include "roofline/exec.h"
void rf__planted_upward(void);
void rf__planted_upward(void) { rf_exec_result_free(NULL); }
C
"$cc" -c -I "$src/include" -o "$tmp/planted.o" "$tmp/planted.c" || exit 1
BUILD=$bin sh "$src/scripts/check-layers" "core=$tmp/planted.o" >"$tmp/up" 2>&1
check "a planted upward call fails the check" test $? -eq 1
check "the call is named" grep -q \
    "planted.o: calls rf_exec_result_free (src/exec, level [0-9]*) from src/core (level 0)$" "$tmp/up"
cat "$tmp/up"

printf 'int rf__planted_count(void);\nint rf__planted_count(void) { static int n; return ++n; }\n' >"$tmp/state.c"
"$cc" -c -o "$tmp/state.o" "$tmp/state.c" || exit 1
BUILD=$bin sh "$src/scripts/check-layers" "core=$tmp/state.o" >"$tmp/state" 2>&1
check "a planted mutable static fails the check" test $? -eq 1
check "the variable is named" grep -q "^$tmp/state.o: mutable static data n\.[0-9]* (.bss)" "$tmp/state"
cat "$tmp/state"

printf 'void rf__planted_b(void);\nvoid rf__planted_a(void);\nvoid rf__planted_a(void) { rf__planted_b(); }\n' >"$tmp/a.c"
printf 'void rf__planted_a(void);\nvoid rf__planted_b(void);\nvoid rf__planted_b(void) { rf__planted_a(); }\n' >"$tmp/b.c"
"$cc" -c -o "$tmp/a.o" "$tmp/a.c" && "$cc" -c -o "$tmp/b.o" "$tmp/b.c" || exit 1
BUILD=$bin CHECK_EXEC_CYCLES=1 sh "$src/scripts/check-layers" "exec=$tmp/a.o" "exec=$tmp/b.o" \
    >"$tmp/cyc" 2>&1
check "a planted cycle in src/exec fails with CHECK_EXEC_CYCLES=1" test $? -eq 1
check "the cycle is named" grep -q "call cycle between files: $tmp/[ab].o $tmp/[ab].o$" "$tmp/cyc"
check "with its calls" grep -q "$tmp/b.o -> $tmp/a.o (rf__planted_a)" "$tmp/cyc"
exit $fail
