#!/usr/bin/env bash
# What a user pays to build mcpbind (BENCHMARKS.md, "cold debug build"):
# a cold `cargo build` of examples/quickstart against the same calls
# written by hand on raw rmcp (rawclient/, same rmcp features), one after
# the other, each in a fresh target dir, with the versions of the
# workspace's Cargo.lock. Prints wall seconds, and the CPU seconds summed
# over all units (from `--timings`, steadier on a shared machine).
#
#   scripts/cold-build/run.sh [ROUNDS]      # default 2; ~3 min a round on 2 cores
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$repo/scripts/cold-build/rawclient" "$scratch/rawclient"
cp "$repo/Cargo.lock" "$scratch/rawclient/Cargo.lock"

cpu() { # timings.html: the summed duration of every unit
    python3 -c 'import json,re,sys
s=open(sys.argv[1]).read()
units=json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n",s,re.S).group(1))
print("%.1f" % sum(u["duration"] for u in units))' "$1"
}

for round in $(seq "${1:-2}"); do
    for which in raw quickstart; do
        target="$scratch/target-$which"
        rm -rf "$target"
        start=$(date +%s.%N)
        if [ "$which" = raw ]; then
            (cd "$scratch/rawclient" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 cargo build -q --timings 2>/dev/null)
        else
            (cd "$repo" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 cargo build -q --timings -p mcpbind-example-quickstart)
        fi
        end=$(date +%s.%N)
        printf 'round %s %-10s %6.1f s wall %6s s cpu  (load %s)\n' "$round" "$which" \
            "$(echo "$end - $start" | bc)" "$(cpu "$target/cargo-timings/cargo-timing.html")" \
            "$(cut -d' ' -f1 /proc/loadavg)"
        rm -rf "$target"
    done
done
