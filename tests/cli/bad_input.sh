#!/bin/sh
# bad_input.sh — every kind of bad operations list gets one line on stderr naming the file, the row
# or key and the problem, and exit code 2 (issue: foundation, "Tests that must exist").
. "$(dirname "$0")/lib.sh"

H='name,flops,bytes\n'
bad empty.csv '' 'no operations'
bad header_only.csv "$H" 'no operations'
bad unknown_col.csv 'name,flops,bytes,color\na,1,2,red\n' "color"
bad missing_col.csv 'name,flops\na,1\n' "bytes"
bad missing_field.csv "${H}a,1\n" 'row 1'
bad extra_field.csv "${H}a,1,2,3\n" 'row 1'
bad non_numeric.csv "${H}a,abc,2\n" 'flops'
bad nan.csv "${H}a,nan,2\n" 'flops'
bad inf.csv "${H}a,1,inf\n" 'bytes'
bad hex.csv "${H}a,0x10,2\n" 'flops'
bad huge.csv "${H}a,1e400,2\n" 'flops'
bad negative.csv "${H}a,1,-2\n" 'bytes'
bad row3.csv "${H}a,1,2\nb,3,4\nc,x,5\n" 'row 3'
bad unterminated.csv "${H}\"a,1,2\n" 'quote'
bad nul.csv "${H}a\0b,1,2\n" 'NUL'
bad utf8.csv "${H}a\377\376,1,2\n" 'UTF-8'
bad trailing.json '[{"name":"a","flops":1,"bytes":2}] x' 'trailing'
bad dupkey.json '[{"name":"a","flops":1,"flops":3,"bytes":2}]' 'flops'
bad nested.json "$(head -c 100000 /dev/zero | tr '\0' '[')" ''
bad string_num.json '[{"name":"a","flops":"1","bytes":2}]' 'flops'
bad empty_array.json '[]' 'no operations'
bad nan.json '[{"name":"a","flops":NaN,"bytes":2}]' ''
bad neg.json '[{"name":"a","flops":1,"bytes":-2}]' 'bytes'
bad unknown_key.json '[{"name":"a","flops":1,"bytes":2,"x":1}]' "'x'"

# Measured times (optional column time / key time_s): NaN, negative, zero, overflow, text.
T='name,flops,bytes,time\n'
bad time_nan.csv "${T}a,1,2,0.1\nb,1,2,nan\n" "row 2, field 'time'"
bad time_negative.csv "${T}a,1,2,-0.5\n" "row 1, field 'time'"
bad time_zero.csv "${T}a,1,2,0\n" "row 1, field 'time'"
bad time_huge.csv "${T}a,1,2,1e400\n" "row 1, field 'time'"
bad time_inf.csv "${T}a,1,2,inf\n" "row 1, field 'time'"
bad time_text.csv "${T}a,1,2,fast\n" "row 1, field 'time'"
bad time_neg.json '[{"name":"a","flops":1,"bytes":2,"time_s":-1}]' "time_s"
bad time_zero.json '[{"name":"a","flops":1,"bytes":2,"time_s":0}]' "time_s"
bad time_huge.json '[{"name":"a","flops":1,"bytes":2,"time_s":1e999}]' "ops[0]"
bad time_str.json '[{"name":"a","flops":1,"bytes":2,"time_s":"1ms"}]' "time_s"

# Files that are not there, folders, usage errors.
expect 2 'no-such.csv' -- analyze --peak-flops 1T --peak-bw 100G no-such.csv
expect 2 "$TMP" -- analyze --peak-flops 1T --peak-bw 100G "$TMP"
printf 'name,flops,bytes\na,1,2\n' >"$TMP/ok.csv"
expect 0 'no --hw given' -- analyze "$TMP/ok.csv"
for w in -1 nan 1e999; do expect 2 '--wall' -- analyze --peak-flops 1T --peak-bw 1G --wall "$w" "$TMP/ok.csv"; done
expect 2 'unknown machine' -- analyze --hw no-such-gpu "$TMP/ok.csv"
expect 2 '--peak-flops' -- analyze --peak-flops abc --peak-bw 1G "$TMP/ok.csv"
expect 2 '--peak-bw' -- analyze --peak-flops 1T --peak-bw -5G "$TMP/ok.csv"
expect 2 '--peak-flops' -- analyze --peak-flops 0 --peak-bw 5G "$TMP/ok.csv"
expect 2 'fp99' -- analyze --hw a100-sxm4-80gb --compute fp99 "$TMP/ok.csv"
expect 2 'unknown option' -- analyze --bogus "$TMP/ok.csv"
expect 2 'sort' -- analyze --peak-flops 1T --peak-bw 1G --sort speed "$TMP/ok.csv"
expect 2 'top' -- analyze --peak-flops 1T --peak-bw 1G --top -3 "$TMP/ok.csv"
expect 2 'format' -- analyze --peak-flops 1T --peak-bw 1G --format xml "$TMP/ok.csv"
expect 2 'missing' -- analyze
expect 2 'unknown command' -- frobnicate
expect 2 'unknown action' -- hw frob
expect 2 'not-a-machine' -- hw show not-a-machine
printf '{"name":"m","peak_flops":-1,"peak_bandwidth":1}' >"$TMP/neg_machine.json"
expect 2 'neg_machine.json' -- analyze --hw "$TMP/neg_machine.json" "$TMP/ok.csv"
printf '{"name":"m","peak_flops":1e12' >"$TMP/cut_machine.json"
expect 2 'cut_machine.json' -- analyze --hw "$TMP/cut_machine.json" "$TMP/ok.csv"

# Standard input works; a closed stdout is an internal failure, not a crash.
printf 'name,flops,bytes\na,1,2\n' | "$BIN" analyze --peak-flops 1T --peak-bw 1G - >/dev/null
[ $? -eq 0 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: stdin"; FAILS=$((FAILS + 1)); }
"$BIN" analyze --peak-flops 1T --peak-bw 1G "$TMP/ok.csv" >/dev/full 2>/dev/null
[ $? -eq 1 ] && PASSES=$((PASSES + 1)) || { echo "FAIL: /dev/full should exit 1"; FAILS=$((FAILS + 1)); }
finish
