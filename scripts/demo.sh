#!/usr/bin/env bash
# The main job, on the bundled demo server:
#   1. `mcpbind lock` starts the demo server, snapshots its tools/list into
#      examples/quickstart/mcpbind.lock;
#   2. `cargo run` of the quickstart builds it: its build.rs generates typed
#      bindings from that lockfile;
#   3. the quickstart makes typed calls and prints their results.
set -euo pipefail
cd "$(dirname "$0")/.."
# Build first, so that no server start waits on a compile.
cargo build --quiet --package mcpbind-cli --package mcpbind-demo-server
cargo run --quiet --package mcpbind-cli -- lock --config examples/quickstart/mcpbind.toml
cargo run --quiet --package mcpbind-example-quickstart
