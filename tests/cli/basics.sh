#!/bin/sh
# basics.sh — --help and --version on every command, exit codes of success, the demo, the machine
# options, a larger streamed input (counts, not time: benchmarks live in bench/).
. "$(dirname "$0")/lib.sh"

expect 0 '' -- --help
expect 0 '' -- --version
grep -q '^roofline [0-9]' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: --version"; FAILS=$((FAILS + 1)); }
for c in analyze hw demo; do
    expect 0 '' -- $c --help
    grep -q "usage: roofline $c" "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: $c --help"; FAILS=$((FAILS + 1)); }
done
expect 0 '' --
grep -q 'ResNet-18.*48 operations' "$TMP/out" && grep -q '/conv1/Conv' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: demo output"; FAILS=$((FAILS + 1)); }
expect 0 '' -- hw list
n=$(grep -c . "$TMP/out")
[ "$n" -ge 16 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: hw list has $n lines"; FAILS=$((FAILS + 1)); }

# Every database entry can be shown, exported as a machine file, and used through that file.
"$BIN" hw list --json | grep -o '"id": "[^"]*"' | cut -d'"' -f4 >"$TMP/ids"
while read -r id; do
    expect 0 '' -- hw show "$id" --json
    cp "$TMP/out" "$TMP/$id.json"
    expect 0 '' -- hw show "$TMP/$id.json" --json
    cmp -s "$TMP/out" "$TMP/$id.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: $id round trip"; FAILS=$((FAILS + 1)); }
    expect 0 '' -- demo --hw "$TMP/$id.json" --no-chart
done <"$TMP/ids"

# --peak-flops / --peak-bw with SI suffixes agree with base units.
printf 'name,flops,bytes\na,1000,200\n' >"$TMP/one.csv"
"$BIN" analyze --peak-flops 19.5T --peak-bw 2039G --csv "$TMP/one.csv" >"$TMP/a"
"$BIN" analyze --peak-flops 19500000000000 --peak-bw 2039000000000 --csv "$TMP/one.csv" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" && PASSES=$((PASSES + 1)) || { echo "FAIL: SI suffixes"; FAILS=$((FAILS + 1)); }
grep -q '^a,1000,200,5,10195000000000,memory,' "$TMP/a" && PASSES=$((PASSES + 1)) || { echo "FAIL: csv row: $(cat "$TMP/a")"; FAILS=$((FAILS + 1)); }

# 200k streamed rows with --top: totals cover all rows, only 5 printed.
awk 'BEGIN { print "name,flops,bytes"; for (i = 1; i <= 200000; i++) printf "op%d,%d,%d\n", i, i, 1000 }' >"$TMP/big.csv"
expect 0 '' -- analyze --peak-flops 1T --peak-bw 100G --top 5 --csv "$TMP/big.csv"
[ "$(wc -l <"$TMP/out")" -eq 6 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: top 5"; FAILS=$((FAILS + 1)); }
sed -n 2p "$TMP/out" | grep -q '^op200000,' && PASSES=$((PASSES + 1)) || { echo "FAIL: slowest first: $(sed -n 2p "$TMP/out")"; FAILS=$((FAILS + 1)); }
expect 0 '' -- analyze --peak-flops 1T --peak-bw 100G --top 5 --json "$TMP/big.csv"
grep -q '"count": 200000' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: json totals"; FAILS=$((FAILS + 1)); }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["totals"]["flops"] == 200000*200001/2, d["totals"]' "$TMP/out" \
    && PASSES=$((PASSES + 1)) || { echo "FAIL: json parse/total"; FAILS=$((FAILS + 1)); }
# Every row undefined: no advice to rank (the sanitizer build runs this with halt_on_error; the
# ranking once sorted a NULL array), still exit 0 with a warning per row.
printf 'name,flops,bytes\na,0,0\nb,0,0\n' >"$TMP/undef.csv"
"$BIN" analyze "$TMP/undef.csv" --peak-flops 1T --peak-bw 100G --advice 5 >"$TMP/out" 2>"$TMP/err"
[ $? -eq 0 ] && grep -q 'undefined' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: all-undefined analyze: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
finish
