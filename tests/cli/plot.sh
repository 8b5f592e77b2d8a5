#!/bin/sh
# plot.sh BIN SRC — `roofline plot` and `--plot`: exit codes and one-line messages for bad use and
# bad input; the files written exist and start as they should.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/golden/data
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
expect 2 "missing the result file" -- plot -o "$TMP/x.svg"
expect 2 "missing -o" -- plot "$D/result.json"
expect 2 ".svg or .html" -- plot "$D/result.json" -o "$TMP/x.png"
expect 2 "unknown format" -- plot "$D/result.json" --format pdf -o -
expect 2 "not a roofline result" -- plot "$D/machine.json" -o -
expect 2 "nonexistent.json" -- plot "$TMP/nonexistent.json" -o -
expect 2 "cannot write the chart" -- plot "$D/result.json" -o "$TMP/no/such/dir/x.svg"
expect 2 ".svg or .html" -- analyze --hw "$D/machine.json" "$D/ops.csv" --plot "$TMP/x.pdf"
expect 0 "" -- plot "$D/result.json" "$D/result_l2.json" -o "$TMP/two.html"
head -c 15 "$TMP/two.html" | grep -q "<!DOCTYPE html>" || { echo "FAIL: two.html"; FAILS=$((FAILS + 1)); }
expect 0 "" -- analyze --hw "$D/machine.json" "$D/ops.csv" --plot "$TMP/a.svg"
head -c 5 "$TMP/a.svg" | grep -q "<?xml" || { echo "FAIL: a.svg is not SVG"; FAILS=$((FAILS + 1)); }
# no URL but the SVG namespace: the page never fetches anything
sed 's#xmlns="http://www.w3.org/2000/svg"##' "$TMP/two.html" | grep -q "://" &&
    { echo "FAIL: the page names a URL"; FAILS=$((FAILS + 1)); }
# a chart never replaces its own input, and writing over a chart leaves no temporary file behind
cp "$D/result.json" "$TMP/r.json"
expect 2 "is the input" -- plot "$TMP/r.json" --format svg -o "$TMP/r.json"
cmp -s "$D/result.json" "$TMP/r.json" || { echo "FAIL: plot changed its input"; FAILS=$((FAILS + 1)); }
expect 0 "" -- plot "$D/result.json" -o "$TMP/a.svg"
ls "$TMP" | grep -q 'tmp-' && { echo "FAIL: a temporary file was left"; FAILS=$((FAILS + 1)); }
# a write to a full standard output is one line and exit 1, whatever wrote (issue 11, item 5)
if [ -w /dev/full ]; then
    for args in "--help" "--version" "help --man" "hw list" "plot $D/result.json -o -"; do
        # shellcheck disable=SC2086
        "$BIN" $args >/dev/full 2>"$TMP/err"
        rc=$?
        if [ "$rc" -ne 1 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
            echo "FAIL: roofline $args >/dev/full: exit $rc, stderr: $(cat "$TMP/err")"
            FAILS=$((FAILS + 1))
        fi
    done
fi
# llm --plot with measured rates: a third series whose solid points are the measured passes
expect 0 "" -- llm "$D/tiny_llama_q.gguf" --hw a100-sxm4-80gb --measured-tps 2000 \
    --measured-ttft 0.01 --plot "$TMP/llm.svg"
n=$(grep -c 'class="pt [a-z]* measured"[^>]*data-name="\(prefill pass\|decode step\)' "$TMP/llm.svg")
[ "$n" -eq 2 ] || { echo "FAIL: llm --plot draws $n measured rate points, want 2"; FAILS=$((FAILS + 1)); }
# a big input is drawn, not refused: the 1000 longest rows as markers, the rest as a density whose
# cells hold every other row; the page's table lists the markers' rows and says how many more
awk 'BEGIN { print "name,flops,bytes"; s = 7;
    for (i = 0; i < 20000; i++) { s = (s * 1103515245 + 12345) % 2147483648;
        printf "op%d,%d,%d\n", i, 1e5 + s % 1000000007, 1e3 + (s * 7) % 99991 } }' >"$TMP/big.csv"
expect 0 "" -- analyze --hw "$D/machine.json" "$TMP/big.csv" --advice 0 --plot "$TMP/big.svg"
expect 0 "" -- analyze --hw "$D/machine.json" "$TMP/big.csv" --advice 0 --plot "$TMP/big.html"
"$PY" - "$TMP/big.svg" "$TMP/big.html" <<'PYEOF' || FAILS=$((FAILS + 1))
import re, sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
marks = [e for e in root.iter() if "pt" in (e.get("class") or "").split()]
dens = [e for e in root.iter(NS + "g") if "density" in (e.get("class") or "").split()]
bad = []
if len(marks) != 1000: bad.append(f"{len(marks)} markers, want 1000")
if len(dens) != 1 or dens[0].get("data-rows") != "19000": bad.append("no density of 19000 rows")
elif sum(int(r.get("data-n")) for r in dens[0].iter(NS + "rect")) != 19000:
    bad.append("density cells do not hold 19000 rows")

page = open(sys.argv[2], encoding="utf-8").read()
if page.count("<tr data-i=") != 1000: bad.append("the page's table is not the 1000 markers")
if "19000 more rows" not in page: bad.append("the page does not say 19000 more rows")
for b in bad: print("FAIL: big input chart: " + b)
sys.exit(1 if bad else 0)
PYEOF
finish
