#!/bin/sh
# glance.sh BIN SRC — issue 29's CLI items: "did you mean" for options, commands and --hw machine
# names; `help CMD` prints that command's help and `help nosuch` exits 2; one meaning per short
# flag across commands; the generated bash completion; SI times for long totals.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/golden/data
expect 2 "did you mean 'profile'" -- profle "$D/tiny_cnn.onnx"
expect 2 "did you mean '--measure'" -- llm --mesure "$D/tiny_llama_q.gguf"
expect 2 "did you mean '--hw measured'" -- analyze --hw measurd "$D/ops.csv"
expect 2 "did you mean '--hw a100-sxm4-80gb'" -- analyze --hw a100-sxm4-80g "$D/ops.csv"
expect 2 "did you mean '--hw h100-sxm5'" -- analyze --hw h100-sxm5-80gb "$D/ops.csv"
expect 2 "unknown option '--zzzzzz' (see" -- analyze --zzzzzz "$D/ops.csv"
expect 2 "unknown command 'nosuch'" -- help nosuch
expect 0 "" -- help profile
grep -q "^usage: roofline profile" "$TMP/out" || { echo "FAIL: help profile: $(head -1 "$TMP/out")"; FAILS=$((FAILS + 1)); }
expect 0 "" -- help llm
grep -q "^usage: roofline llm" "$TMP/out" || { echo "FAIL: help llm: $(head -1 "$TMP/out")"; FAILS=$((FAILS + 1)); }
# one meaning per short flag: every command's --help lists "-X, --name"; no X with two names
for c in analyze hw demo peaks plot profile llm run ops; do
    "$BIN" "$c" --help | sed -n 's/^  -\([A-Za-z]\), --\([a-z-]*\).*/\1 \2/p'
done | sort -u >"$TMP/shorts"
dup=$(cut -d' ' -f1 "$TMP/shorts" | uniq -d | tr '\n' ' ')
[ -z "$dup" ] || { echo "FAIL: short flags with two meanings: $dup: $(grep -E "^(${dup% }) " "$TMP/shorts" | tr '\n' ' ')"; FAILS=$((FAILS + 1)); }
[ -s "$TMP/shorts" ] || { echo "FAIL: no short flag found in any --help"; FAILS=$((FAILS + 1)); }
# completion: generated from the option tables, valid bash, completes commands, options, machines
expect 0 "" -- completion bash
cp "$TMP/out" "$TMP/comp.bash"
expect 2 "give the shell" -- completion fish
if command -v bash >/dev/null 2>&1; then
    got=$(bash -c '. "$1"; COMP_WORDS=(roofline prof); COMP_CWORD=1; _roofline; echo "${COMPREPLY[*]}";
        COMP_WORDS=(roofline llm --mea); COMP_CWORD=2; _roofline; echo "${COMPREPLY[*]}";
        COMP_WORDS=(roofline analyze --hw meas); COMP_CWORD=3; _roofline; echo "${COMPREPLY[*]}"' _ "$TMP/comp.bash")
    want=$(printf 'profile\n--measure --measured-tps --measured-ttft\nmeasured')
    [ "$got" = "$want" ] || { echo "FAIL: bash completion gave: $got"; FAILS=$((FAILS + 1)); }
fi
# zsh: a native #compdef function; sourced it registers itself, called it completes the same
expect 0 "" -- completion zsh
cp "$TMP/out" "$TMP/_roofline"
head -1 "$TMP/_roofline" | grep -q '^#compdef roofline$' || { echo "FAIL: zsh script lacks #compdef"; FAILS=$((FAILS + 1)); }
if command -v zsh >/dev/null 2>&1; then
    got=$(zsh -fc 'compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }; _files() { print FILES; }
        compdef() { print COMPDEF $*; }; source "$1"
        words=(roofline prof); CURRENT=2; _roofline | grep "^prof"
        words=(roofline llm --mea); CURRENT=3; _roofline | grep "^--mea"
        words=(roofline analyze --hw meas); CURRENT=4; _roofline | grep "^meas"' _ "$TMP/_roofline" | tr '\n' ' ')
    want="COMPDEF _roofline roofline profile --measure --measured-tps --measured-ttft measured "
    [ "$got" = "$want" ] || { echo "FAIL: zsh completion gave: $got"; FAILS=$((FAILS + 1)); }
else
    echo "note: zsh not installed: the zsh script's behaviour is not checked"
fi
# installed where bash-completion and zsh look (make install / cmake --install)
STAGE=$(dirname "$(dirname "$BIN")")
for f in share/bash-completion/completions/roofline share/zsh/site-functions/_roofline; do
    [ -s "$STAGE/$f" ] && PASSES=$((PASSES + 1)) || { echo "FAIL: not installed: $f"; FAILS=$((FAILS + 1)); }
done
cmp -s "$STAGE/share/bash-completion/completions/roofline" "$TMP/comp.bash" && PASSES=$((PASSES + 1)) ||
    { echo "FAIL: the installed bash completion differs from 'completion bash'"; FAILS=$((FAILS + 1)); }
# inputs are checked before this machine is measured: with an empty probe cache, a truncated
# model, a bad --input, a bad row fail at once (one line, nothing measured, no cache written)
export XDG_CACHE_HOME="$TMP/cache"
head -c 300 "$D/tiny_cnn.onnx" >"$TMP/trunc.onnx"
printf 'name,flops,bytes\na,1,2\nb,1\n' >"$TMP/badrow.csv"
expect 2 "trunc.onnx" -- profile --hw measured "$TMP/trunc.onnx"
expect 2 "trunc.onnx" -- profile "$TMP/trunc.onnx"
expect 2 "no input 'nosuch'" -- profile --hw measured --input nosuch=1x3x32x32 "$D/tiny_cnn.onnx"
expect 2 "trunc.onnx" -- llm --hw measured "$TMP/trunc.onnx"
expect 2 "row 2" -- analyze --hw measured "$TMP/badrow.csv"
[ ! -e "$TMP/cache/roofline" ] && PASSES=$((PASSES + 1)) ||
    { echo "FAIL: the machine was measured before the input was checked: $(ls "$TMP/cache/roofline")"; FAILS=$((FAILS + 1)); }
unset XDG_CACHE_HOME
# tables with measurements fit 120 columns by default, --wide shows every column
printf 'name,flops,bytes,time\n/model/encoder/layer.0/attention/self/query/MatMul,1e9,1e7,1e-3\nb,1e6,1e7,1e-4\n' >"$TMP/meas.csv"
expect 0 "" -- analyze --hw a100-sxm4-80gb "$TMP/meas.csv" --advice 0
w=$(awk '{ if (length > m) m = length } END { print m }' "$TMP/out")
[ "$w" -le 120 ] && ! grep -q 'x est  *$' "$TMP/out" && grep -q -- '--wide adds x est' "$TMP/out" &&
    PASSES=$((PASSES + 1)) || { echo "FAIL: measured table $w columns wide:"; cat "$TMP/out"; FAILS=$((FAILS + 1)); }
expect 0 "" -- analyze --hw a100-sxm4-80gb "$TMP/meas.csv" --advice 0 --wide
grep -q 'eff\..*x est$' "$TMP/out" && PASSES=$((PASSES + 1)) ||
    { echo "FAIL: --wide lacks columns: $(grep '^#' "$TMP/out")"; FAILS=$((FAILS + 1)); }
# a big input on the ASCII chart: the slowest rows as letters, the others summarised by the
# density's legend line (how many, their share of the time)
awk 'BEGIN { print "name,flops,bytes"; for (i = 0; i < 6000; i++) printf "op%d,%d,%d\n", i, 1e6 * (1 + i % 97), 1e5 * (1 + i % 89) }' >"$TMP/big.csv"
expect 0 "" -- analyze --hw xeon-8480plus "$TMP/big.csv" --chart --advice 0 --no-summary
grep -Eq '^\.:% [0-9]+ more rows \([0-9.]+% of the time\) as a density: 1 to [0-9]+ rows a cell$' "$TMP/out" &&
    PASSES=$((PASSES + 1)) || { echo "FAIL: no density line under the ASCII chart of 6000 rows"; FAILS=$((FAILS + 1)); }
# names cut in the middle never print alike: four layers that differ only in the middle
printf 'name,flops,bytes\n' >"$TMP/names.csv"
for k in 1 2 3 4; do printf '/model/layer1/layer%s.0/conv1/Conv,1e9,1e7\n' "$k" >>"$TMP/names.csv"; done
expect 0 "" -- analyze --hw a100-sxm4-80gb "$TMP/names.csv" --advice 0 --no-summary
n=$(grep -c 'Conv ' "$TMP/out")
u=$(grep 'Conv ' "$TMP/out" | awk '{print $2}' | sort -u | wc -l)
[ "$n" -eq 4 ] && [ "$u" -eq 4 ] || { echo "FAIL: cut names print alike:"; cat "$TMP/out"; FAILS=$((FAILS + 1)); }
# provenance said once: a machine named "measured" that was measured is "[measured]"
printf '{"schema":1,"name":"measured","description":"this machine","kind":"cpu","provenance":"measured","source":"test","default_compute":"fp32","default_bandwidth":"DRAM","ceilings":[{"name":"fp32","kind":"compute","value":1e11,"unit":"FLOP/s"},{"name":"DRAM","kind":"bandwidth","value":1e10,"unit":"B/s"}]}\n' >"$TMP/mm.json"
expect 0 "" -- analyze --hw "$TMP/mm.json" "$D/ops.csv" --advice 0
grep -q '^machine  this machine \[measured\]$' "$TMP/out" || { echo "FAIL: provenance: $(grep '^machine' "$TMP/out")"; FAILS=$((FAILS + 1)); }
finish
