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
pcdir=$(dirname "$pc")
# The README's marker example exactly as written (plain flags: the shared library), then run.
(cd "$TMP" && PKG_CONFIG_PATH=$pcdir cc -O2 -DROOFLINE_MARKERS ${RF_TEST_CFLAGS:-} \
    "$SRC/examples/markers.c" $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs roofline) \
    -o my) && PASSES=$((PASSES + 1)) || { echo "FAIL: README's cc ... pkg-config --cflags --libs roofline"; FAILS=$((FAILS + 1)); }
libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir roofline)
if [ -x "$TMP/my" ] && ldd "$TMP/my" | grep -q 'libroofline\.so' &&
    ROOFLINE_OUTPUT="$TMP/regions.json" LD_LIBRARY_PATH=$libdir "$TMP/my" >/dev/null 2>&1 &&
    grep -q 'triad' "$TMP/regions.json"; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: the example does not link the shared library or run: $(ldd "$TMP/my" 2>&1 | grep roofline)"
    FAILS=$((FAILS + 1))
fi
# --static: the archive by its path (both libroofline.a and .so are installed) and what it needs
PKG_CONFIG_PATH=$pcdir cc -O2 -DROOFLINE_MARKERS ${RF_TEST_CFLAGS:-} "$SRC/examples/markers.c" \
    -o "$TMP/my_static" $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags roofline) "$libdir/libroofline.a" \
    $(PKG_CONFIG_PATH=$pcdir pkg-config --libs --static roofline | sed 's/-lroofline//') \
    && ! ldd "$TMP/my_static" | grep -q libroofline && PASSES=$((PASSES + 1)) \
    || { echo "FAIL: static link with pkg-config --static"; FAILS=$((FAILS + 1)); }
# relocatable: the same files moved elsewhere give that prefix
cp -r "$STAGE" "$TMP/moved"
mpc=$(find "$TMP/moved" -name roofline.pc | head -n 1)
inc=$(PKG_CONFIG_PATH=$(dirname "$mpc") pkg-config --variable=includedir roofline)
[ "$(cd "$inc" && pwd -P)" = "$(cd "$TMP/moved/include" && pwd -P)" ] && PASSES=$((PASSES + 1)) \
    || { echo "FAIL: roofline.pc is not relocatable: includedir $inc"; FAILS=$((FAILS + 1)); }
finish
