#!/bin/sh
# run.sh BIN CASE.args — runs `BIN $(cat CASE.args)` from tests/golden/data with a fixed
# environment (C locale, 80 columns, no colour) and compares stdout, stderr and the exit code with
# CASE.exact. RF_UPDATE_GOLDEN=1 rewrites CASE.exact instead (zstd's tests/cli-tests idea).
set -u
bin=$1
args_file=$2
exact=${args_file%.args}.exact
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out" "$out.err"' EXIT
cd "$here/data" || exit 1
# shellcheck disable=SC2046
env -i PATH="$PATH" LC_ALL=C COLUMNS=80 NO_COLOR=1 HOME=/nonexistent \
    sh -c "\"$bin\" $(cat "$args_file")" >"$out" 2>"$out.err"
rc=$?
{
    cat "$out"
    echo "--- stderr"
    cat "$out.err"
    echo "--- exit $rc"
} >"$out.all"
if [ "${RF_UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$out.all" "$exact"
    echo "updated $exact"
    rm -f "$out.all"
    exit 0
fi
if ! diff -u "$exact" "$out.all"; then
    echo "golden mismatch: $args_file (RF_UPDATE_GOLDEN=1 ctest -R golden to accept)"
    rm -f "$out.all"
    exit 1
fi
rm -f "$out.all"
