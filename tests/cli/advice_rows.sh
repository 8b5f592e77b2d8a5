#!/bin/sh
# advice_rows.sh — `analyze` evaluates its advice on every row, whatever --top prints (issue 27
# item 4): the advice's shares, times and layer counts are the same with and without --top, in the
# table and in the JSON; a change touching more rows than RF_ADVICE_LAYERS_MAX lists the slowest
# 1000 and counts them all.
. "$(dirname "$0")/lib.sh"

# 3000 rows of AI >= 1 (matrix-like to the advice): 2000 memory-bound at AI 2 (precision moves
# them) and 1000 slower compute-bound ones (the names a long list keeps).
awk 'BEGIN { print "name,flops,bytes";
    for (i = 1; i <= 3000; i++)
        if (i % 3) printf "mm.%d,%d,%d\n", i, 2000000 + i, 1000000 + i;
        else printf "big.%d,%d,%d\n", i, 900000000 + i, 1000 }' >"$TMP/ops.csv"
M="--peak-flops 1T --peak-bw 100G"
advice_of() { sed -n '/^What would move it/,$p' "$1"; }
for top in "" "--top 1" "--top 20" "--sort name --top 7"; do
    # shellcheck disable=SC2086
    "$BIN" analyze $M $top "$TMP/ops.csv" >"$TMP/t$PASSES.txt" 2>"$TMP/err" || {
        echo "FAIL: analyze $top: exit $?: $(cat "$TMP/err")"
        FAILS=$((FAILS + 1))
    }
    advice_of "$TMP/t$PASSES.txt" >"$TMP/adv.txt"
    if ! grep -q 'saves' "$TMP/adv.txt"; then
        echo "FAIL: analyze $top: no advice with a saving:"
        cat "$TMP/t$PASSES.txt" | tail -20
        FAILS=$((FAILS + 1))
    elif [ -f "$TMP/adv0.txt" ] && ! cmp -s "$TMP/adv0.txt" "$TMP/adv.txt"; then
        echo "FAIL: the advice with '$top' differs from the advice over every row:"
        diff "$TMP/adv0.txt" "$TMP/adv.txt"
        FAILS=$((FAILS + 1))
    else
        [ -f "$TMP/adv0.txt" ] || cp "$TMP/adv.txt" "$TMP/adv0.txt"
        PASSES=$((PASSES + 1))
    fi
done
# the share is of the whole run: every row counted
grep -q 'Layers (3000)' "$TMP/adv0.txt" && PASSES=$((PASSES + 1)) || {
    echo "FAIL: the precision advice does not count the 3000 rows of AI >= 1:"
    cat "$TMP/adv0.txt"
    FAILS=$((FAILS + 1))
}

# JSON: the same "advice" array with and without --top; the 1000 slowest names kept of 3000
# shellcheck disable=SC2086
"$BIN" analyze $M --json "$TMP/ops.csv" 2>/dev/null | sed -n '/"advice":/,$p' >"$TMP/j0"
# shellcheck disable=SC2086
"$BIN" analyze $M --json --top 3 "$TMP/ops.csv" 2>/dev/null | sed -n '/"advice":/,$p' >"$TMP/j1"
if [ ! -s "$TMP/j0" ] || ! cmp -s "$TMP/j0" "$TMP/j1"; then
    echo "FAIL: the JSON advice differs with --top 3 (or is missing)"
    diff "$TMP/j0" "$TMP/j1" | head -5
    FAILS=$((FAILS + 1))
else
    PASSES=$((PASSES + 1))
fi
if grep -q '"layers_total": 3000' "$TMP/j0" &&
    [ "$(head -n 2 "$TMP/j0" | tr ',' '\n' | grep -c '"big\.')" -eq 1000 ] &&
    [ "$(head -n 2 "$TMP/j0" | tr ',' '\n' | grep -c '"mm\.')" -eq 0 ]; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: expected the 1000 slowest of 3000 layer names and \"layers_total\": 3000"
    head -c 600 "$TMP/j0"
    FAILS=$((FAILS + 1))
fi
finish
