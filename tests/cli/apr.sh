#!/bin/sh
# apr.sh BIN SRC — APR files (aprender / realizar .apr) through `roofline profile` and `roofline
# llm`: the four fixtures of tests/data/apr give the README's figures (172,416 params, 385,024
# decode matmul FLOPs at a 128-position cache) and the same as their GGUF twin (written here with
# tests/llm/make_gguf.py's llama()); --granular lists every block; bad files exit 2 with one line
# naming the file.
. "$(dirname "$0")/lib.sh"
A=$SRC/tests/data/apr
HW="--hw a100-sxm4-80gb"
for f in dev_f32 dev_q8_legacy_ids dev_realizar_ggml_q dev_apr1_f32; do
    expect 0 "" -- profile $HW "$A/$f.apr"
    grep -q "172416 params" "$TMP/out" || { echo "FAIL: profile $f: no '172416 params'"; FAILS=$((FAILS + 1)); }
    expect 0 "" -- llm $HW --json "$A/$f.apr"
    cp "$TMP/out" "$TMP/$f.json"
done

# the GGUF twin of the fixtures' model (F32), sparse
python3 - "$SRC" "$TMP/twin.gguf" <<'PY' || { echo "FAIL: cannot write the GGUF twin"; FAILS=$((FAILS + 1)); }
import sys
sys.path.insert(0, sys.argv[1] + "/tests/llm")
from make_gguf import llama, gguf_bytes
kv, t = llama("dev twin", 128, 256, 96, 1, 2, 1, 0)
head, total = gguf_bytes(kv, t, data=False)
with open(sys.argv[2], "wb") as f:
    f.write(head)
    f.truncate(total)
PY
expect 0 "" -- llm $HW --json "$TMP/twin.gguf"
cp "$TMP/out" "$TMP/twin.json"
python3 - "$TMP" <<'PY' || FAILS=$((FAILS + 1))
import json, sys
d = sys.argv[1]
twin = json.load(open(d + "/twin.json"))
want = {"dev_f32": 689664, "dev_q8_legacy_ids": 247324, "dev_realizar_ggml_q": 110592,
        "dev_apr1_f32": 689664}
ok = True
for f, wb in want.items():
    j = json.load(open("%s/%s.json" % (d, f)))
    for k, v in (("params", 172416), ("weight_bytes", wb)):
        if j[k] != v:
            print("FAIL: %s %s %r, expected %r" % (f, k, j[k], v)); ok = False
    if j["decode"]["matmul_flops"] != 385024 or j["params"] != twin["params"]:
        print("FAIL: %s decode FLOPs %r / params vs the GGUF twin" % (f, j["decode"]["matmul_flops"])); ok = False
    for ph in ("prefill", "decode"):
        if j[ph]["matmul_flops"] != twin[ph]["matmul_flops"]:
            print("FAIL: %s %s FLOPs differ from the GGUF twin" % (f, ph)); ok = False
if json.load(open(d + "/dev_f32.json"))["weight_bytes"] != twin["weight_bytes"]:
    print("FAIL: dev_f32 weight bytes differ from the GGUF twin"); ok = False
sys.exit(0 if ok else 1)
PY
PASSES=$((PASSES + 1))

# --granular: blk.0 listed on its own, no repeated blk.* block
expect 0 "" -- profile $HW --granular "$A/dev_f32.apr"
if ! grep -q "blk\.0\.attn_q" "$TMP/out" || grep -q "blk\.\*" "$TMP/out"; then
    echo "FAIL: profile --granular"; FAILS=$((FAILS + 1))
fi
expect 0 "" -- llm $HW --granular "$A/dev_realizar_ggml_q.apr"
grep -q "blk\.0\." "$TMP/out" || { echo "FAIL: llm --granular"; FAILS=$((FAILS + 1)); }

# bad files: exit 2, one line naming the file
for cmd in profile llm; do
    expect 2 "aprender_tsp_att48-aco.apr: aprender-tsp" -- $cmd $HW "$A/aprender_tsp_att48-aco.apr"
    printf 'APRN\001\000\002\000%024d' 0 >"$TMP/classic.apr"
    expect 2 "classic.apr: APRN classical model (LogisticRegression)" -- $cmd $HW "$TMP/classic.apr"
    head -c 1500 "$A/dev_f32.apr" >"$TMP/cut.apr"
    expect 2 "cut.apr: APR" -- $cmd $HW "$TMP/cut.apr"
    head -c 40 "$A/dev_q8_legacy_ids.apr" >"$TMP/cut40.apr"
    expect 2 "cut40.apr: APR v2 truncated" -- $cmd $HW "$TMP/cut40.apr"
    python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[41] ^= 1
open(sys.argv[2], 'wb').write(b)" "$A/dev_f32.apr" "$TMP/crc.apr"
    expect 2 "crc.apr: APR v2 header CRC32" -- $cmd $HW "$TMP/crc.apr"
    python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[-1] ^= 1
open(sys.argv[2], 'wb').write(b)" "$A/dev_f32.apr" "$TMP/footer.apr"
    expect 2 "footer.apr: APR footer CRC32" -- $cmd $HW "$TMP/footer.apr"
    printf 'APR\000\002\000\000\000\000\050\265\057\375' >"$TMP/zstd.apr"
    expect 2 "zstd.apr: APR" -- $cmd $HW "$TMP/zstd.apr"
    printf 'APR1\377\377\377\377' >"$TMP/apr1.apr"
    expect 2 "apr1.apr: APR1" -- $cmd $HW "$TMP/apr1.apr"
done
finish
