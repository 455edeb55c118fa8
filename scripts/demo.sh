#!/usr/bin/env bash
# The main job, on the bundled demo server:
#   1. `mcpbind lock` starts the demo server, snapshots its tools/list into
#      examples/quickstart/mcpbind.lock;
#   2. `cargo run` of the quickstart builds it: its build.rs generates typed
#      bindings from that lockfile;
#   3. the quickstart makes typed calls and prints their results.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --package mcpbind-cli -- lock --config examples/quickstart/mcpbind.toml
cargo run --quiet --package mcpbind-example-quickstart
