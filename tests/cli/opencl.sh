#!/bin/sh
# opencl.sh — `roofline peaks --device opencl` and `hw list --devices` on the OpenCL device this
# machine has (POCL on CI: Debian's pocl-opencl-icd, OpenCL on the host CPU): usage errors, no
# platform (OCL_ICD_VENDORS at an empty folder), a quick run whose figures are compared with the
# CPU's own ceilings measured in the same test, the machine file round trip, --hw with it, the
# cache, and --merge into the CPU's machine file. Skipped (77) only when built without OpenCL
# (then the one-line message is checked first); CI builds with it, so it runs there.
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$TMP/cache"
# Under ASan: the OpenCL runtime's own allocations kept for the process's life are not ours.
export LSAN_OPTIONS="suppressions=$SRC/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
unset RF_ISA

# Usage errors never need a device.
expect 2 "'cuda' is not opencl" -- peaks --device cuda
expect 2 "not with --device" -- peaks --device opencl --threads 1
expect 2 "--merge goes with --device" -- peaks --merge "$TMP/x.json"
expect 2 "--devices goes with 'list'" -- hw show a100-sxm4-80gb --devices

if "$BIN" hw list --devices >"$TMP/out" 2>"$TMP/err"; then :; else
    if grep -q 'built without OpenCL' "$TMP/err"; then
        expect 2 'built without OpenCL' -- peaks --device opencl --quick
        echo "SKIPPED: built without OpenCL (scripts/install-deps installs ocl-icd, pocl, CLBlast)"
        exit 77
    fi
    echo "FAIL: hw list --devices: $(cat "$TMP/err")"
    exit 1
fi
grep -q '^opencl:0\.0 ' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: hw list --devices: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }
expect 0 '' -- hw list --devices --json
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[0]["id"] == "opencl:0.0" and d[0]["compute_units"] > 0, d' "$TMP/out" \
    && PASSES=$((PASSES + 1)) || { echo "FAIL: hw list --devices --json: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }
expect 2 'no such OpenCL device' -- peaks --device opencl:9.9 --quick

# No platform: the ICD loader looks in an empty folder. One line, exit 2, never a crash.
mkdir "$TMP/novendors"
export OCL_ICD_VENDORS="$TMP/novendors"
expect 2 'no OpenCL platform' -- peaks --device opencl --quick
expect 2 'no OpenCL platform' -- hw list --devices
unset OCL_ICD_VENDORS

# The CPU's own ceilings, the device's, the CPU's again, the device's again (the better of two
# runs on each side: this suite runs beside other tests, and disturbance only lowers a figure).
expect 0 '' -- peaks --quick --no-cache --json
cp "$TMP/out" "$TMP/cpu1.json"
t0=$(date +%s)
expect 0 '' -- peaks --device opencl --quick --json
t1=$(date +%s)
cp "$TMP/out" "$TMP/dev.json"
expect 0 '' -- peaks --quick --no-cache --json
cp "$TMP/out" "$TMP/cpu2.json"
# The device measured again: the cache keeps each ceiling's better figure of the two runs, as the
# CPU side keeps the better of its two (and its own retries of a disturbed quick run).
expect 0 '' -- peaks --device opencl --quick --refresh --json
expect 0 '' -- peaks --device opencl --quick --json
cp "$TMP/out" "$TMP/dev.json"
[ $((t1 - t0)) -lt 30 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: peaks --device opencl --quick took $((t1 - t0)) s"; FAILS=$((FAILS + 1)); }
echo "device run: $((t1 - t0)) s; load: $(cut -d' ' -f1-3 /proc/loadavg)"

# Ratios, each bounded by why it must hold (docs/opencl.md, "Checked on POCL"):
# - fp32 FMA: POCL compiles the float16 chains for these very cores (its device is the host CPU,
#   target skylake-avx512 here: 512-bit FMAs on every core), so it can at best equal the CPU's own
#   AVX-512 FMA kernel (1.0). 1.5 leaves room for a CPU figure lowered by other processes on this
#   shared machine even in the better of two runs. Under 0.15 means scalar code (width 1 gives
#   1/16) or FLOPs miscounted by a vector width: a broken probe. (128-bit code, 0.25, cannot be told
#   from noise at a load of 10 on 2 cores, where the better of two runs still fell to 0.30.)
# - DRAM: both stream buffers far past the caches from the same memory; the device's kernels lack
#   the CPU's non-temporal stores and run under POCL's scheduler, so 0.3 to 2.5. A wrong byte count
#   (float4 for float16: 4x, copy counted once: 2x on top) falls outside.
# - fp64 / fp32 on the device: half the lanes per vector, the same pipes: 0.5 on this CPU; 0.25 to
#   1.2 for noise between the two figures.
# A Debug or sanitizer build runs the CPU's kernels unoptimised (-O0): no ratio holds there; the
# other figures are still checked.
ratios=1
case "${RF_BUILD_TYPE:-Release}" in Debug | "") ratios=0 ;; esac
[ -n "${RF_TEST_CFLAGS:-}" ] && ratios=0
[ "$ratios" -eq 1 ] || echo "note: ratios to the CPU not checked: unoptimised ${RF_BUILD_TYPE:-} build (${RF_TEST_CFLAGS:-})"
RATIOS=$ratios /usr/bin/python3 - "$TMP/cpu1.json" "$TMP/cpu2.json" "$TMP/dev.json" <<'EOF' && PASSES=$((PASSES + 1)) || FAILS=$((FAILS + 1))
import os
import json, sys
def ceil(path):
    return {c["name"]: c["value"] for c in json.load(open(path))["ceilings"]}
c1, c2, dev = ceil(sys.argv[1]), ceil(sys.argv[2]), ceil(sys.argv[3])
cpu = {k: max(c1.get(k, 0), c2.get(k, 0)) for k in set(c1) | set(c2)}
cpu_fma = max(v for k, v in cpu.items() if k.startswith("fp32.fma."))
checks = [("fp32.fma.opencl / CPU fp32.fma", dev["fp32.fma.opencl"] / cpu_fma, 0.15, 1.5),
          ("DRAM / CPU DRAM", dev["DRAM"] / cpu["DRAM"], 0.3, 2.5)]
if "fp64.fma.opencl" in dev:
    checks.append(("fp64.fma.opencl / fp32.fma.opencl",
                   dev["fp64.fma.opencl"] / dev["fp32.fma.opencl"], 0.25, 1.2))
bad = 0
if os.environ.get("RATIOS") != "1":
    checks = checks[2:]  # fp64 / fp32 is the device's own: it holds in any build
for what, r, lo, hi in checks:
    ok = lo <= r <= hi
    bad += not ok
    print("%s %s = %.3f (bounds %.2f .. %.2f)" % ("ok  " if ok else "FAIL", what, r, lo, hi))
for k in ("h2d", "d2h", "local", "L1"):
    if not dev.get(k, 0) > 0:
        print("FAIL: no %s ceiling" % k)
        bad += 1
print("device: " + ", ".join("%s %.3g" % kv for kv in sorted(dev.items())))
print("cpu:    " + ", ".join("%s %.3g" % kv for kv in sorted(cpu.items())))
sys.exit(1 if bad else 0)
EOF

# The machine file: provenance measured, read back and written again byte for byte, usable by --hw.
grep -q '"provenance": "measured"' "$TMP/dev.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: provenance"; FAILS=$((FAILS + 1)); }
grep -q '"default_bandwidth": "DRAM"' "$TMP/dev.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: default DRAM"; FAILS=$((FAILS + 1)); }
expect 0 '' -- hw show "$TMP/dev.json" --json
cmp -s "$TMP/out" "$TMP/dev.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: the machine file does not round-trip"; diff "$TMP/dev.json" "$TMP/out" | head; FAILS=$((FAILS + 1)); }
printf 'name,flops,bytes\na,1000000,2000\nb,1000,100000\n' >"$TMP/ops.csv"
expect 0 '' -- analyze --hw "$TMP/dev.json" "$TMP/ops.csv"
grep -q 'fp32.fma.opencl' "$TMP/out" && grep -q 'DRAM' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: analyze --hw dev.json: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }

# The cache: the run above stored it; the next one reads it (and draws its roofs).
ls "$XDG_CACHE_HOME"/roofline/peaks-opencl-quick-*.json >/dev/null 2>&1 && PASSES=$((PASSES + 1)) || { echo "FAIL: no device cache file"; FAILS=$((FAILS + 1)); }
expect 0 '' -- peaks --device opencl --quick --chart --plot "$TMP/dev.svg"
grep -q 'from the cache' "$TMP/err" && PASSES=$((PASSES + 1)) || { echo "FAIL: not from the cache: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
grep -q '^\* fp32.fma.opencl' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: table: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }
grep -q 'data-value' "$TMP/dev.svg" && PASSES=$((PASSES + 1)) || { echo "FAIL: --plot drew no roof"; FAILS=$((FAILS + 1)); }

# --merge: the device's ceilings into the CPU's machine file as ocl0.0.*; twice replaces, never
# duplicates; the CPU's defaults stay; --compute/--memory pick the device's roof.
cp "$TMP/cpu1.json" "$TMP/node.json"
expect 0 '' -- peaks --device opencl --quick --merge "$TMP/node.json"
n1=$(grep -c '"name": "ocl0\.0\.' "$TMP/node.json")
expect 0 '' -- peaks --device opencl --quick --merge "$TMP/node.json"
n2=$(grep -c '"name": "ocl0\.0\.' "$TMP/node.json")
[ "$n1" -ge 6 ] && [ "$n1" -eq "$n2" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: merge: $n1 then $n2 device ceilings"; FAILS=$((FAILS + 1)); }
grep -q '"default_compute": "fp32.fma.' "$TMP/node.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: merge moved the CPU's default"; FAILS=$((FAILS + 1)); }
expect 0 '' -- analyze --hw "$TMP/node.json" --compute ocl0.0.fp32 --memory ocl0.0.DRAM "$TMP/ops.csv"
grep -q 'roof .*ocl0.0.fp32.fma.opencl.*ocl0.0.DRAM' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: analyze with the merged roof: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }
expect 2 "$TMP/missing.json" -- peaks --device opencl --quick --merge "$TMP/missing.json"
finish
