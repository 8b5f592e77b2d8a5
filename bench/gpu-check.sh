#!/bin/sh
# gpu-check.sh — for a machine with a GPU: list the OpenCL devices, measure each with
# `roofline peaks --device opencl:P.D` (full run, no cache), and print it ceiling by ceiling
# against the datasheet entry of that GPU (`roofline hw show ID --json`): fp64, fp32, fp16 and int8
# compute against the FMA / dot figures, DRAM bandwidth, and the link (h2d, d2h) against the PCIe
# generation given. The datasheet entry is found from the device's name (the database's
# descriptions, word by word), or given: GPU_HW="opencl:0.0=a100-pcie-80gb opencl:1.0=l4".
# Usage: bench/gpu-check.sh [ROOFLINE]   (PCIE=pcie4-x16 names the link's datasheet entry)
# Exit 1 when no device can be measured; a device without a datasheet entry is measured and said.
set -u
BIN=${1:-build/roofline}
PY=/usr/bin/python3
[ -x "$BIN" ] || { echo "gpu-check: no roofline at $BIN (build first, or pass its path)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
if ! "$BIN" hw list --devices --json >"$TMP/devices.json" 2>"$TMP/err"; then
    echo "gpu-check: cannot list OpenCL devices: $(cat "$TMP/err")" >&2
    exit 1
fi
"$BIN" hw list --json >"$TMP/db.json" || exit 1
ids=$($PY -c 'import json,sys; print(" ".join(d["id"] for d in json.load(open(sys.argv[1]))))' "$TMP/devices.json")
measured=0
for id in $ids; do
    echo
    echo "== $id"
    if ! "$BIN" peaks --device "$id" --no-cache --json >"$TMP/m.json" 2>"$TMP/err"; then
        echo "FAIL: $id could not be measured: $(tail -n 1 "$TMP/err")"
        continue
    fi
    measured=$((measured + 1))
    # The datasheet entry: GPU_HW, else the database entry whose description's words all appear in
    # the device's name (the longest such description wins: "A100 PCIe 80GB" over "A100").
    hw=$($PY - "$TMP/devices.json" "$TMP/db.json" "$id" "${GPU_HW:-}" <<'EOF'
import json, re, sys
devs = {d["id"]: d for d in json.load(open(sys.argv[1]))}
db = json.load(open(sys.argv[2]))
dev, given = devs[sys.argv[3]], dict(x.split("=", 1) for x in sys.argv[4].split() if "=" in x)
if sys.argv[3] in given:
    print(given[sys.argv[3]]); sys.exit()
words = lambda s: set(w for w in re.split(r"[^a-z0-9]+", s.lower()) if w)
name = words(dev["name"] + " " + dev["vendor"] + " " + dev["platform"])
best = None
for e in db:
    if e["kind"] != "gpu":
        continue
    need = words(re.sub(r"\(.*?\)|,.*", "", e["description"])) - {"nvidia", "amd", "apple", "geforce", "tesla", "instinct"}
    if not any(re.fullmatch(r"\d+gb", w) for w in name):  # "RTX 4090" names no memory size
        need = set(w for w in need if not re.fullmatch(r"\d+gb", w))
    if need and need <= name and (best is None or len(need) > best[0]):
        best = (len(need), e["id"])
print(best[1] if best else "")
EOF
)
    if [ -z "$hw" ]; then
        echo "no datasheet entry matches $(grep -o '"name": "[^"]*"' "$TMP/m.json" | head -n 1); GPU_HW=\"$id=ID\" names one ('roofline hw list')"
        "$BIN" hw show "$TMP/m.json"
        continue
    fi
    "$BIN" hw show "$hw" --json >"$TMP/ds.json" || { echo "FAIL: hw show $hw"; continue; }
    "$BIN" hw show "${PCIE:-pcie4-x16}" --json >"$TMP/link.json" 2>/dev/null || echo '{}' >"$TMP/link.json"
    $PY - "$TMP/m.json" "$TMP/ds.json" "$TMP/link.json" "$hw" <<'EOF'
import json, sys
m = {c["name"]: c for c in json.load(open(sys.argv[1]))["ceilings"]}
ds = {c["name"]: c["value"] for c in json.load(open(sys.argv[2]))["ceilings"]}
link = json.load(open(sys.argv[3])).get("bytes_per_s")
rows = [("fp64", "fp64.fma.opencl", "fp64"), ("fp32", "fp32.fma.opencl", "fp32"),
        ("fp16", "fp16.fma.opencl", "fp16"), ("int8 dot", "int8.dot.opencl", "int8"),
        ("sgemm", "fp32.gemm.clblast", "fp32"), ("DRAM", "DRAM", "DRAM"),
        ("local", "local", None), ("h2d", "h2d", "link"), ("d2h", "d2h", "link")]
print("%-9s %-20s %17s %17s %6s  %s" % ("ceiling", "measured as", "measured", "datasheet", "ratio", sys.argv[4]))
for label, mine, theirs in rows:
    if mine not in m:
        continue
    v = m[mine]["value"]
    ref = link if theirs == "link" else ds.get(theirs) if theirs else None
    unit = "B/s" if m[mine]["kind"] != "compute" else "FLOP/s"
    print("%-9s %-20s %10.4g %-6s %10s %-6s %6s" % (label, mine, v, unit, "%.4g" % ref if ref else "-",
          unit if ref else "", "%.2f" % (v / ref) if ref else "-"))
print("(datasheet fp16 is the vector rate when the entry has one; tensor-core roofs are not reached from OpenCL C)")
EOF
done
echo
[ "$measured" -gt 0 ] || { echo "gpu-check: no device could be measured" >&2; exit 1; }
echo "gpu-check: $measured device(s) measured"
