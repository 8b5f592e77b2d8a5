#!/bin/sh
# venv_install.sh — the Python package installed as a user does: a fresh venv of Debian's python3,
# `pip install ./python` with no index at all (the package builds with its own stdlib backend,
# nothing downloaded), then used from outside the tree against the staged `make install` output,
# found through roofline.pc's libdir (PKG_CONFIG_PATH), with no ROOFLINE_LIB: the installed
# module is the one imported, its ctypes structs match the library's layout, and a call works.
# Usage: venv_install.sh ROOFLINE_BIN SOURCE_DIR PYTHON3
BIN=$1 SRC=$2 PY=${3:-python3}
STAGE=$(dirname "$(dirname "$BIN")")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! "$PY" -m venv "$TMP/v" >"$TMP/log" 2>&1; then
    echo "SKIPPED: $PY -m venv failed (Debian: apt-get install python3-venv): $(tail -1 "$TMP/log")"
    exit 77
fi
unset ROOFLINE_LIB PYTHONPATH
"$TMP/v/bin/pip" install --no-index --no-cache-dir "$SRC/python" >"$TMP/log" 2>&1 ||
    { echo "FAIL: pip install --no-index ./python:"; tail -5 "$TMP/log"; exit 1; }
pc=$(find "$STAGE" -name roofline.pc | head -n 1)
[ -n "$pc" ] || { echo "FAIL: no staged roofline.pc"; exit 1; }
cd "$TMP" || exit 1
PKG_CONFIG_PATH=$(dirname "$pc") "$TMP/v/bin/python" - "$TMP/v" <<'PY'
import os, sys
import roofline
import roofline._lib as L
venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(roofline.__file__).startswith(venv), roofline.__file__
assert L.layout_mismatches(L.lib) == [], L.layout_mismatches(L.lib)
r = roofline.analyze([{"name": "gemm", "flops": 2e9, "bytes": 1e8}],
                     machine=roofline.machine("a100-sxm4-80gb"))
assert r.rows[0].name == "gemm", r.rows
print("venv install ok:", L.lib.path)
PY
