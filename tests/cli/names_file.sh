#!/bin/sh
# names_file.sh — every bad-input message names the file (issue 27 item 6): bad files of every
# reader the program has (operations lists, machine files, saved results, ONNX, GGUF, SafeTensors
# with its config.json, APR) and option values that only the file can refute (--input, --dim
# against the model) each give exit 2 and one line on stderr holding the file's name.
. "$(dirname "$0")/lib.sh"
D=$SRC/tests/data
H="--hw a100-sxm4-80gb"
printf 'name,flops,bytes\na,1,2\n' >"$TMP/ok.csv"

# file NAME PRINTF-CONTENT -- ARGS (the file's path is $TMP/NAME; ARGS name it through @)
file() {
    name=$1
    printf "$2" >"$TMP/$name"
    shift 3
    args=""
    for x in "$@"; do [ "$x" = @ ] && x="$TMP/$name"; args="$args $x"; done
    # shellcheck disable=SC2086
    expect 2 "$name" -- $args
}

# operations lists (tests/cli/bad_input.sh has the full set)
file ops_text.csv 'name,flops,bytes\na,x,2\n' -- analyze $H @
file ops_trunc.json '[{"name": "a", "flops": 1' -- analyze $H @
file ops_kind.json '{"ops": 5}' -- analyze $H @
# machine files
file m_syntax.json '{"name": "x", "ceilings": [}' -- analyze --hw @ "$TMP/ok.csv"
file m_noname.json '{}' -- analyze --hw @ "$TMP/ok.csv"
file m_ceil.json '{"name": "x", "ceilings": [{"name": "peak", "kind": "compute", "value": -1}]}' -- analyze --hw @ "$TMP/ok.csv"
file m_show.json '[1, 2]' -- hw show @
file m_whatif.json '{"name": 1}' -- analyze $H --what-if-hw @ "$TMP/ok.csv"
# saved results (plot)
file r_trunc.json '{"schema": 1, "kind": "analysis"' -- plot -o "$TMP/o.svg" @
file r_csv.json 'name,flops\n' -- plot -o "$TMP/o.svg" @
file r_rows.json '{"schema": 1, "kind": "analysis", "rows": 5}' -- plot -o "$TMP/o.svg" @
# models
file m_garbage.onnx 'garbage' -- profile $H @
file m_empty.onnx '' -- profile $H @
file m_trunc.gguf 'GGUF\003\000\000\000\377\377' -- profile $H @
file m_trunc2.gguf 'GGUF\003\000\000\000\001\000\000\000\000\000\000\000' -- llm $H @
file m_hdr.safetensors '\010\000\000\000\000\000\000\000{"a":1}' -- profile $H @
file m_json.safetensors '\007\000\000\000\000\000\000\000{"a":1}' -- profile $H @
file m_garbage.apr 'APRN\002\000' -- profile $H @
# config.json beside a checkpoint
mkdir -p "$TMP/ckpt"
cp "$D/safetensors/gpt2_tiny/model.safetensors" "$TMP/ckpt/"
printf '{"n_embd": "x"' >"$TMP/ckpt/config.json"
expect 2 config.json -- profile $H "$TMP/ckpt"
expect 2 config.json -- llm $H "$TMP/ckpt"
# option values the model refutes
expect 2 einsum.onnx -- profile $H --input nosuch=1x3 "$D/onnx/einsum.onnx"
# files that are not there
expect 2 no-such.onnx -- profile $H "$TMP/no-such.onnx"
expect 2 no-such.gguf -- llm $H "$TMP/no-such.gguf"
expect 2 no-such.json -- plot -o "$TMP/o.svg" "$TMP/no-such.json"
finish
