#!/usr/bin/env bash
# Client instructions per call, typed vs raw rmcp, over stdio: the calls
# bench (tests/benches/calls.rs) under callgrind, which counts instructions
# rather than time, so the figure is the same on a busy machine. Each path
# runs at two call counts; the difference divided by the difference in
# calls is the cost of one call, with start-up and connecting cancelled out.
# Only the client (this process) is counted: the server is another process.
#
#   scripts/bench-calls-instructions.sh          # needs valgrind
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

bench=$(cargo bench -p mcpbind-tests --bench calls --no-run --message-format json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "calls" and m.get("executable"):
        print(m["executable"])')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Calls made by one run of the bench at MCPBIND_BENCH_CALLS=n: 5 rounds of
# a warm-up (n/10), n sequential calls and n/16*16 calls 16 in flight.
calls() { echo $(( 5 * ($1 / 10 + $1 + $1 / 16 * 16) )); }

instructions() { # path calls
    MCPBIND_BENCH_TRANSPORT=stdio MCPBIND_BENCH_ONLY=$1 MCPBIND_BENCH_CALLS=$2 \
        valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$bench" --bench 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

declare -A per_call
for path in raw typed; do
    low=$(instructions "$path" 100)
    high=$(instructions "$path" 300)
    per_call[$path]=$(( (high - low) / ($(calls 300) - $(calls 100)) ))
    echo "stdio $path: ${per_call[$path]} instructions per call (client)"
done
python3 -c "print('typed / raw: %.3fx' % (${per_call[typed]} / ${per_call[raw]}))"
