#!/bin/sh
# mpi.sh — `roofline peaks --mpi` under `mpirun -np 2 --oversubscribe` on this machine (loopback
# only, issue 15): the gather of the measuring rank's machine, the ping-pong within the node, the
# allreduce, the table and the --json machine file with its network ceilings, which `hw show` and
# `analyze --hw FILE` (rows with net_bytes) then take. Skipped (77) only where mpirun or an MPI
# build is missing; .ci/run installs Open MPI, so on CI it runs. Counts and names only: no speed.
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME="$TMP/cache" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset RF_ISA
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun (apt-get install openmpi-bin)"; exit 77; }
if "$BIN" peaks --mpi --quick 2>&1 | grep -q 'built without MPI'; then
    echo "SKIP: roofline built without MPI (apt-get install libopenmpi-dev, rebuild)"
    exit 77
fi
case "${RF_TEST_CFLAGS:-}" in *sanitize*) export ASAN_OPTIONS=detect_leaks=0 ;; esac # Open MPI's own

expect 2 '--per goes with --mpi' -- peaks --per socket
expect 2 "--per: 'rack' is not node or socket" -- peaks --mpi --per rack
expect 2 'no chart' -- peaks --mpi --chart

# Two ranks on this node: rank 0 measures (its neighbour sleeps), ping-pong 0 <-> 1, allreduce.
mpi() { timeout 90 mpirun -np 2 --oversubscribe --bind-to none "$BIN" "$@"; }
if mpi peaks --mpi --quick >"$TMP/out" 2>"$TMP/err"; then
    PASSES=$((PASSES + 1))
else
    echo "FAIL: mpirun peaks --mpi: $(cat "$TMP/err")"
    FAILS=$((FAILS + 1))
fi
for want in 'cluster: 1 node measured, 2 MPI ranks' 'fp64.fma' 'DRAM' 'ping-pong within a node' \
    'ping-pong across nodes: not measured, every rank is on one node' 'busbw' 'net.p2p.intra' \
    'net.allreduce.busbw' '64 MiB'; do
    grep -qF -- "$want" "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: table lacks '$want'"; cat "$TMP/out"; FAILS=$((FAILS + 1)); }
done

# --json: the aggregate machine file with the network ceilings; usable as --hw FILE.
mpi peaks --mpi --quick --json >"$TMP/cluster.json" 2>"$TMP/err" && PASSES=$((PASSES + 1)) || { echo "FAIL: --json: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
grep -q '"kind": "network"' "$TMP/cluster.json" && PASSES=$((PASSES + 1)) || { echo "FAIL: no network ceiling: $(cat "$TMP/cluster.json")"; FAILS=$((FAILS + 1)); }
expect 0 '' -- hw show "$TMP/cluster.json"
grep -q 'net.allreduce.busbw' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: hw show: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }
printf 'name,flops,bytes,net_bytes\nar,1000,4000,1e9\ngemm,1e12,1e6,0\n' >"$TMP/dist.csv"
expect 0 '' -- analyze --hw "$TMP/cluster.json" --advice 0 "$TMP/dist.csv"
grep -q '^network  net.p2p.intra' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: analyze did not take the file's network roof: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }
grep -q ' network ' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: no network-bound row"; FAILS=$((FAILS + 1)); }

# mpirun's default binding puts each rank on one core: the measuring rank widens itself to the
# node and says so (only where there are two CPUs to bind two ranks to).
if [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
    if timeout 90 mpirun -np 2 --bind-to core "$BIN" peaks --mpi --quick >"$TMP/out" 2>"$TMP/err"; then
        PASSES=$((PASSES + 1))
    else
        echo "FAIL: mpirun --bind-to core peaks --mpi: $(cat "$TMP/err")"
        FAILS=$((FAILS + 1))
    fi
    grep -q 'rank 0 (.*) was bound to 1 CPU .*it measures the node on all [0-9]* it may use' "$TMP/err" && PASSES=$((PASSES + 1)) || { echo "FAIL: no widening line: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
fi

# One rank without mpirun (MPI's singleton): one node, no network pair, still a table.
expect 0 '' -- peaks --mpi --quick
grep -q 'cluster: 1 node measured, 1 MPI rank' "$TMP/out" && PASSES=$((PASSES + 1)) || { echo "FAIL: singleton: $(cat "$TMP/out")"; FAILS=$((FAILS + 1)); }
finish
