#!/bin/sh
# symbols.sh — the installed libroofline.so exports the public API and nothing else: every
# dynamic symbol it defines is a name declared in include/roofline/*.h (no rf__ internals, no
# protobuf-c onnx__ code, no stray helper), and the version macros agree with the library.
. "$(dirname "$0")/lib.sh"
need nm cc
STAGE=$(dirname "$(dirname "$BIN")")
so=$(find "$STAGE" -name 'libroofline.so' | head -n 1)
[ -n "$so" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: no libroofline.so development link"; FAILS=$((FAILS + 1)); finish; exit 1; }
nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$TMP/exported"
n=$(wc -l <"$TMP/exported")
[ "$n" -gt 100 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: only $n exported symbols"; FAILS=$((FAILS + 1)); }
cat "$SRC"/include/roofline/*.h | tr -c 'A-Za-z0-9_' '\n' | grep '^rf_' | sort -u >"$TMP/declared"
bad=$(comm -23 "$TMP/exported" "$TMP/declared")
if [ -z "$bad" ]; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: exported but not public API: $(echo $bad | head -c 600)"
    FAILS=$((FAILS + 1))
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
