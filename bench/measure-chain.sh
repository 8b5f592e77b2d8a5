#!/bin/sh
# measure-chain.sh [NODES] [BUILD_DIR] — `profile --measure --repeat 1` (one pass) on a chain of N
# tiny nodes (default 200000 alternating Neg/Relu on 1x64, made with Debian's python3-onnx), against
# an anchor measured in the same run: `profile` of the same file without --measure (reading,
# shapes, costs, report). Issue 25's goal: 200k nodes measured in under 10 s; planning and
# summarising are O(n log n), so the time over the anchor is the pass itself plus the plan.
# Medians of 3 runs; prints both, the ratio and the peak RSS.
set -eu
nodes=${1:-200000}
here=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$here/build}
bin=$build/roofline
[ -x "$bin" ] || { echo "measure-chain: no $bin (run make)" >&2; exit 1; }
py=${PYTHON3:-/usr/bin/python3}
"$py" -c 'import onnx' 2>/dev/null || { echo "measure-chain: needs python3-onnx (apt-get install python3-onnx)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" - "$nodes" "$tmp/chain.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, save
n, out = int(sys.argv[1]), sys.argv[2]
nodes, prev = [], "x"
for i in range(n):
    y = "y" if i == n - 1 else "t%d" % i
    nodes.append(helper.make_node("Relu" if i % 2 else "Neg", [prev], [y], name="n%d" % i))
    prev = y
vi = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 64])
g = helper.make_graph(nodes, "chain", [vi("x")], [vi("y")])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), out)
PY
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timeit() { s=$(date +%s.%N); "$@" >/dev/null 2>&1 || { echo "measure-chain: failed: $*" >&2; exit 1; }; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'; }
m="--peak-flops 1T --peak-bw 100G"
for i in 1 2 3; do timeit "$bin" profile $m "$tmp/chain.onnx"; done | median >"$tmp/a"
for i in 1 2 3; do timeit "$bin" profile $m --measure --repeat 1 "$tmp/chain.onnx"; done | median >"$tmp/b"
rss=$(/usr/bin/time -f %M "$bin" profile $m --measure --repeat 1 "$tmp/chain.onnx" 2>&1 >/dev/null | tail -n 1)
a=$(cat "$tmp/a"); b=$(cat "$tmp/b")
awk -v a="$a" -v b="$b" 'BEGIN { if (a <= 0 || b <= 0) { print "measure-chain: a time of 0: nothing measured"; exit 1 } }'
printf 'chain of %s nodes, %s\n' "$nodes" "$(uptime | sed 's/.*load/load/')"
printf 'profile (anchor, no --measure):      %.2f s\n' "$a"
printf 'profile --measure --repeat 1:        %.2f s  (%.1fx the anchor; goal < 10 s)  peak RSS %d MiB\n' "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')" "$((rss / 1024))"
