#!/bin/sh
# Rebuild the model fixtures (tests/data).  Usage (from tests/data):  sh tools/regenerate.sh [OUT]
# OUT defaults to the folder that holds tools/.
# PYTHON   an interpreter with Debian's python3-torch, python3-torchvision, python3-onnx,
#          python3-numpy (default: python3).  The GGUF and SafeTensors writers need only the
#          standard library; torch is used for the reference FLOP counts (skip with --no-torch).
# NPM_DEPS optional: a node_modules folder with @huggingface/gguf, hyllama and
#          @huggingface/hub installed (npm install in any scratch folder); enables the
#          cross-checks recorded under "npm_crosscheck" in the reference JSON.
set -eu
T=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$(dirname "$T")}
PY=${PYTHON:-python3}
NPM=""
if [ -n "${NPM_DEPS:-}" ]; then NPM="--npm-deps $NPM_DEPS"; fi
$PY "$T/make_onnx_fixtures.py" --out "$OUT/onnx" --models resnet18,mobilenet_v2,tiny_cnn,transformer_encoder_small
for p in tinystories15m_f32 tinystories15m_q8_0; do
  $PY "$T/make_gguf_llama.py" --preset "$p" --out "$OUT/gguf" --gzip $NPM
done
$PY "$T/make_gguf_llama.py" --preset tiny_llama_mixed --out "$OUT/gguf" $NPM
$PY "$T/make_safetensors_gpt2.py" --preset gpt2_tiny --out "$OUT/safetensors" $NPM
