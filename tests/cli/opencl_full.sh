#!/bin/sh
# opencl_full.sh — a full `roofline peaks --device opencl` run (every vector width, the sweep past
# the device's cache, CLBlast SGEMM): the GEMM ceiling is there, below the FMA roof it runs on, and
# every width was tried. Skipped (77) when built without OpenCL or without CLBlast (said first).
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$TMP/cache"
# Under ASan: the OpenCL runtime's own allocations kept for the process's life are not ours.
export LSAN_OPTIONS="suppressions=$SRC/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
if ! "$BIN" hw list --devices >/dev/null 2>"$TMP/err"; then
    grep -q 'built without OpenCL' "$TMP/err" && { echo "SKIPPED: built without OpenCL"; exit 77; }
    echo "FAIL: hw list --devices: $(cat "$TMP/err")"
    exit 1
fi
t0=$(date +%s)
expect 0 '' -- peaks --device opencl --no-cache --json
t1=$(date +%s)
echo "full device run: $((t1 - t0)) s (cold kernel caches); load: $(cut -d' ' -f1-3 /proc/loadavg)"
if grep -q 'built without CLBlast' "$TMP/err"; then
    echo "SKIPPED: built without CLBlast (libclblast-dev)"
    exit 77
fi
/usr/bin/python3 - "$TMP/out" <<'PY' && PASSES=$((PASSES + 1)) || FAILS=$((FAILS + 1))
import json, sys
m = json.load(open(sys.argv[1]))
c = {x["name"]: x for x in m["ceilings"]}
g, f = c["fp32.gemm.clblast"]["value"], c["fp32.fma.opencl"]["value"]
assert 0 < g < 1.1 * f, (g, f)
assert "width 1:" in c["fp32.fma.opencl"]["note"] and "16:" in c["fp32.fma.opencl"]["note"], c["fp32.fma.opencl"]["note"]
assert c["DRAM"]["value"] < c["L1"]["value"], (c["DRAM"]["value"], c["L1"]["value"])
print("gemm %.3g FLOP/s under fma %.3g; levels %s" % (g, f, [n for n in c if n[0] in "LD"]))
PY
finish
