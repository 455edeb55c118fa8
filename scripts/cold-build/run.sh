#!/usr/bin/env bash
# What a user pays to build mcpbind (BENCHMARKS.md, "cold debug build"),
# both paths against raw rmcp with the same reach, side by side in one run:
#
#   lean:    tests/lean (bindings checked in, `features = ["stdio"]`)
#            against rawclient/ without default features (rmcp `client`,
#            `transport-child-process`);
#   default: examples/quickstart (build.rs, default features) against
#            rawclient/ with `full` (rmcp's Streamable HTTP over reqwest,
#            and `auth`).
#
# Each build is cold (a fresh target dir), debug, with the workspace's
# profile and Cargo.lock. Prints wall seconds and the CPU seconds summed
# over all units (from `--timings`, steadier on a shared machine), and
# each round's ratios of CPU seconds.
#
#   scripts/cold-build/run.sh [ROUNDS]      # default 2; ~5 min a round on 2 cores
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

build() { # which -> "wall cpu"
    local which=$1 target="$scratch/target-$1"
    rm -rf "$target"
    local start end
    start=$(date +%s.%N)
    case "$which" in
        raw-lean) (cd "$scratch/rawclient" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 cargo build -q --timings --no-default-features 2>/dev/null) ;;
        raw-full) (cd "$scratch/rawclient" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 cargo build -q --timings 2>/dev/null) ;;
        lean) (cd "$repo" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 cargo build -q --timings -p mcpbind-lean-test) ;;
        default) (cd "$repo" && CARGO_TARGET_DIR="$target" CARGO_INCREMENTAL=0 cargo build -q --timings -p mcpbind-example-quickstart) ;;
    esac
    end=$(date +%s.%N)
    echo "$(echo "$end - $start" | bc) $(cpu "$target/cargo-timings/cargo-timing.html")"
    rm -rf "$target"
}

for round in $(seq "${1:-2}"); do
    declare -A cpu_of
    for which in raw-lean lean raw-full default; do
        read -r wall cpu_s < <(build "$which")
        cpu_of[$which]=$cpu_s
        printf 'round %s %-9s %6.1f s wall %6s s cpu  (load %s)\n' "$round" "$which" \
            "$wall" "$cpu_s" "$(cut -d' ' -f1 /proc/loadavg)"
    done
    printf 'round %s ratios (cpu): lean %.2fx raw stdio rmcp, default %.2fx raw rmcp with HTTP and auth\n' "$round" \
        "$(echo "${cpu_of[lean]} / ${cpu_of[raw-lean]}" | bc -l)" \
        "$(echo "${cpu_of[default]} / ${cpu_of[raw-full]}" | bc -l)"
done
