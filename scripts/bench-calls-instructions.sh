#!/usr/bin/env bash
# Client instructions per call, typed vs raw rmcp, over stdio: the calls
# bench (tests/benches/calls.rs) under callgrind, which counts instructions
# rather than time, so the figure is the same on a busy machine. Each path
# runs at two call counts; the difference divided by the difference in
# calls is the cost of one call, with start-up and connecting cancelled out.
# Only the client (this process) is counted: the server is another process.
#
#   scripts/bench-calls-instructions.sh          # needs valgrind
#   CALLGRIND_KEEP=dir scripts/bench-calls-instructions.sh
#                 # keeps the profiles (dir/cg-PATH-CALLS) for callgrind_annotate
#   BENCH_EXE=path scripts/bench-calls-instructions.sh
#                 # measures a bench executable built before (a copy kept
#                 # to compare two versions of the code), building nothing
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

# Cargo's messages go to the terminal (a failed build shows why); its JSON
# names the bench executable.
bench=${BENCH_EXE:-}
[ -n "$bench" ] || bench=$(cargo bench -p mcpbind-tests --bench calls --no-run --message-format json |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "calls" and m.get("executable"):
        print(m["executable"])')
[ -n "$bench" ] || { echo "cargo named no calls bench executable" >&2; exit 1; }
if [ -n "${CALLGRIND_KEEP:-}" ]; then
    out=$CALLGRIND_KEEP
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi

# Calls made by one run of the bench at MCPBIND_BENCH_CALLS=n: 5 rounds of
# a warm-up (n/10), n sequential calls and n/16*16 calls 16 in flight.
calls() { echo $(( 5 * ($1 / 10 + $1 + $1 / 16 * 16) )); }

# The client's instructions for one run. A run that fails (a panic in the
# bench, valgrind's own error) stops the script with its stderr's tail,
# rather than an exit status alone.
instructions() { # path calls
    local log="$out/$1-$2.log"
    if ! MCPBIND_BENCH_TRANSPORT=stdio MCPBIND_BENCH_ONLY=$1 MCPBIND_BENCH_CALLS=$2 \
        valgrind --tool=callgrind --callgrind-out-file="$out/cg-$1-$2" "$bench" --bench \
        >/dev/null 2>"$log"; then
        echo "the $1 bench at $2 calls failed under callgrind; its stderr ends:" >&2
        tail -n 30 "$log" >&2
        exit 1
    fi
    local collected
    collected=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log")
    [ -n "$collected" ] || { echo "no instruction count in $log:" >&2; tail -n 30 "$log" >&2; exit 1; }
    echo "$collected"
}

declare -A per_call
for path in raw typed; do
    low=$(instructions "$path" 100)
    high=$(instructions "$path" 300)
    per_call[$path]=$(( (high - low) / ($(calls 300) - $(calls 100)) ))
    echo "stdio $path: ${per_call[$path]} instructions per call (client)"
done
python3 -c "print('typed / raw: %.3fx' % (${per_call[typed]} / ${per_call[raw]}))"
