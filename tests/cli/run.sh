#!/bin/sh
# run.sh — `roofline run`: the marker example (built here against the staged install, as a user
# would) runs under it with its output passing through, each region evaluated and measured; a
# failing program's status and output pass through untouched; usage errors are one line.
. "$(dirname "$0")/lib.sh"
STAGE=$(dirname "$(dirname "$BIN")")
pc=$(find "$STAGE" -name roofline.pc | head -n 1)
if [ -z "$pc" ] || ! command -v cc >/dev/null; then
    echo "SKIP: no staged roofline.pc or no C compiler"
    exit 77
fi
# -lroofline links the installed shared library: the programs find it there
LD_LIBRARY_PATH="$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=libdir roofline)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
PKG_CONFIG_PATH=$(dirname "$pc") cc -std=c11 -O2 ${RF_TEST_CFLAGS:-} "$SRC/examples/markers.c" \
    -o "$TMP/markers" \
    $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-prefix --cflags --libs --static roofline) ||
    { echo "FAIL: the marker example does not build against the install"; exit 1; }
MACHINE="--peak-flops 50G --peak-bw 10G"

check() { # check "what" command...: counts a pass when the command succeeds
    what=$1
    shift
    if "$@"; then PASSES=$((PASSES + 1)); else echo "FAIL: $what"; FAILS=$((FAILS + 1)); fi
}

# The example under run: its own line first, the counters line, both regions, the measured table.
"$BIN" run $MACHINE -- "$TMP/markers" 64 100000 >"$TMP/out" 2>"$TMP/err"
check "run exits 0 (stderr: $(cat "$TMP/err"))" [ $? -eq 0 ]
check "program output passes through first" [ "$(head -n 1 "$TMP/out")" = "markers: c[0] = 51.7844, x[0] = 7" ]
check "counters line" grep -q "^counters  .*rf_region_add counts" "$TMP/out"
# 5 repetitions: gemm 5*2*64^3 FLOPs, 5*3*64^2*8 bytes (AI 5.33, compute-bound at ridge 5);
# triad 5*2*1e5 FLOPs, 5*3*1e5*8 bytes (AI 1/12, memory-bound)
check "gemm region evaluated" \
    grep -qE "gemm_blocked +region +2.62M +492k +5.33 +50G +compute" "$TMP/out"
check "triad region evaluated" grep -qE "stream_triad +region +1M +12M +0.0833 +833M +memory" "$TMP/out"
check "measured table with 5 calls per region" grep -qE "^gemm_blocked +5 " "$TMP/out"
check "stderr empty" [ ! -s "$TMP/err" ]

# --json: the saved result with its regions section; --output keeps the file; plot reads it.
"$BIN" run $MACHINE --json -o "$TMP/kept.json" -- "$TMP/markers" 32 1000 >"$TMP/json" 2>"$TMP/err"
check "run --json exits 0" [ $? -eq 0 ]
check "json has the regions section" grep -q '"regions": \[' "$TMP/json"
check "json region calls" grep -q '"name": "stream_triad", "calls": 5' "$TMP/json"
check "--output kept the program's file" grep -q '"regions"' "$TMP/kept.json"
"$BIN" plot "$TMP/kept.json" -o "$TMP/kept.svg" >/dev/null 2>"$TMP/err"
check "roofline plot reads the regions file ($(cat "$TMP/err"))" grep -q "<svg" "$TMP/kept.svg"

# Markers compiled out: the program runs, writes nothing, and run says so in one line.
PKG_CONFIG_PATH=$(dirname "$pc") cc -std=c11 -O2 ${RF_TEST_CFLAGS:-} -x c - -o "$TMP/plain" \
    $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-prefix --cflags --libs --static roofline) <<'C'
#include <roofline/roofline.h>
int main(void) { RF_REGION_BEGIN("x"); RF_REGION_END("x"); return 0; }
C
expect 2 "wrote no regions" -- run $MACHINE -- "$TMP/plain"

# -o FILE is replaced only once the program has written regions: the old file stays otherwise.
echo old >"$TMP/keep.json"
expect 2 "wrote no regions" -- run $MACHINE -o "$TMP/keep.json" -- "$TMP/plain"
check "-o FILE kept when the program wrote nothing" [ "$(cat "$TMP/keep.json")" = old ]

build() { # build NAME: a marker program from stdin
    PKG_CONFIG_PATH=$(dirname "$pc") cc -std=c11 -O2 -DROOFLINE_MARKERS ${RF_TEST_CFLAGS:-} \
        -x c - -o "$TMP/$1" \
        $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-prefix --cflags --libs --static roofline)
}

# A program that forks: parent and child each write their own record and both are merged; the
# region recorded before the fork is the parent's alone (the child starts from zero).
build fork <<'C' || { echo "FAIL: the forking program does not build"; exit 1; }
#define _POSIX_C_SOURCE 200809L
#include <roofline/roofline.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    RF_REGION_BEGIN("before_fork"); RF_REGION_ADD("before_fork", 1e6, 1e6); RF_REGION_END("before_fork");
    pid_t pid = fork();
    if (pid < 0) return 9;
    const char *me = pid == 0 ? "in_child" : "in_parent";
    for (int i = 0; i < (pid == 0 ? 3 : 2); i++) {
        RF_REGION_BEGIN(me); RF_REGION_ADD(me, 1e6, 1e6); RF_REGION_END(me);
    }
    if (pid == 0) return 0; /* exit(): the child's record is written too */
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 8;
}
C
"$BIN" run $MACHINE -o "$TMP/fork.json" -- "$TMP/fork" >"$TMP/out" 2>"$TMP/err"
check "forking program: run exits 0 ($(cat "$TMP/err"))" [ $? -eq 0 ]
check "the child's regions are reported" grep -qE "^in_child +3 " "$TMP/out"
check "the parent's regions are reported" grep -qE "^in_parent +2 " "$TMP/out"
check "the region before the fork counted once" grep -qE "^before_fork +1 " "$TMP/out"
check "-o FILE holds both processes' regions" grep -q '"name": "in_child", "calls": 3' "$TMP/fork.json"

# A symlink planted at the very name the record is written to (regions-PID.json in the
# directory given) is not followed: its target is left alone and the regions still arrive.
build plant <<'C' || { echo "FAIL: the planting program does not build"; exit 1; }
#define _POSIX_C_SOURCE 200809L
#include <roofline/roofline.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char path[4096];
    const char *dir = getenv("ROOFLINE_OUTPUT_DIR");
    if (argc < 2 || !dir) return 7;
    snprintf(path, sizeof path, "%s/regions-%ld.json", dir, (long)getpid());
    if (symlink(argv[1], path) != 0) return 6;
    RF_REGION_BEGIN("planted"); RF_REGION_ADD("planted", 1e6, 1e6); RF_REGION_END("planted");
    return 0;
}
C
echo precious >"$TMP/victim"
"$BIN" run $MACHINE -- "$TMP/plant" "$TMP/victim" >"$TMP/out" 2>"$TMP/err"
check "planted symlink: run exits 0 ($(cat "$TMP/err"))" [ $? -eq 0 ]
check "the symlink's target is not written" [ "$(cat "$TMP/victim")" = precious ]
check "the regions arrive beside the planted name" grep -qE "^planted +1 " "$TMP/out"

# A region name holding an escape sequence never reaches the terminal raw.
build esc <<'C' || { echo "FAIL: the escape program does not build"; exit 1; }
#include <roofline/roofline.h>
int main(void)
{
    RF_REGION_BEGIN("a\033[2Jb"); RF_REGION_ADD("a\033[2Jb", 1e6, 1e6); RF_REGION_END("a\033[2Jb");
    return 0;
}
C
"$BIN" run $MACHINE -- "$TMP/esc" >"$TMP/out" 2>"$TMP/err"
check "escape name: run exits 0 ($(cat "$TMP/err"))" [ $? -eq 0 ]
check "no ESC byte printed" [ -z "$(tr -dc '\033' <"$TMP/out")" ]
check "the name shown escaped in the measured section" grep -qE '^a\?\[2Jb +1 ' "$TMP/out"

# A failing program: its stdout and stderr untouched, its exit status ours, one line of ours.
"$BIN" run $MACHINE -- sh -c 'echo to-stdout; echo to-stderr >&2; exit 3' >"$TMP/out" 2>"$TMP/err"
rc=$?
check "failing program's status (got $rc)" [ $rc -eq 3 ]
check "its stdout untouched" [ "$(cat "$TMP/out")" = "to-stdout" ]
check "its stderr first, then one line of ours" [ "$(head -n 1 "$TMP/err")" = "to-stderr" ]
check "our line names the status" grep -q "exited with status 3" "$TMP/err"

expect 2 "cannot run 'no-such-program-xyz'" -- run $MACHINE -- no-such-program-xyz
expect 2 "missing '-- PROGRAM" -- run $MACHINE
expect 2 "put the program after '--'" -- run $MACHINE "$TMP/markers"
expect 2 "--plot needs a file name" -- run $MACHINE --plot - -- true
finish
