#!/bin/sh
# install.sh — the staged install has the program, the library, the headers and a pkg-config file
# that lets a small program build against the installed library. Without cc or pkg-config the
# files are still checked, then the test reports itself skipped (77), never passed.
. "$(dirname "$0")/lib.sh"
STAGE=$(dirname "$(dirname "$BIN")")
for f in bin/roofline include/roofline/roofline.h; do
    [ -f "$STAGE/$f" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: missing $f"; FAILS=$((FAILS + 1)); }
done
pc=$(find "$STAGE" -name roofline.pc | head -n 1)
[ -n "$pc" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: no roofline.pc"; FAILS=$((FAILS + 1)); }
if ! command -v cc >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
    [ "$FAILS" -eq 0 ] || { finish; exit 1; }
    need cc pkg-config
fi
cat >"$TMP/use.c" <<'C'
#include <roofline/roofline.h>
#include <stdio.h>
int main(void)
{
    rf_ctx *ctx;
    rf_roof roof = {100e9, 50e9};
    double ai;
    if (rf_ctx_new(&ctx, NULL) != RF_OK || rf_ridge_ai(ctx, &roof, &ai) != RF_OK) return 1;
    printf("%g\n", ai);
    rf_ctx_free(ctx);
    return 0;
}
C
PKG_CONFIG_PATH=$(dirname "$pc") cc -std=c11 ${RF_TEST_CFLAGS:-} "$TMP/use.c" -o "$TMP/use" \
    $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-prefix --cflags --libs --static roofline) \
    && [ "$("$TMP/use")" = 2 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: build against pkg-config"; FAILS=$((FAILS + 1)); }
finish
