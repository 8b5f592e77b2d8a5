#!/bin/sh
# llm-vs-llamacpp.sh — `roofline llm --measure` against llama.cpp itself (issue 28): the same
# Llama-3.2-1B-shaped files (bench/make_llama1b.py: random data, a minimal `llama` vocabulary so
# llama.cpp loads them, untied 128k output head unless TIED=1), the same THREADS, per weight type:
# decode tokens/s (median step) and prefill time of PROMPT tokens, ROUNDS rounds alternating which
# runs first, medians. llama.cpp comes from npm at a pinned version into the git-ignored cache
# bench/.llamacpp/: `@node-llama-cpp/linux-x64` ships prebuilt libllama and one libggml-cpu-<isa>.so
# per x86 level (ggml loads the best for this CPU), and `node-llama-cpp` of the same version
# carries the llama.cpp source bundle those were built from, whose llama.h our driver
# (bench/llamacpp_driver.c) is compiled against. Test files are cached there too.
# Each run goes through bench/cpu_share.py: the share of the CPUs other processes took while it
# ran. A round where either side saw more than MAX_OTHER (0.15) is run again (up to RETRY times)
# and, if still disturbed, kept with a '*'. The 1-minute load is printed per type.
# Fails loudly (exit 1) when anything cannot run.
# Usage: sh bench/llm-vs-llamacpp.sh [BUILD_DIR]
#   env: ROOFLINE=path to the roofline binary (default BUILD_DIR/roofline)
#        TYPES="Q4_K Q6_K Q8_0 F16" THREADS=2 PROMPT=128 GEN=32 ROUNDS=3 TIED=0
#        MAX_OTHER=0.15 RETRY=2 NLC_VERSION=3.22.1
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
rf=${ROOFLINE:-$build/roofline}
types=${TYPES:-Q4_K Q6_K Q8_0 F16}
threads=${THREADS:-2}
prompt=${PROMPT:-128}
gen=${GEN:-32}
rounds=${ROUNDS:-3}
tied=${TIED:-0}
max_other=${MAX_OTHER:-0.15}
retry=${RETRY:-2}
ver=${NLC_VERSION:-3.22.1}
py=${PYTHON:-python3}
cache=$here/bench/.llamacpp
fail() { echo "llm-vs-llamacpp: $*" >&2; exit 1; }
[ -x "$rf" ] || fail "no roofline binary at $rf (build first, or set ROOFLINE=)"
command -v npm >/dev/null || fail "npm missing"
command -v git >/dev/null || fail "git missing (to unpack the llama.cpp source bundle)"
command -v cc >/dev/null || fail "no C compiler"

# --- llama.cpp from npm, pinned -----------------------------------------------------------------
lc=$cache/nlc-$ver
bins=$lc/bins/linux-x64
if [ ! -f "$lc/.done" ]; then
    rm -rf "$lc"
    mkdir -p "$lc/pkg"
    echo "fetching node-llama-cpp $ver and @node-llama-cpp/linux-x64 $ver from npm..." >&2
    (cd "$lc/pkg" && npm pack "@node-llama-cpp/linux-x64@$ver" "node-llama-cpp@$ver" --silent >/dev/null) ||
        fail "npm pack of node-llama-cpp $ver failed"
    tar xzf "$lc/pkg/node-llama-cpp-linux-x64-$ver.tgz" -C "$lc" --strip-components=1 package/bins ||
        fail "no prebuilt binaries in @node-llama-cpp/linux-x64 $ver"
    tar xzf "$lc/pkg/node-llama-cpp-$ver.tgz" -C "$lc" --strip-components=1 \
        package/llama/gitRelease.bundle package/llama/binariesGithubRelease.json ||
        fail "no llama.cpp source bundle in node-llama-cpp $ver"
    git clone -q --bare "$lc/llama/gitRelease.bundle" "$lc/src.git" || fail "cannot read the source bundle"
    mkdir -p "$lc/hdr"
    git --git-dir="$lc/src.git" archive HEAD include ggml/include | tar x -C "$lc/hdr" ||
        fail "no llama.h in the source bundle"
    rm -rf "$lc/pkg" "$lc/llama/gitRelease.bundle"
    touch "$lc/.done"
fi
libllama=$(cd "$bins" && ls libllama.*so 2>/dev/null | grep -v common | head -1)
libggml=$(cd "$bins" && ls libggml.*so 2>/dev/null | head -1)
[ -n "$libllama" ] && [ -n "$libggml" ] || fail "no libllama/libggml in $bins"
lcrel=$(sed -n 's/.*"release": *"\([^"]*\)".*/\1/p' "$lc/llama/binariesGithubRelease.json")
drv=$lc/llamacpp_driver # its rpath relative to itself ($ORIGIN): the cache may be shared by checkouts
if [ ! -x "$drv" ] || [ "$here/bench/llamacpp_driver.c" -nt "$drv" ]; then
    cc -O2 -I"$lc/hdr/include" -I"$lc/hdr/ggml/include" "$here/bench/llamacpp_driver.c" \
        -L"$bins" -l":$libllama" -l":$libggml" -l:libggml-base.so -Wl,-rpath,"\$ORIGIN/${bins#"$lc"/}" -o "$drv" ||
        fail "cannot build bench/llamacpp_driver.c against llama.cpp $lcrel"
fi

# --- test files ---------------------------------------------------------------------------------
mkdir -p "$cache/models"
model() { # TYPE -> path of the cached file, made when missing or older than the generator
    f=$cache/models/llama1b-$1$([ "$tied" = 1 ] && echo -tied || echo -untied).gguf
    if [ ! -s "$f" ] || [ "$here/bench/make_llama1b.py" -nt "$f" ]; then
        avail=$(df -Pk "$cache/models" | awk 'NR == 2 { print $4 }')
        [ "$avail" -gt 3500000 ] || fail "needs 3.5 GB free in $cache/models (has ${avail} KiB)"
        "$py" "$here/bench/make_llama1b.py" "$f.tmp" "$1" $([ "$tied" = 1 ] || echo --untied) ||
            fail "cannot write the $1 test file"
        mv "$f.tmp" "$f"
    fi
    echo "$f"
}

# --- runs ---------------------------------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llm-vs-llamacpp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else if (NR) print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
run_lc() { # FILE -> "decode_tps prefill_s other_share" or failure
    "$py" "$here/bench/cpu_share.py" "$tmp/lc.out" "$drv" "$1" "$bins" "$threads" "$prompt" "$gen" 3 \
        >"$tmp/lc.share" 2>"$tmp/lc.err" || { cat "$tmp/lc.err" >&2; return 1; }
    echo "$(field decode_tokens_per_s <"$tmp/lc.out") $(field prefill_s <"$tmp/lc.out") $(field other_share <"$tmp/lc.share")"
}
run_rf() { # FILE -> "decode_tps prefill_s other_share" or failure
    "$py" "$here/bench/cpu_share.py" "$tmp/rf.json" "$rf" llm "$1" --measure --json --threads "$threads" \
        --prompt "$prompt" --context "$prompt" >"$tmp/rf.share" 2>"$tmp/rf.err" || { cat "$tmp/rf.err" >&2; return 1; }
    "$py" -c 'import json, sys
m = json.load(open(sys.argv[1]))["measured"]
print(m["decode_tokens_per_s"], m["time_to_first_token_s"], end=" ")' "$tmp/rf.json" ||
        { echo "no measured rates in the roofline output" >&2; return 1; }
    field other_share <"$tmp/rf.share"
}
disturbed() { awk -v a="$1" -v b="$2" -v m="$max_other" 'BEGIN { exit !(a > m || b > m) }'; }

nproc=$(nproc)
echo "llama.cpp $lcrel (npm node-llama-cpp $ver, prebuilt; ggml picks its CPU variant) against $rf"
echo "Llama-3.2-1B shape, random weights, $([ "$tied" = 1 ] && echo tied || echo untied) output head, vocab 128256;" \
    "$threads threads; prefill $prompt tokens; decode median step of $gen; $rounds rounds, medians"
echo "CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $nproc CPUs"
echo
printf '%-5s | %9s %9s %6s | %9s %9s %6s | %5s %5s | %s\n' type "lc tok/s" "rf tok/s" "rf/lc" \
    "lc pre s" "rf pre s" "rf/lc" "oth%" "oth%" "load (1 min) start-end"
printf '%-5s | %9s %9s %6s | %9s %9s %6s | %5s %5s |\n' "" decode decode "≥1 ok" prefill prefill \
    "≤1 ok" "lc" "rf"
bad=0
for ty in $types; do
    f=$(model "$ty")
    load0=$(cut -d' ' -f1 /proc/loadavg)
    : >"$tmp/a"
    : >"$tmp/b"
    star=
    r=0
    while [ $r -lt "$rounds" ]; do
        r=$((r + 1))
        try=0
        while :; do
            if [ $((r % 2)) -eq 1 ]; then
                a=$(run_lc "$f") || fail "$ty: llama.cpp failed on $f"
                b=$(run_rf "$f") || fail "$ty: roofline failed on $f"
            else
                b=$(run_rf "$f") || fail "$ty: roofline failed on $f"
                a=$(run_lc "$f") || fail "$ty: llama.cpp failed on $f"
            fi
            # shellcheck disable=SC2086
            set -- $a $b
            [ $# -eq 6 ] || fail "$ty: a run printed no figures (llama.cpp: '$a', roofline: '$b')"
            if disturbed "$3" "$6" && [ $try -lt "$retry" ]; then
                try=$((try + 1))
                echo "  $ty round $r: other processes took ${3}/${6} of the CPUs; again" >&2
                continue
            fi
            disturbed "$3" "$6" && star='*'
            break
        done
        echo "  $ty round $r: llama.cpp $1 tok/s, prefill $2 s (others $3); roofline $4 tok/s, prefill $5 s (others $6)" >&2
        echo "$1 $2 $3" >>"$tmp/a"
        echo "$4 $5 $6" >>"$tmp/b"
    done
    col() { awk -v c="$2" '{ print $c }' "$1" | median; }
    ld=$(col "$tmp/a" 1) lp=$(col "$tmp/a" 2) lo=$(col "$tmp/a" 3)
    rd=$(col "$tmp/b" 1) rp=$(col "$tmp/b" 2) ro=$(col "$tmp/b" 3)
    load1=$(cut -d' ' -f1 /proc/loadavg)
    awk -v t="$ty$star" -v ld="$ld" -v lp="$lp" -v lo="$lo" -v rd="$rd" -v rp="$rp" -v ro="$ro" \
        -v l0="$load0" -v l1="$load1" 'BEGIN {
        printf "%-5s | %9.2f %9.2f %6.2f | %9.3f %9.3f %6.2f | %5.0f %5.0f | %s-%s\n",
            t, ld, rd, rd / ld, lp, rp, rp / lp, 100 * lo, 100 * ro, l0, l1 }'
    [ -n "$star" ] && bad=1
done
echo
echo "rf/lc: roofline over llama.cpp (decode tok/s: >= 1 is as fast; prefill s: <= 1 is as fast)."
echo "oth%: median share of the CPUs other processes took during the runs; '*': a round stayed above"
echo "$(awk -v m="$max_other" 'BEGIN { printf "%.0f", 100 * m }')% after $retry retries (figures below the hardware's)."
[ "$bad" = 0 ] || echo "NOT QUIET: some rounds were disturbed; re-run on a quiet machine for the hardware's ratio"
