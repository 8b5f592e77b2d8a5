#!/bin/sh
# symbols.sh — the installed libroofline.so exports the public API and nothing else. The public
# list comes from the installed headers (scripts/public-api: every function they declare, each of
# which must carry RF_API), never from a hand-kept list; every dynamic symbol the library defines
# must be on it (no rf__ internals, no protobuf-c onnx__ code, no stray helper) and every name on
# it must be exported (a definition that misses its header's RF_API is hidden). A planted library
# shows the check fails. Also: the version macros agree with the library.
. "$(dirname "$0")/lib.sh"
need nm cc
STAGE=$(dirname "$(dirname "$BIN")")
so=$(find "$STAGE" -name 'libroofline.so' | head -n 1)
[ -n "$so" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: no libroofline.so development link"; FAILS=$((FAILS + 1)); finish; exit 1; }
ok() { PASSES=$((PASSES + 1)); }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# every public declaration carries RF_API, and the list is not empty
if out=$(sh "$SRC/scripts/public-api" --check "$STAGE"); then ok; else fail "$out"; fi
sh "$SRC/scripts/public-api" "$STAGE" | awk '{ print $1 }' >"$TMP/declared"
n=$(wc -l <"$TMP/declared")
[ "$n" -gt 100 ] && ok || fail "the headers declare only $n functions (scripts/public-api)"

# check_exports SO: the exports of SO against $TMP/declared; prints what is wrong, exits 1 if any.
check_exports() {
    nm -D --defined-only "$1" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u >"$TMP/exported"
    rc=0
    extra=$(comm -23 "$TMP/exported" "$TMP/declared")
    if [ -n "$extra" ]; then
        echo "exported but not declared in include/roofline: $(echo $extra | cut -c 1-600)"
        rc=1
    fi
    lib=$(grep -E '^(onnx__|protobuf_c|rf__)' "$TMP/exported")
    if [ -n "$lib" ]; then
        echo "internal code exported: $(echo $lib | cut -c 1-300)"
        rc=1
    fi
    missing=$(comm -13 "$TMP/exported" "$TMP/declared")
    if [ -n "$missing" ]; then
        echo "declared RF_API but not exported: $(echo $missing | cut -c 1-600)"
        rc=1
    fi
    return $rc
}
if out=$(check_exports "$so"); then ok; else fail "$so: $out"; fi
echo "$(wc -l <"$TMP/exported") symbols exported, $n functions declared"

# The Python package (ctypes over the shared library) needs public functions only: each it looks
# up (its signature table, getattr(lib, ...), lib.rf_...) is exported.
grep -ohE '\("rf_[a-z0-9_]+",|getattr\(lib, "rf_[a-z0-9_]+"|lib\.rf_[a-z0-9_]+' \
    "$SRC"/python/roofline/*.py | sed -E 's/.*(rf_[a-z0-9_]+).*/\1/' | sort -u >"$TMP/python"
py=$(comm -23 "$TMP/python" "$TMP/exported")
if [ ! -s "$TMP/python" ]; then
    fail "no rf_ function found in python/roofline/*.py"
elif [ -n "$py" ]; then
    fail "the Python package calls functions libroofline.so does not export: $(echo $py)"
else
    ok
fi

# The check can fail: a library that exports an internal, a protobuf-c name and misses one public
# function is refused with each named.
head -n 1 "$TMP/declared" >"$TMP/first"
tail -n +2 "$TMP/declared" | while read -r f; do echo "void $f(void) {}"; done >"$TMP/planted.c"
printf 'void rf__planted_internal(void) {}\nvoid onnx__planted__pack(void) {}\n' >>"$TMP/planted.c"
if cc -shared -fPIC -w -o "$TMP/libplanted.so" "$TMP/planted.c"; then
    if out=$(check_exports "$TMP/libplanted.so"); then
        fail "a planted library with internal exports passes the check"
    else
        for want in rf__planted_internal onnx__planted__pack "not exported: $(cat "$TMP/first")"; do
            echo "$out" | grep -qF -- "$want" && ok || fail "the planted library's report lacks $want: $out"
        done
    fi
else
    fail "cannot build the planted library"
fi

# the version macros against the library's own string
cat >"$TMP/v.c" <<'C'
#include <roofline/roofline.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", RF_VERSION_MAJOR, RF_VERSION_MINOR, RF_VERSION_PATCH);
    return strcmp(want, rf_version()) != 0;
}
C
if cc -std=c11 ${RF_TEST_CFLAGS:-} -I"$STAGE/include" "$TMP/v.c" -o "$TMP/v" -L"$(dirname "$so")" -lroofline &&
    LD_LIBRARY_PATH=$(dirname "$so") "$TMP/v"; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: RF_VERSION_* macros differ from rf_version()"
    FAILS=$((FAILS + 1))
fi
finish
