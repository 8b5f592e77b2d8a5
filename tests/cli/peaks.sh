#!/bin/sh
# peaks.sh — `roofline peaks`: --help, usage errors (bad --isa, bad --threads, stray argument), a
# short measuring run whose --json is a machine file `hw show` accepts, the cache in a temporary
# XDG_CACHE_HOME, and `--hw measured` reading it. Counts and formats only: no speed is asserted.
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$TMP/cache"
unset RF_ISA

expect 0 '' -- peaks --help
grep -q 'usage: roofline peaks' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: peaks --help"; FAILS=$((FAILS + 1)); }
expect 2 "'bogus' is not an instruction set" -- peaks --isa bogus
expect 2 '--threads' -- peaks --threads 0
expect 2 "unexpected argument 'x'" -- peaks x

# A measuring run without the cache: a machine file in the full form, provenance measured.
expect 0 '' -- peaks --quick --no-cache --json --threads 1
cp "$TMP/out" "$TMP/m.json"
grep -q '"provenance": "measured"' "$TMP/m.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: provenance"; FAILS=$((FAILS + 1)); }
grep -q '"name": "DRAM"' "$TMP/m.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: no DRAM ceiling"; FAILS=$((FAILS + 1)); }
grep -q '"repetitions": 3' "$TMP/m.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: stats"; FAILS=$((FAILS + 1)); }
[ ! -e "$XDG_CACHE_HOME" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: --no-cache wrote the cache"; FAILS=$((FAILS + 1)); }
expect 0 '' -- hw show "$TMP/m.json"
grep -q 'fp32.fma' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: hw show: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }

# --hw measured: measures once (quick) into the cache, then reads it.
printf 'name,flops,bytes\na,1000,200\n' >"$TMP/one.csv"
expect 0 '' -- analyze --hw measured --csv "$TMP/one.csv"
grep -q 'measuring' "$TMP/err" && PASSES=$((PASSES + 1)) || { echo "FAIL: first --hw measured did not measure: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
ls "$XDG_CACHE_HOME"/roofline/peaks-quick-*.json >/dev/null 2>&1 && PASSES=$((PASSES + 1)) || { echo "FAIL: no cache file"; FAILS=$((FAILS + 1)); }
# A run disturbed by other processes (this suite runs beside others) is cached as provisional,
# saying so on stderr, and then served as it is (no measuring again on every call); a quiet one is
# read back silently.
if grep -q '"provisional": true' "$XDG_CACHE_HOME"/roofline/peaks-quick-*.json; then
    grep -q 'provisional' "$TMP/err" && PASSES=$((PASSES + 1)) || { echo "FAIL: a provisional run said nothing: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
    expect 0 '' -- analyze --hw measured --csv "$TMP/one.csv"
    ! grep -q 'measuring' "$TMP/err" && PASSES=$((PASSES + 1)) || { echo "FAIL: a provisional cache was measured again: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
else
    expect 0 '' -- analyze --hw measured --csv "$TMP/one.csv"
    [ ! -s "$TMP/err" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: second --hw measured: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
fi
expect 0 '' -- peaks --quick
grep -q 'from the cache' "$TMP/err" && PASSES=$((PASSES + 1)) || { echo "FAIL: peaks --quick did not use the cache"; FAILS=$((FAILS + 1)); }
grep -q '^\* DRAM' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: table: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }

# Under two busy loops a fresh measurement cannot lower the cached roof: every ceiling keeps the
# best figure measured here (disturbance only lowers a figure).
vals() { tr '{},' '\n\n\n' <"$1" | awk -F'"' '/"name":/ {n=$4} /"value":/ {v=$0; sub(/.*"value": */, "", v); print n, v+0}' | sort; }
cache=$(ls "$XDG_CACHE_HOME"/roofline/peaks-quick-*.json | head -n 1)
vals "$cache" >"$TMP/before"
sh -c 'while :; do :; done' & b1=$!
sh -c 'while :; do :; done' & b2=$!
"$BIN" peaks --quick --refresh >/dev/null 2>"$TMP/err"
kill $b1 $b2 2>/dev/null
vals "$cache" >"$TMP/after"
lowered=$(join "$TMP/before" "$TMP/after" | awk '$3 < $2 {print $1 ": " $2 " -> " $3}')
[ -s "$TMP/before" ] && [ -z "$lowered" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: a busy run lowered the cached roof: $lowered"; FAILS=$((FAILS + 1)); }
# --plot draws the cached ceilings: one roof per ceiling, no operation markers.
expect 0 '' -- peaks --quick --plot "$TMP/peaks.svg"
grep -q 'data-value' "$TMP/peaks.svg" && PASSES=$((PASSES + 1)) || { echo "FAIL: peaks --plot drew no roof"; FAILS=$((FAILS + 1)); }
expect 2 '.svg or .html' -- peaks --quick --plot "$TMP/peaks.png"
finish
